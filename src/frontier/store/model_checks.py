"""The record of whether a model's replies passed the check of the step that asked for them."""

from __future__ import annotations

import sqlite3

from frontier.store.db import now, transaction


def record_checks(
    conn: sqlite3.Connection,
    step: str,
    model: str,
    prompt_version: str,
    passed: list[bool],
    run_id: int | None,
) -> None:
    with transaction(conn):
        conn.executemany(
            "INSERT INTO model_checks (step, model, prompt_version, passed, run_id, at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(step, model, prompt_version, int(p), run_id, now()) for p in passed],
        )


def recent_checks(
    conn: sqlite3.Connection, step: str, model: str, prompt_version: str, count: int
) -> list[bool]:
    """The last `count` outcomes of this step's replies from this model and prompt version."""
    rows = conn.execute(
        "SELECT passed FROM model_checks WHERE step = ? AND model = ? AND prompt_version = ? "
        "ORDER BY id DESC LIMIT ?",
        (step, model, prompt_version, count),
    )
    return [bool(row[0]) for row in rows]


def checks_by_step(conn: sqlite3.Connection) -> list[dict[str, object]]:
    """Per step, model and prompt version: calls checked and how many passed."""
    rows = conn.execute(
        "SELECT step, model, prompt_version, COUNT(*), SUM(passed) FROM model_checks "
        "GROUP BY step, model, prompt_version ORDER BY step, MAX(id) DESC"
    )
    return [
        {"step": r[0], "model": r[1], "prompt_version": r[2], "checked": r[3], "passed": r[4]}
        for r in rows
    ]
