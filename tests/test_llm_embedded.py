"""The real embedded model (SmolLM2 on llama.cpp's llama-server, 127.0.0.1) through the one LLM path."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import httpx
import pytest
from helpers import SERVER_PROCESS, run_cli
from pydantic import BaseModel, Field

from frontier.config import LLMSettings
from frontier.llm.client import LLM
from frontier.llm.embedded import shared_embedded
from frontier.llm.pool import run_bounded
from frontier.llm.records import LLMFailure
from frontier.store.db import connect

pytestmark = pytest.mark.slow


class PaperGuess(BaseModel):
    title: str = Field(max_length=60)
    year: int = Field(ge=1990, le=2030)
    topics: list[Annotated[str, Field(max_length=30)]] = Field(max_length=3)


@pytest.fixture(autouse=True)
def no_remote_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = connect(tmp_path / "kb.db")
    yield connection
    connection.close()


SETTINGS = LLMSettings(max_output_tokens=200, timeout=60)
QUESTION = [{"role": "user", "content": "Invent a paper about KV caches: title, year, topics."}]


def test_structured_call_then_cache_hit_without_request(conn: sqlite3.Connection) -> None:
    server = shared_embedded(SETTINGS)

    async def twice() -> tuple[PaperGuess, PaperGuess, bool]:
        llm = LLM(SETTINGS, conn)
        first = await llm.structured(PaperGuess, QUESTION, purpose="guess", prompt_version="t@1")
        server.stop()  # a second request would have to start it again
        second = await llm.structured(PaperGuess, QUESTION, purpose="guess", prompt_version="t@1")
        await llm.aclose()
        return first.value, second.value, second.result.cached

    first, second, cached = asyncio.run(twice())
    assert isinstance(first, PaperGuess) and len(first.title) <= 60 and len(first.topics) <= 3
    assert second == first and cached
    assert not server.alive()
    rows = conn.execute(
        "SELECT cache_hit, outcome, completion_tokens FROM llm_calls ORDER BY id"
    ).fetchall()
    assert [tuple(r)[:2] for r in rows] == [(0, "ok"), (1, "ok")]
    assert rows[0]["completion_tokens"] > 0 and rows[1]["completion_tokens"] == 0


def test_server_killed_mid_batch_comes_back(conn: sqlite3.Connection) -> None:
    settings = LLMSettings(max_output_tokens=24, timeout=60, max_retries=4, max_in_flight=4)
    server = shared_embedded(settings)
    restarts_before = server.restarts

    async def batch() -> list[object]:
        llm = LLM(settings, conn, use_cache=False)

        async def ask(i: int) -> str:
            message = [{"role": "user", "content": f"Say a number near {i}."}]
            return (await llm.chat(message, purpose="batch", max_tokens=16)).content

        async def killer() -> None:
            while conn.execute("SELECT COUNT(*) FROM llm_calls").fetchone()[0] < 5:
                await asyncio.sleep(0.05)
            server.kill()

        kill_task = asyncio.create_task(killer())
        results = await run_bounded(list(range(20)), ask, settings.max_in_flight)
        await kill_task
        await llm.aclose()
        return results

    results = asyncio.run(batch())
    assert len(results) == 20
    rows = conn.execute("SELECT call_id, outcome FROM llm_calls WHERE purpose = 'batch'").fetchall()
    assert len(rows) == 20 and len({r["call_id"] for r in rows}) == 20  # none twice
    answered = sum(1 for r in results if not isinstance(r, LLMFailure))
    assert answered == sum(1 for r in rows if r["outcome"] == "ok")
    assert answered >= 15
    assert server.restarts > restarts_before and server.alive()


def test_a_slot_per_request_in_flight_decoded_together(conn: sqlite3.Connection) -> None:
    settings = LLMSettings(max_output_tokens=96, timeout=120, max_in_flight=3)
    server = shared_embedded(settings)
    root = server.ensure_running().removesuffix("/v1")
    props = httpx.get(f"{root}/props", timeout=10).json()
    assert props["total_slots"] == 3
    assert props["default_generation_settings"]["n_ctx"] == server.context_size
    busy_at_once = 0

    async def batch() -> list[object]:
        nonlocal busy_at_once
        llm = LLM(settings, conn, use_cache=False)
        prompts = [f"Write a long story about cache line {i}." for i in range(3)]

        async def ask(prompt: str) -> str:
            message = [{"role": "user", "content": prompt}]
            return (await llm.chat(message, purpose="slots", max_tokens=96)).content

        async def watch() -> None:
            nonlocal busy_at_once
            async with httpx.AsyncClient(timeout=10) as client:
                while busy_at_once < 3:
                    slots = (await client.get(f"{root}/slots")).json()
                    busy_at_once = max(busy_at_once, sum(s["is_processing"] for s in slots))
                    await asyncio.sleep(0.05)

        watcher = asyncio.create_task(watch())
        results = await run_bounded(prompts, ask, settings.max_in_flight)
        watcher.cancel()
        await llm.aclose()
        return results

    results = asyncio.run(batch())
    assert all(isinstance(r, str) and r for r in results)
    assert busy_at_once >= 2  # continuous batching: more than one request decoded at a time


def test_a_repeated_prefix_is_reported_as_cached(conn: sqlite3.Connection) -> None:
    context = " ".join(f"Paper {i} pages the KV cache into blocks of 16 tokens." for i in range(60))

    async def follow_ups() -> None:
        async with LLM(SETTINGS, conn, use_cache=False) as llm:
            for question in ("Which paper is first?", "What size are the blocks?"):
                message = [{"role": "user", "content": f"{context}\n\nQUESTION: {question}"}]
                await llm.chat(message, purpose="prefix", max_tokens=8)

    asyncio.run(follow_ups())
    rows = conn.execute(
        "SELECT prompt_tokens, cached_tokens FROM llm_calls WHERE purpose = 'prefix' ORDER BY id"
    ).fetchall()
    (first, first_cached), (second, second_cached) = rows
    assert first > 600 and first_cached < first // 2  # at most the chat template's opening
    assert first - 20 <= second_cached < second  # the shared context is not evaluated again


def test_a_missing_server_binary_is_one_line_saying_how_to_build_it(
    workspace: Path, tmp_path: Path
) -> None:
    env = {"FRONTIER_LLM__EMBEDDED_SERVER": str(tmp_path / "llama-server")}
    result = run_cli("-w", str(workspace), "llm", "ask", "Hello?", env=env)
    assert result.code == 1
    assert len(result.err.strip().splitlines()) == 1
    assert "make" in result.err and "llama-server" in result.err


def test_cli_llm_status_ask_usage_and_cache(workspace: Path) -> None:
    status = run_cli("-w", str(workspace), "llm", "status", "--json")
    assert status.code == 0 and status.json()["answers"] is True
    assert status.json()["backend"] == "embedded"
    ask = run_cli("-w", str(workspace), "llm", "ask", "What does a KV cache store?")
    assert ask.code == 0 and "TOKEN SUMMARY" in ask.out and "prompt tokens" in ask.out
    again = run_cli("-w", str(workspace), "llm", "ask", "What does a KV cache store?")
    assert "from cache" in again.out
    fresh = run_cli("-w", str(workspace), "--no-cache", "llm", "ask", "What does a KV cache store?")
    assert "from cache" not in fresh.out
    usage = run_cli("-w", str(workspace), "usage", "--json").json()
    ask_row = next(r for r in usage["by_purpose"] if r["purpose"] == "ask")
    assert ask_row["calls"] == 3 and ask_row["cache_hits"] == 1
    cleared = run_cli("-w", str(workspace), "cache", "clear")
    assert "Removed 1" in cleared.out


def _children_running(pattern: str) -> list[int]:
    out = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout
    return [int(pid) for pid in out.split()]


def test_no_orphan_server_when_frontier_is_killed(workspace: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "frontier",
            "-w",
            str(workspace),
            "--no-cache",
            "llm",
            "ask",
            "Write a long essay about GPU memory.",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pattern = SERVER_PROCESS
    deadline = time.monotonic() + 60
    servers: list[int] = []
    while time.monotonic() < deadline and not servers:
        servers = [p for p in _children_running(pattern) if _parent(p) == proc.pid]
        time.sleep(0.1)
    assert servers, "the embedded server never started"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(_exists(p) for p in servers):
        time.sleep(0.1)
    assert not any(_exists(p) for p in servers)


def _parent(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[1])
    except (OSError, IndexError, ValueError):
        return -1


def _exists(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_generation_that_timed_out_is_not_sent_again(conn: sqlite3.Connection) -> None:
    """llama-server goes on writing a reply its client stopped waiting for: sent again, the
    request would wait behind it, and a command take many times its timeout."""
    settings = LLMSettings(max_output_tokens=2000, timeout=1.0, max_retries=3)
    story = [{"role": "user", "content": "Write a very long story about a cache, in detail."}]

    async def call() -> None:
        async with LLM(settings, conn) as llm:
            await llm.chat(story, purpose="story", max_tokens=2000)

    try:
        with pytest.raises(LLMFailure) as failed:
            asyncio.run(call())
    finally:
        shared_embedded(settings).stop()  # it would go on writing the story for the next test
    assert failed.value.kind == "timeout"
    row = conn.execute("SELECT outcome, attempts FROM llm_calls WHERE purpose = 'story'").fetchone()
    assert tuple(row) == ("timeout", 1)
