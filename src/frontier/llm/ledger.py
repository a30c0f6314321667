"""The response cache and the usage ledger: model results to and from their stored rows."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict
from typing import Any

from frontier.llm.records import ChatResult, Usage
from frontier.store.llm_calls import cache_response, cached_response, insert_call


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
    response = cached_response(conn, key)
    if response is None:
        return None
    data = json.loads(response)
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
    cache_response(conn, key, result.model, prompt_version, json.dumps(data, ensure_ascii=False))


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
    insert_call(
        conn,
        call_id,
        {
            "run_id": run_id,
            "command": command,
            "purpose": purpose,
            "endpoint": endpoint,
            "model": model,
            "prompt_version": prompt_version,
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "reasoning_tokens": usage.reasoning_tokens,
            "cached_tokens": usage.cached_tokens,
            "cache_hit": int(cache_hit),
            "attempts": attempts,
            "latency_ms": latency_ms,
            "outcome": outcome,
            "error": error[:500],
        },
    )
