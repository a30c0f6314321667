"""What the web pages read from the store: read-only connections, the cached KB, usage rows."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from frontier.config import LLMSettings
from frontier.llm.embeddings import Embedder, EmbeddingError, load_embedder
from frontier.render.common import Context
from frontier.store.kb import load_kb
from frontier.store.llm_calls import usage_totals
from frontier.workspace import Workspace


def read_only(db_path: Path) -> sqlite3.Connection:
    """A connection that cannot write, whatever a page asks of it."""
    conn = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True, timeout=30.0)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA query_only=ON")
    return conn


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


def page_count(conn: sqlite3.Connection, paper_id: str) -> int:
    row = conn.execute("SELECT n_pages FROM papers WHERE id = ?", (paper_id,)).fetchone()
    return int(row[0]) if row else 0


def cited_pages(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """(paper, page) of every claim whose page is stored."""
    rows = conn.execute(
        "SELECT DISTINCT c.paper_id, c.page FROM claims c JOIN pages p "
        "ON p.paper_id = c.paper_id AND p.page = c.page ORDER BY 1, 2"
    )
    return [(r[0], r[1]) for r in rows]


def _cost(row: dict[str, Any], prices: LLMSettings) -> float:
    return round(
        (row["prompt_tokens"] or 0) / 1e6 * prices.price_prompt_per_m
        + (row["completion_tokens"] or 0) / 1e6 * prices.price_completion_per_m,
        6,
    )


def usage_rows(
    conn: sqlite3.Connection, prices: LLMSettings
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool]:
    """Usage per run (with when it started and how it ended) and per purpose; priced or not."""
    runs = {
        r["id"]: dict(r) for r in conn.execute("SELECT id, started_at, status FROM runs").fetchall()
    }
    by_run = usage_totals(conn, "run")
    for row in by_run:
        run = runs.get(row["run_id"], {})
        row["started_at"] = (run.get("started_at") or "")[:19].replace("T", " ")
        row["status"] = run.get("status", "")
        row["cost_usd"] = _cost(row, prices)
    by_purpose = usage_totals(conn, "purpose")
    for row in by_purpose:
        row["cost_usd"] = _cost(row, prices)
    priced = bool(prices.price_prompt_per_m or prices.price_completion_per_m)
    return by_run, by_purpose, priced
