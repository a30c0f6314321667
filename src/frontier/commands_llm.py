"""The LLM commands: `llm status`, `llm ask`, `usage`, `cache clear`."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

from frontier import render_cli
from frontier.commands import recorded_run
from frontier.llm.client import LLM
from frontier.llm.embedded import EmbeddedError
from frontier.llm.prompts import load_prompt
from frontier.llm.records import ChatResult, LLMFailure
from frontier.store.llm_calls import cache_clear, usage_totals
from frontier.workspace import open_workspace


def llm_status(workspace: Path | None, json_out: bool, console: Console) -> int:
    """Which model and endpoint are in use, and whether they answer."""
    ws = open_workspace(workspace)
    with contextlib.closing(ws.connect()) as conn:
        data = asyncio.run(_probe(ws.settings.llm, conn))
    if json_out:
        render_cli.print_json(console, data)
    else:
        mark = (
            "[green]answers[/]" if data["answers"] else f"[red]does not answer[/]: {data['error']}"
        )
        console.print(
            f"backend  {data['backend']}\nmodel    {data['model']}\nendpoint {data['endpoint']}\nstatus   {mark}"
        )
    return 0 if data["answers"] else 1


async def _probe(settings: Any, conn: sqlite3.Connection) -> dict[str, Any]:
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
            await llm.aclose()
    except (LLMFailure, EmbeddedError, httpx.HTTPError, OSError) as exc:
        data["error"] = str(exc)
    except (
        Exception
    ) as exc:  # an unreachable server raises many kinds of errors; report, don't crash
        data["error"] = f"{type(exc).__name__}: {exc}"
    return data


def llm_ask(
    workspace: Path | None, question: str, think: bool, use_cache: bool, console: Console
) -> int:
    ws = open_workspace(workspace)
    prompt = load_prompt("ask")
    messages = prompt.messages(field=ws.settings.field.name, question=question)
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
            console.print(f"[red]{failure}[/]")
            return 1
        run.summary = {"cached": result.cached}
    if think and result.reasoning:
        console.rule("reasoning")
        console.print(result.reasoning, markup=False, highlight=False)
        console.rule("answer")
    console.print(result.content, markup=False, highlight=False)
    print_token_summary(console, result, prompt.tag)
    return 0


async def _ask(
    settings: Any,
    conn: sqlite3.Connection,
    run_id: int,
    messages: list[dict[str, str]],
    tag: str,
    think: bool,
    use_cache: bool,
) -> ChatResult:
    llm = LLM(settings, conn, run_id=run_id, command="llm ask", use_cache=use_cache)
    try:
        return await llm.chat(messages, purpose="ask", prompt_version=tag, think=think)
    finally:
        await llm.aclose()


def print_token_summary(console: Console, result: ChatResult, tag: str) -> None:
    usage = result.usage
    answer_words = len(result.content.split())
    reasoning_words = len(result.reasoning.split())
    console.print("\nTOKEN SUMMARY" + (" (from cache: no request made)" if result.cached else ""))
    console.print(f"  model / prompt         : {result.model} / {tag}")
    console.print(
        f"  prompt tokens          : {usage.prompt_tokens:>8,}  (cached {usage.cached_tokens:,})"
    )
    console.print(f"  completion tokens      : {usage.completion_tokens:>8,}")
    console.print(
        f"  ├─ reasoning tokens    : {usage.reasoning_tokens:>8,}  (~{reasoning_words:,} words)"
    )
    console.print(f"  └─ answer (~words)     : {answer_words:>8,}")


def usage_report(workspace: Path | None, json_out: bool, console: Console) -> None:
    ws = open_workspace(workspace)
    prices = ws.settings.llm
    with contextlib.closing(ws.connect()) as conn:
        data = {"by_run": usage_totals(conn, "run"), "by_purpose": usage_totals(conn, "purpose")}
    for rows in data.values():
        for row in rows:
            row["cost_usd"] = round(
                row["prompt_tokens"] / 1e6 * prices.price_prompt_per_m
                + row["completion_tokens"] / 1e6 * prices.price_completion_per_m,
                6,
            )
    if json_out:
        render_cli.print_json(console, data)
        return
    priced = prices.price_prompt_per_m or prices.price_completion_per_m
    for title, rows, keys in (
        ("Per run", data["by_run"], ("run_id", "command")),
        ("Per purpose", data["by_purpose"], ("purpose",)),
    ):
        table = Table(title=title)
        columns = [
            *keys,
            "calls",
            "cache_hits",
            "failures",
            "prompt_tokens",
            "completion_tokens",
            "reasoning_tokens",
            "cached_tokens",
        ] + (["cost_usd"] if priced else [])
        for column in columns:
            table.add_column(column.replace("_", " "))
        for row in rows:
            table.add_row(*[str(row[c]) for c in columns])
        console.print(table)


def clear_cache(workspace: Path | None, console: Console) -> None:
    ws = open_workspace(workspace)
    with contextlib.closing(ws.connect()) as conn:
        removed = cache_clear(conn)
    console.print(f"Removed {removed} cached LLM responses.")
