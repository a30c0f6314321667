"""The LLM path against a misbehaving remote server: retries, Retry-After, timeouts, bad bodies,
invalid and truncated JSON, routing between endpoints. Everything is recorded, nothing crashes."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, Reply
from pydantic import BaseModel, Field

from frontier.config import LLMSettings
from frontier.llm.client import LLM
from frontier.llm.records import LLMFailure
from frontier.store.db import connect


class Verdict(BaseModel):
    topic: str = Field(max_length=40)
    confidence: float = Field(ge=0, le=1)


GOOD = '{"topic": "serving", "confidence": 0.8}'


@pytest.fixture
def conn(tmp_path: Path) -> sqlite3.Connection:
    return connect(tmp_path / "kb.db")


def settings(*urls: str, **overrides: object) -> LLMSettings:
    values: dict[str, object] = {
        "base_url": urls[0],
        "endpoints": list(urls[1:]),
        "backend": "vllm",
        "timeout": 5.0,
        "max_retries": 3,
    }
    values.update(overrides)
    return LLMSettings.model_validate(values)


def ledger(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM llm_calls ORDER BY id").fetchall()


def structured(llm: LLM, purpose: str = "triage") -> Verdict:
    async def go() -> Verdict:
        try:
            return (
                await llm.structured(Verdict, [{"role": "user", "content": "x"}], purpose=purpose)
            ).value
        finally:
            await llm.aclose()

    return asyncio.run(go())


def test_500_then_success_is_one_ledger_row(conn: sqlite3.Connection) -> None:
    with FakeOpenAI([Reply(status=500, body=b'{"error": "boom"}'), Reply(content=GOOD)]) as server:
        value = structured(LLM(settings(server.url), conn))
    assert value == Verdict(topic="serving", confidence=0.8)
    (row,) = ledger(conn)
    assert row["outcome"] == "ok" and row["attempts"] == 2 and row["prompt_tokens"] == 11
    sent = server.requests[-1]
    assert sent["response_format"]["type"] == "json_schema"  # vLLM dialect
    assert (
        sent["response_format"]["json_schema"]["schema"]["properties"]["topic"]["maxLength"] == 40
    )


def test_429_honours_retry_after(conn: sqlite3.Connection) -> None:
    replies = [Reply(status=429, body=b"{}", headers={"Retry-After": "1"}), Reply(content=GOOD)]
    with FakeOpenAI(replies) as server:
        started = time.monotonic()
        structured(LLM(settings(server.url), conn))
        waited = time.monotonic() - started
    assert waited >= 1.0
    assert ledger(conn)[0]["attempts"] == 2


def test_timeout_fails_cleanly_and_is_recorded(conn: sqlite3.Connection) -> None:
    with (
        FakeOpenAI([Reply(content=GOOD, delay=3.0)]) as server,
        pytest.raises(LLMFailure) as caught,
    ):
        structured(LLM(settings(server.url, timeout=0.5, max_retries=1), conn))
    assert caught.value.kind == "timeout"
    (row,) = ledger(conn)
    assert row["outcome"] == "timeout" and row["attempts"] == 2


def test_invalid_json_gets_one_repair_then_succeeds(conn: sqlite3.Connection) -> None:
    with FakeOpenAI(
        [Reply(content='{"topic": "serving", "confidence": 7}'), Reply(content=GOOD)]
    ) as server:
        value = structured(LLM(settings(server.url), conn))
    assert value.topic == "serving"
    rows = ledger(conn)
    assert [(r["purpose"], r["outcome"]) for r in rows] == [
        ("triage", "invalid"),
        ("triage:repair", "ok"),
    ]
    repair_prompt = server.requests[1]["messages"][-1]["content"]
    assert "confidence" in repair_prompt and "validation error" in repair_prompt


def test_truncated_json_twice_is_a_typed_failure(conn: sqlite3.Connection) -> None:
    with (
        FakeOpenAI([Reply(content='{"topic": "serv')]) as server,
        pytest.raises(LLMFailure) as caught,
    ):
        structured(LLM(settings(server.url), conn))
    assert caught.value.kind == "invalid" and caught.value.raw.startswith('{"topic"')
    assert [r["outcome"] for r in ledger(conn)] == ["invalid", "invalid"]
    assert len(server.requests) == 2
    assert (
        conn.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0] == 0
    )  # bad output never cached


def test_a_reply_cut_off_at_max_tokens_is_not_asked_again(conn: sqlite3.Connection) -> None:
    cut = Reply(content='{"topic": "serving serving serving', finish_reason="length")
    with FakeOpenAI([cut, Reply(content=GOOD)]) as server, pytest.raises(LLMFailure) as caught:
        structured(LLM(settings(server.url), conn))
    assert caught.value.kind == "invalid" and caught.value.details["cut_off"]
    assert len(server.requests) == 1
    assert [(r["purpose"], r["outcome"]) for r in ledger(conn)] == [("triage", "invalid")]


def test_unreadable_body_and_client_errors(conn: sqlite3.Connection) -> None:
    with (
        FakeOpenAI([Reply(body=b'{"choices": [ {"mess')]) as server,
        pytest.raises(LLMFailure) as caught,
    ):
        structured(LLM(settings(server.url, max_retries=1), conn))
    assert caught.value.kind == "error"
    rejecting = FakeOpenAI([Reply(status=400, body=b'{"error": {"message": "bad schema"}}')])
    with rejecting as server, pytest.raises(LLMFailure) as caught:
        structured(LLM(settings(server.url), conn))
    assert len(rejecting.requests) == 1  # a 4xx is not retried
    assert "400" in caught.value.message


def test_requests_go_to_the_endpoint_with_fewest_in_flight(conn: sqlite3.Connection) -> None:
    slow = [Reply(content=GOOD, delay=0.3)]
    with FakeOpenAI(slow) as first, FakeOpenAI(slow) as second:
        llm = LLM(settings(first.url, second.url, model="fake-model"), conn, use_cache=False)

        async def batch() -> None:
            messages = [[{"role": "user", "content": f"q{i}"}] for i in range(8)]
            await asyncio.gather(*(llm.structured(Verdict, m, purpose="t") for m in messages))
            await llm.aclose()

        asyncio.run(batch())
    assert len(first.requests) == len(second.requests) == 4


def test_failing_endpoint_is_set_aside(conn: sqlite3.Connection) -> None:
    with (
        FakeOpenAI([Reply(status=503, body=b"{}")]) as broken,
        FakeOpenAI([Reply(content=GOOD)]) as healthy,
    ):
        llm = LLM(settings(broken.url, healthy.url, max_retries=4), conn, use_cache=False)

        async def calls() -> None:
            for i in range(6):
                await llm.structured(Verdict, [{"role": "user", "content": f"q{i}"}], purpose="t")
            await llm.aclose()

        asyncio.run(calls())
    assert len(broken.requests) <= 3 and len(healthy.requests) == 6
    assert all(r["outcome"] == "ok" for r in ledger(conn))


def test_reasoning_is_kept_apart(conn: sqlite3.Connection) -> None:
    with FakeOpenAI(
        [Reply(content="<think>weigh both</think>The answer.", reasoning=None)]
    ) as server:
        llm = LLM(settings(server.url, backend="sglang"), conn)

        async def ask() -> object:
            try:
                return await llm.chat([{"role": "user", "content": "q"}], purpose="ask", think=True)
            finally:
                await llm.aclose()

        result = asyncio.run(ask())
    assert result.content == "The answer." and result.reasoning == "weigh both"
    assert server.requests[0]["chat_template_kwargs"] == {"enable_thinking": True}
