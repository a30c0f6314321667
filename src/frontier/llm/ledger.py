"""The response cache and the usage ledger, both in the workspace database."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict
from typing import Any

from frontier.llm.records import ChatResult, Usage
from frontier.store.db import now, transaction


def cache_key(
    model: str,
    messages: list[dict[str, Any]],
    schema: dict[str, Any] | None,
    sampling: dict[str, Any],
    prompt_version: str,
) -> str:
    payload = json.dumps(
        {
            "model": model,
            "messages": messages,
            "schema": schema,
            "sampling": sampling,
            "prompt_version": prompt_version,
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def cache_get(conn: sqlite3.Connection, key: str) -> ChatResult | None:
    row = conn.execute("SELECT response FROM llm_cache WHERE key = ?", (key,)).fetchone()
    if row is None:
        return None
    data = json.loads(row[0])
    return ChatResult(
        content=data["content"],
        reasoning=data["reasoning"],
        usage=Usage(**data["usage"]),
        model=data["model"],
        endpoint=data["endpoint"],
        cached=True,
        finish_reason=data.get("finish_reason", ""),
    )


def cache_put(conn: sqlite3.Connection, key: str, result: ChatResult, prompt_version: str) -> None:
    data = {
        "content": result.content,
        "reasoning": result.reasoning,
        "usage": asdict(result.usage),
        "model": result.model,
        "endpoint": result.endpoint,
        "finish_reason": result.finish_reason,
    }
    with transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO llm_cache (key, model, prompt_version, response, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (key, result.model, prompt_version, json.dumps(data, ensure_ascii=False), now()),
        )


def cache_clear(conn: sqlite3.Connection) -> int:
    with transaction(conn):
        return conn.execute("DELETE FROM llm_cache").rowcount


def record_call(
    conn: sqlite3.Connection,
    *,
    call_id: str,
    run_id: int | None,
    command: str,
    purpose: str,
    endpoint: str,
    model: str,
    prompt_version: str,
    usage: Usage,
    cache_hit: bool,
    attempts: int,
    latency_ms: int,
    outcome: str,
    error: str = "",
) -> None:
    """One row per logical call; the unique call id keeps a call from being counted twice."""
    with transaction(conn):
        conn.execute(
            """INSERT OR IGNORE INTO llm_calls (call_id, run_id, command, purpose, endpoint, model,
                   prompt_version, prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens,
                   cache_hit, attempts, latency_ms, outcome, error, at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                call_id,
                run_id,
                command,
                purpose,
                endpoint,
                model,
                prompt_version,
                usage.prompt_tokens,
                usage.completion_tokens,
                usage.reasoning_tokens,
                usage.cached_tokens,
                int(cache_hit),
                attempts,
                latency_ms,
                outcome,
                error[:500],
                now(),
            ),
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
