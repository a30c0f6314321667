"""Runs: every command that changes the KB is one row, closed with its status and summary."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from frontier.store.db import now, transaction


def start_run(conn: sqlite3.Connection, command: str, args: str = "") -> int:
    with transaction(conn):
        close_dead_runs(conn)
        cursor = conn.execute(
            "INSERT INTO runs (command, args, started_at, pid) VALUES (?, ?, ?, ?)",
            (command, args, now(), os.getpid()),
        )
    return int(cursor.lastrowid or 0)


def _alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def close_dead_runs(conn: sqlite3.Connection) -> None:
    """Runs left 'running' by a process that no longer exists were killed: say so."""
    for row in conn.execute("SELECT id, pid FROM runs WHERE status = 'running'").fetchall():
        if not _alive(row["pid"]):
            conn.execute(
                "UPDATE runs SET status = 'interrupted', ended_at = COALESCE(ended_at, ?) WHERE id = ?",
                (now(), row["id"]),
            )


def finish_run(conn: sqlite3.Connection, run_id: int, status: str, summary: dict[str, Any]) -> None:
    with transaction(conn):
        conn.execute(
            "UPDATE runs SET ended_at = ?, status = ?, summary = ? WHERE id = ?",
            (now(), status, json.dumps(summary, sort_keys=True), run_id),
        )


def recent_runs(conn: sqlite3.Connection, limit: int = 5) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT id, command, args, started_at, ended_at, status, summary FROM runs "
        "ORDER BY id DESC LIMIT ?",
        (limit,),
    )
    return [{**dict(row), "summary": json.loads(row["summary"])} for row in rows]


@dataclass
class RunOutcome:
    """What a recorded run ends with; the command sets it before the run closes."""

    id: int
    status: str = "ok"
    summary: dict[str, Any] = field(default_factory=dict)


@contextlib.contextmanager
def recorded_run(conn: sqlite3.Connection, command: str, args: str = "") -> Iterator[RunOutcome]:
    """Record a command as a run; interrupted or crashed runs are closed as such."""
    outcome = RunOutcome(start_run(conn, command, args))
    try:
        yield outcome
    except KeyboardInterrupt:
        finish_run(conn, outcome.id, "interrupted", outcome.summary)
        raise
    except BaseException:
        finish_run(conn, outcome.id, "failed", outcome.summary)
        raise
    finish_run(conn, outcome.id, outcome.status, outcome.summary)
