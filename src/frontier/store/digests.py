"""The change log digests are read from (kb_log, filled by the schema's triggers), the digests
written so far and where the next one starts."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from frontier.store.db import now, transaction

# the first run of every `frontier update`: where "the last N updates" begin
UPDATE_FIRST_RUN = "update:discover"


@dataclass(frozen=True)
class LogRow:
    seq: int
    kind: str  # paper | entry | relation | gap | conflict | input | llm
    key: str
    status: str
    at: str


@dataclass(frozen=True)
class StoredDigest:
    id: int
    name: str
    run_id: int | None
    after_seq: int
    upto_seq: int
    at: str


def ids_param(ids: Collection[Any]) -> str:
    """A set of keys as one query parameter, read in SQL with json_each."""
    return json.dumps(sorted(ids))


def log_end(conn: sqlite3.Connection) -> int:
    """The newest position of the log."""
    return int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM kb_log").fetchone()[0])


def digest_mark(conn: sqlite3.Connection) -> int:
    """Where the last digest stopped (or where digests began)."""
    last = conn.execute("SELECT COALESCE(MAX(upto_seq), 0) FROM digests").fetchone()[0]
    return max(int(last), int(digest_state(conn, "baseline") or 0))


def log_rows(conn: sqlite3.Connection, after: int, upto: int, since: str = "") -> list[LogRow]:
    """The log up to `upto`: after `after`, or, with `since`, stamped at or after that time."""
    if since:
        rows = conn.execute(
            "SELECT seq, kind, key, status, at FROM kb_log WHERE at >= ? AND seq <= ? ORDER BY seq",
            (since, upto),
        )
    else:
        rows = conn.execute(
            "SELECT seq, kind, key, status, at FROM kb_log WHERE seq > ? AND seq <= ? ORDER BY seq",
            (after, upto),
        )
    return [LogRow(*row) for row in rows]


def update_started(conn: sqlite3.Connection, updates: int) -> str | None:
    """When the `updates`-th latest `frontier update` started (None when there were fewer)."""
    row = conn.execute(
        "SELECT started_at FROM runs WHERE command = ? ORDER BY id DESC LIMIT 1 OFFSET ?",
        (UPDATE_FIRST_RUN, updates - 1),
    ).fetchone()
    return row[0] if row else None


def _digest(row: sqlite3.Row) -> StoredDigest:
    return StoredDigest(*row)


def stored_digests(conn: sqlite3.Connection) -> list[StoredDigest]:
    """Every digest written, newest first."""
    rows = conn.execute(
        "SELECT id, name, run_id, after_seq, upto_seq, at FROM digests ORDER BY id DESC"
    )
    return [_digest(row) for row in rows]


def stored_digest(conn: sqlite3.Connection, name: str) -> StoredDigest | None:
    row = conn.execute(
        "SELECT id, name, run_id, after_seq, upto_seq, at FROM digests WHERE name = ?", (name,)
    ).fetchone()
    return _digest(row) if row else None


def save_digest(
    conn: sqlite3.Connection, run_id: int | None, after: int, upto: int, day: str
) -> StoredDigest | None:
    """Record the digest of the log in (after, upto], named after `day` (then -2, -3, ... for
    more the same day); None when another digest has covered that log meanwhile."""
    with transaction(conn):
        if digest_mark(conn) != after:
            return None
        taken = {
            row[0]
            for row in conn.execute(
                "SELECT name FROM digests WHERE name = ? OR name LIKE ?", (day, f"{day}-%")
            )
        }
        name = next(
            candidate
            for n in range(1, len(taken) + 2)
            if (candidate := day if n == 1 else f"{day}-{n}") not in taken
        )
        conn.execute(
            "INSERT INTO digests (name, run_id, after_seq, upto_seq, at) VALUES (?, ?, ?, ?, ?)",
            (name, run_id, after, upto, now()),
        )
    return stored_digest(conn, name)


def digest_state(conn: sqlite3.Connection, key: str) -> str:
    """The feed's id ('feed_id') or when digests began ('began_at')."""
    row = conn.execute("SELECT value FROM digest_state WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else ""


def input_rows(conn: sqlite3.Connection, ids: Collection[int]) -> list[dict[str, Any]]:
    """Ingest outcomes by id: the item, rejected or warning, its reason and paper."""
    rows = conn.execute(
        "SELECT id, item, outcome, code, reason, paper_id, at FROM ingest_outcomes "
        "WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
        (ids_param(ids),),
    )
    return [dict(row) for row in rows]


def llm_totals(conn: sqlite3.Connection, ids: Collection[int]) -> dict[str, int]:
    """Calls, cache hits and tokens of these ledger rows."""
    row = conn.execute(
        "SELECT COUNT(*) AS calls, COALESCE(SUM(cache_hit), 0) AS cache_hits, "
        "COALESCE(SUM(prompt_tokens), 0) AS prompt_tokens, "
        "COALESCE(SUM(completion_tokens), 0) AS completion_tokens "
        "FROM llm_calls WHERE id IN (SELECT value FROM json_each(?))",
        (ids_param(ids),),
    ).fetchone()
    return {key: int(row[key]) for key in row.keys()}  # noqa: SIM118 (a Row is not a dict)


def conflict_papers(conn: sqlite3.Connection, conflict_ids: Collection[int]) -> dict[int, set[str]]:
    """The two papers behind each of these conflicts that code found in the claims."""
    rows = conn.execute(
        "SELECT conflict_id, paper_a, paper_b FROM conflict_claims "
        "WHERE conflict_id IN (SELECT value FROM json_each(?))",
        (ids_param(conflict_ids),),
    )
    return {row[0]: {row[1], row[2]} for row in rows}
