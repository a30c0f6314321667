"""The LLM commands: `llm status`, `llm ask`, `usage`, `cache clear`."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path
from typing import Any

import httpx

from frontier.config import LLMSettings
from frontier.llm.client import LLM
from frontier.llm.embedded import EmbeddedError
from frontier.llm.prompts import load_prompt
from frontier.llm.records import ChatResult, LLMFailure
from frontier.store.browse import cost
from frontier.store.llm_calls import cache_clear, usage_totals
from frontier.store.runs import recorded_run
from frontier.workspace import open_workspace


def llm_status(workspace: Path | None) -> dict[str, Any]:
    """Which model and endpoint are in use, and whether they answer."""
    ws = open_workspace(workspace)
    with contextlib.closing(ws.connect()) as conn:
        return asyncio.run(_probe(ws.settings.llm, conn))


async def _probe(settings: LLMSettings, conn: sqlite3.Connection) -> dict[str, Any]:
    data: dict[str, Any] = {
        "backend": "",
        "model": "",
        "endpoint": "",
        "answers": False,
        "error": "",
    }
    try:
        llm = LLM(settings, conn, command="llm status", use_cache=False)
        data["backend"] = llm.backend
        async with llm:
            try:
                data["model"] = await llm.model_name()
                await llm.chat(
                    [{"role": "user", "content": "Reply with the word: ready"}],
                    purpose="health",
                    max_tokens=4,
                )
                data["answers"] = True
            finally:
                data["endpoint"] = llm.endpoint_label()
    except (LLMFailure, EmbeddedError, httpx.HTTPError, OSError) as exc:
        data["error"] = str(exc)
    except Exception as exc:  # an unreachable server raises many kinds of errors; report them
        data["error"] = f"{type(exc).__name__}: {exc}"
    return data


def llm_ask(
    workspace: Path | None, question: str, think: bool, use_cache: bool
) -> tuple[ChatResult, str]:
    """The model's reply to one question (not from the KB) and the prompt's version tag.
    A model failure is recorded on the run and raised as LLMFailure."""
    ws = open_workspace(workspace)
    prompt = load_prompt("ask")
    messages = prompt.messages(field=ws.settings.field.name, question=question)
    failed: LLMFailure | None = None
    with (
        contextlib.closing(ws.connect()) as conn,
        recorded_run(conn, "llm ask", question[:200]) as run,
    ):
        try:
            result = asyncio.run(
                _ask(ws.settings.llm, conn, run.id, messages, prompt.tag, think, use_cache)
            )
        except LLMFailure as failure:
            run.status, run.summary = "failed", {"error": str(failure)}
            failed = failure
        else:
            run.summary = {"cached": result.cached}
    if failed is not None:
        raise failed
    return result, prompt.tag


async def _ask(
    settings: LLMSettings,
    conn: sqlite3.Connection,
    run_id: int,
    messages: list[dict[str, str]],
    tag: str,
    think: bool,
    use_cache: bool,
) -> ChatResult:
    async with LLM(settings, conn, run_id=run_id, command="llm ask", use_cache=use_cache) as llm:
        return await llm.chat(messages, purpose="ask", prompt_version=tag, think=think)


def usage(workspace: Path | None) -> tuple[dict[str, list[dict[str, Any]]], bool]:
    """Calls, cache hits, tokens and cost per run and per purpose; and whether prices are set."""
    ws = open_workspace(workspace)
    prices = ws.settings.llm
    with contextlib.closing(ws.connect()) as conn:
        data = {"by_run": usage_totals(conn, "run"), "by_purpose": usage_totals(conn, "purpose")}
    for rows in data.values():
        for row in rows:
            row["cost_usd"] = cost(row, prices)
    return data, bool(prices.price_prompt_per_m or prices.price_completion_per_m)


def clear_cache(workspace: Path | None) -> int:
    """Forget every cached response; how many there were."""
    ws = open_workspace(workspace)
    with contextlib.closing(ws.connect()) as conn:
        return cache_clear(conn)
