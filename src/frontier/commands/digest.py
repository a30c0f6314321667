"""`frontier digest`, and the digest `frontier update` ends with: what changed since the last one."""

from __future__ import annotations

import contextlib
import datetime as dt
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from frontier.errors import KBError, OptionsError
from frontier.render import render_vault
from frontier.render.digest import Digest, Period, build_digest, digest_data
from frontier.render.digest_page import digest_page, digest_path, stored_intro, stored_title
from frontier.render.vault import write_if_changed
from frontier.store import digests as store
from frontier.store.runs import recorded_run
from frontier.workspace import Workspace, open_workspace

FEED_FILE = "feed.xml"


@dataclass
class DigestOutcome:
    """A digest and where it went; `digest` is None when nothing changed."""

    digest: Digest | None
    title: str
    page: str  # the markdown ("" when nothing changed)
    path: Path | None  # the file written; None for a view or when nothing changed
    last: str  # the previous digest's name ('' when there is none)

    def nothing_new(self) -> str:
        """The one line said when nothing changed."""
        if self.title:  # a view of a period
            return f"{self.title}: nothing."
        if not self.last:
            return "Nothing new since digests began."
        return f"Nothing new since the last digest ({self.last})."

    def to_dict(self) -> dict[str, Any]:
        data = digest_data(self.digest) if self.digest else {"summary": [self.nothing_new()]}
        return {"title": self.title, "path": str(self.path) if self.path else None} | data


def _today() -> str:
    """The digest's date: UTC, like every time the store keeps."""
    return dt.datetime.now(dt.UTC).date().isoformat()


def write_digest(ws: Workspace, command: str = "digest") -> DigestOutcome:
    """The digest of everything the KB logged since the last digest: stored, written to
    kb/digests/ and the feed. When nothing changed, nothing is stored or written."""
    with contextlib.closing(ws.connect()) as conn:
        after, upto = store.digest_mark(conn), store.log_end(conn)
        digest = build_digest(conn, ws.settings, Period(after, upto))
        rows = store.stored_digests(conn)
        last = rows[0] if rows else None
        if digest.is_empty():
            return DigestOutcome(None, "", "", None, last.name if last else "")
        with recorded_run(conn, command) as run:
            row = store.save_digest(conn, run.id, after, upto, _today())
            run.summary = {"digest": row.name if row else None, "counts": digest.counts()}
        if row is None:  # a digest written at the same moment took this log
            return DigestOutcome(None, "", "", None, store.stored_digests(conn)[0].name)
        here = digest_path(row.name)
        page = digest_page(digest, here, stored_title(row), stored_intro(row, last))
        write_if_changed(ws.kb_dir / here, page)
        write_feed(ws, conn)
        return DigestOutcome(digest, stored_title(row), page, ws.kb_dir / here, row.name)


def write_feed(ws: Workspace, conn: sqlite3.Connection) -> bool:
    """kb/feed.xml from the stored digests (none before the first); True when it changed."""
    if not store.stored_digests(conn):
        return False
    from frontier.web.feed import vault_feed  # the feed's HTML comes from the web templates

    return write_if_changed(ws.kb_dir / FEED_FILE, vault_feed(conn, ws.settings))


def view_digest(
    ws: Workspace, since: str | None, runs: int | None, topic: str | None
) -> DigestOutcome:
    """What changed since a date, over the last `runs` updates, or since the last digest (in
    one topic with `topic`), printed only: nothing is stored or written."""
    title = f"What changed in {ws.settings.topic(topic).title}" if topic else "What changed"
    with contextlib.closing(ws.connect()) as conn:
        upto = store.log_end(conn)
        if since is not None:
            period, title = Period(upto=upto, since=since), f"{title} since {since}"
        elif runs is not None:
            started = store.update_started(conn, runs)
            if started is None:
                many = f"fewer than {runs} `frontier update` runs are" if runs > 1 else "no run"
                raise KBError(f"{many} recorded (`frontier digest --since DATE` takes any period)")
            period = Period(upto=upto, since=started)
            title += f" in the last {runs} update{'s' if runs > 1 else ''}"
        else:
            period, title = Period(store.digest_mark(conn), upto), f"{title} since the last digest"
        digest = build_digest(conn, ws.settings, period, topic)
        last = store.stored_digests(conn)
    if digest.is_empty():
        return DigestOutcome(None, title, "", None, last[0].name if last else "")
    intro = f"Up to now ({dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC); nothing was stored."
    page = digest_page(digest, digest_path("view"), title, intro)
    return DigestOutcome(digest, title, page, None, last[0].name if last else "")


def _since_date(value: str) -> str:
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise OptionsError(f"--since takes a date as YYYY-MM-DD, not {value!r}") from None


def digest(
    workspace: Path | None, since: str | None, runs: int | None, topic: str | None
) -> DigestOutcome:
    """Write the digest of what changed since the last one; with --since, --runs or --topic,
    print a digest of that period without storing it."""
    if since is not None and runs is not None:
        raise OptionsError("--since and --runs each choose the period: give one of them")
    if runs is not None and runs < 1:
        raise OptionsError("--runs takes a number of updates, 1 or more")
    ws = open_workspace(workspace)
    if since is None and runs is None and topic is None:
        return write_digest(ws)
    return view_digest(ws, _since_date(since) if since else None, runs, topic)


def render_workspace(ws: Workspace) -> dict[str, int]:
    """The vault, and the feed of its digests once there are any."""
    with contextlib.closing(ws.connect()) as conn:
        counts = render_vault(conn, ws.settings, ws.kb_dir)
        if write_feed(ws, conn):
            counts["written"] += 1
        elif (ws.kb_dir / FEED_FILE).exists():
            counts["unchanged"] += 1
    return counts
