"""What every request of one server shares: the workspace, the KB loaded once per change of the
store, the embedding model loaded once, how far it is shared and its sessions, the admission of
answers; and how a page is read and rendered."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from typing import Any

from starlette.responses import HTMLResponse

from frontier.config import LLMSettings
from frontier.llm.admission import Admission
from frontier.llm.embeddings import Embedder, EmbeddingError, load_embedder
from frontier.render.common import Context
from frontier.store.browse import cost, read_only, run_starts
from frontier.store.kb import load_kb
from frontier.store.llm_calls import usage_totals
from frontier.web.access import Sessions, Sharing, current_session
from frontier.web.base import View
from frontier.web.links import Links
from frontier.web.templating import render
from frontier.workspace import Workspace


class KBCache:
    """The KB loaded once per change of the store (its file and its WAL), shared by requests."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._lock = threading.Lock()
        self._key: tuple[int, ...] = ()
        self._ctx: Context | None = None

    def _stamp(self) -> tuple[int, ...]:
        parts: list[int] = []
        for path in (self.ws.db_path, self.ws.db_path.with_name(self.ws.db_path.name + "-wal")):
            try:
                stat = path.stat()
            except FileNotFoundError:
                parts += [0, 0]
                continue
            parts += [stat.st_mtime_ns, stat.st_size]
        return tuple(parts)

    @contextlib.contextmanager
    def reading(self) -> Iterator[tuple[sqlite3.Connection, Context]]:
        """A read-only connection and the KB as of now, for one request or one call."""
        conn = read_only(self.ws.db_path)
        try:
            yield conn, self.context(conn)
        finally:
            conn.close()

    def context(self, conn: sqlite3.Connection) -> Context:
        with self._lock:
            key = self._stamp()
            if self._ctx is None or key != self._key:
                self._ctx = Context(load_kb(conn, self.ws.settings), self.ws.settings)
                self._key = key
            return self._ctx


class SharedEmbedder:
    """The embedding model, loaded on first use and shared by every request of the server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._embedder: Embedder | None = None
        self.error = ""

    def get(self) -> Embedder | None:
        """The model, or None when it is not installed (retrieval then ranks by BM25 alone)."""
        with self._lock:
            if self._embedder is None and not self.error:
                try:
                    self._embedder = load_embedder()
                except EmbeddingError as exc:
                    self.error = str(exc)
            return self._embedder


class ServerState:
    """One workspace served: what its request handlers share."""

    def __init__(self, ws: Workspace, allow_edits: bool, sharing: Sharing | None = None) -> None:
        self.ws = ws
        self.allow_edits = allow_edits
        self.sharing = sharing or Sharing()
        self.sessions = Sessions()
        self.cache = KBCache(ws)
        self.embedder = SharedEmbedder()
        settings = ws.settings
        # one limit for every answer the process writes, whichever client asked
        self.admission = Admission(
            settings.serve.answers(settings.llm), settings.serve.queue, settings.llm.answer_deadline
        )

    def form_token(self) -> str:
        """The form token of the request's session ('' for a request without one)."""
        session = current_session()
        return self.sessions.form_token(session) if session else ""

    def token_matches(self, given: str) -> bool:
        """Whether a form carries the token of the request's session."""
        return self.sessions.token_matches(given, current_session(), self.sharing.public)

    def reading(self) -> contextlib.AbstractContextManager[tuple[sqlite3.Connection, Context]]:
        """A read-only connection for one request and the KB as of now."""
        return self.cache.reading()

    def html(self, view: View, ctx: Context | None, **extra: Any) -> str:
        shared = {"allow_edits": self.allow_edits, "shared": self.sharing.public}
        return render(view, ctx, Links(), **shared, csrf=self.form_token(), **extra)

    def page(
        self,
        view: View,
        ctx: Context | None,
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> HTMLResponse:
        """The page; one that carries a form token is kept by no cache."""
        html, token = self.html(view, ctx), self.form_token()
        headers = dict(headers or {})
        if token and token in html:
            headers["cache-control"] = "no-store"
        return HTMLResponse(html, status_code=status, headers=headers)


def usage_rows(
    conn: sqlite3.Connection, prices: LLMSettings
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool]:
    """Usage per run (with when it started and how it ended) and per purpose; priced or not."""
    runs = run_starts(conn)
    by_run = usage_totals(conn, "run")
    for row in by_run:
        run = runs.get(row["run_id"], {})
        row["started_at"] = (run.get("started_at") or "")[:19].replace("T", " ")
        row["status"] = run.get("status", "")
        row["cost_usd"] = cost(row, prices)
    by_purpose = usage_totals(conn, "purpose")
    for row in by_purpose:
        row["cost_usd"] = cost(row, prices)
    priced = bool(prices.price_prompt_per_m or prices.price_completion_per_m)
    return by_run, by_purpose, priced
