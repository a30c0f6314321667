"""Streamed chat on the single LLM path: text arrives in pieces, the ledger and the cache get the
call like any other, a 500 before the stream is retried, reasoning is never shown as answer."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, Reply

from frontier.config import LLMSettings
from frontier.llm.client import LLM
from frontier.llm.records import ChatResult
from frontier.llm.streaming import answer_so_far
from frontier.store.db import connect

ANSWER = "Paged attention keeps the KV cache in fixed-size blocks, so little memory is wasted."


@pytest.fixture
def conn(tmp_path: Path) -> sqlite3.Connection:
    return connect(tmp_path / "kb.db")


def streamed(llm: LLM) -> tuple[list[str], ChatResult]:
    async def go() -> tuple[list[str], ChatResult]:
        pieces: list[str] = []
        result = None
        try:
            async for item in llm.chat_stream([{"role": "user", "content": "q"}], purpose="ask"):
                if isinstance(item, str):
                    pieces.append(item)
                else:
                    result = item
        finally:
            await llm.aclose()
        assert result is not None
        return pieces, result

    return asyncio.run(go())


def llm_for(server: FakeOpenAI, conn: sqlite3.Connection) -> LLM:
    settings = LLMSettings.model_validate(
        {"base_url": server.url, "backend": "vllm", "timeout": 5.0, "max_retries": 2}
    )
    return LLM(settings, conn, command="ask")


def test_text_arrives_in_pieces_and_is_recorded_then_cached(conn: sqlite3.Connection) -> None:
    with FakeOpenAI([Reply(content=ANSWER)]) as server:
        pieces, result = streamed(llm_for(server, conn))
        assert len(pieces) > 3 and "".join(pieces).strip() == ANSWER == result.content
        assert server.requests[0]["stream"] is True
        assert result.usage.prompt_tokens == 11 and result.usage.completion_tokens == len(pieces)
        again, cached = streamed(llm_for(server, conn))
        assert again == [ANSWER] and cached.cached and len(server.requests) == 1
    rows = conn.execute("SELECT purpose, cache_hit, completion_tokens, outcome FROM llm_calls")
    assert [tuple(r) for r in rows] == [("ask", 0, len(pieces), "ok"), ("ask", 1, 0, "ok")]


def test_a_failed_start_is_retried(conn: sqlite3.Connection) -> None:
    with FakeOpenAI([Reply(status=500, content="oops"), Reply(content=ANSWER)]) as server:
        _, result = streamed(llm_for(server, conn))
        assert result.content == ANSWER and len(server.requests) == 2
    (attempts,) = conn.execute("SELECT attempts FROM llm_calls").fetchone()
    assert attempts == 2


def test_reasoning_in_think_tags_is_held_back() -> None:
    assert answer_so_far("<think>step one") == ""
    assert answer_so_far("<think>a</think>The answer") == "The answer"
    assert answer_so_far("Before <think>x</think>after <think>y") == "Before after "


# 21 words: the test server streams them in 7 pieces and so counts 7 completion tokens, as it
# does for the same answer unstreamed; the usage, and with it the whole ledger row, can match
ONE_ANSWER = (
    "Paged attention keeps the KV cache in fixed-size blocks, so a server wastes little memory "
    "and can batch many more requests."
)
ONE_REQUEST: dict[str, Any] = {
    "purpose": "ask",
    "prompt_version": "ask-parity",
    "max_tokens": 64,
    "temperature": 0.2,
}
LEDGER_COLUMNS = (
    "command, purpose, endpoint, model, prompt_version, prompt_tokens, completion_tokens, "
    "reasoning_tokens, cached_tokens, cache_hit, attempts, outcome, error"
)


def answered(llm: LLM, stream: bool) -> ChatResult:
    """One request of ONE_REQUEST's, through `chat_stream` or through `chat`."""

    async def go() -> ChatResult:
        messages = [{"role": "user", "content": "How does paged attention save memory?"}]
        try:
            if not stream:
                return await llm.chat(messages, **ONE_REQUEST)
            items = [item async for item in llm.chat_stream(messages, **ONE_REQUEST)]
        finally:
            await llm.aclose()
        result = items[-1]
        assert isinstance(result, ChatResult)
        return result

    return asyncio.run(go())


def test_streamed_or_not_a_request_has_one_cache_key_and_one_ledger_row(tmp_path: Path) -> None:
    """The same request, streamed first then not, and not first then streamed: the second is
    a hit on the first's cache entry either way, and both orders leave the same ledger rows
    and the same cache entry."""
    kept: dict[str, tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]] = {}
    with FakeOpenAI([Reply(content=ONE_ANSWER)]) as server:
        for order in ((True, False), (False, True)):
            conn = connect(tmp_path / f"stream-{order[0]}.db")
            asked = len(server.requests)
            first, second = (answered(llm_for(server, conn), stream) for stream in order)
            assert len(server.requests) == asked + 1, "the second call was not a cache hit"
            assert first.content == second.content == ONE_ANSWER
            assert not first.cached and second.cached
            ledger = conn.execute(f"SELECT {LEDGER_COLUMNS} FROM llm_calls ORDER BY id")
            cache = conn.execute("SELECT key, model, prompt_version, response FROM llm_cache")
            kept["streamed first" if order[0] else "unstreamed first"] = (
                [tuple(row) for row in ledger],
                [tuple(row) for row in cache],
            )
    ledger, cache = kept["streamed first"]
    assert kept["unstreamed first"] == (ledger, cache)
    answered_row = (
        "ask",
        "ask",
        server.url,
        "fake-model",
        "ask-parity",
        11,
        7,
        0,
        0,
        0,
        1,
        "ok",
        "",
    )
    hit_row = ("ask", "ask", server.url, "fake-model", "ask-parity", 0, 0, 0, 0, 1, 0, "ok", "")
    assert ledger == [answered_row, hit_row]
    assert len(cache) == 1
