"""The model response cache and the ledger of model calls, as tables of the workspace database."""

from __future__ import annotations

import sqlite3
from typing import Any

from frontier.store.db import now, transaction

# the ledger's columns after call_id, in insertion order (`at` is stamped here)
CALL_COLUMNS = (
    "run_id",
    "command",
    "purpose",
    "endpoint",
    "model",
    "prompt_version",
    "prompt_tokens",
    "completion_tokens",
    "reasoning_tokens",
    "cached_tokens",
    "cache_hit",
    "attempts",
    "latency_ms",
    "outcome",
    "error",
)


def cached_response(conn: sqlite3.Connection, key: str) -> str | None:
    """The stored response (JSON text) under `key`, if any."""
    row = conn.execute("SELECT response FROM llm_cache WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def cache_response(
    conn: sqlite3.Connection, key: str, model: str, prompt_version: str, response: str
) -> None:
    with transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO llm_cache (key, model, prompt_version, response, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (key, model, prompt_version, response, now()),
        )


def cache_clear(conn: sqlite3.Connection) -> int:
    """Forget every cached response; the number forgotten."""
    with transaction(conn):
        return conn.execute("DELETE FROM llm_cache").rowcount


def insert_call(conn: sqlite3.Connection, call_id: str, values: dict[str, Any]) -> None:
    """One ledger row (`values` holds every column of CALL_COLUMNS); a call id already recorded
    is ignored, so a call is never counted twice."""
    columns = ", ".join(("call_id", *CALL_COLUMNS, "at"))
    marks = ", ".join("?" * (len(CALL_COLUMNS) + 2))
    with transaction(conn):
        conn.execute(
            f"INSERT OR IGNORE INTO llm_calls ({columns}) VALUES ({marks})",
            (call_id, *(values[name] for name in CALL_COLUMNS), now()),
        )


def usage_totals(conn: sqlite3.Connection, by: str) -> list[dict[str, Any]]:
    """Totals per run or per purpose."""
    group = {"run": "run_id, command", "purpose": "purpose"}[by]
    rows = conn.execute(
        f"""SELECT {group}, COUNT(*) AS calls, SUM(cache_hit) AS cache_hits,
                   SUM(outcome != 'ok') AS failures, SUM(prompt_tokens) AS prompt_tokens,
                   SUM(completion_tokens) AS completion_tokens,
                   SUM(reasoning_tokens) AS reasoning_tokens, SUM(cached_tokens) AS cached_tokens,
                   SUM(latency_ms) AS latency_ms
            FROM llm_calls GROUP BY {group} ORDER BY {group.split(",")[0]}"""
    )
    return [dict(row) for row in rows]
