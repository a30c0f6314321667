"""Streamed chat on the single LLM path: text arrives in pieces, the ledger and the cache get the
call like any other, a 500 before the stream is retried, reasoning is never shown as answer."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

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
