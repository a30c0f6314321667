"""Follow-up questions over one bundle on the embedded server (llama-server), one run: the prompt
tokens the server evaluated (the prompt tokens less the cached ones it reports, from frontier's
ledger) against the bundle plus the questions (counted with the server's tokenizer).
Target: evaluated <= 1.2 x (bundle + questions).

Two ways of asking them: one after another, as `frontier ask Q1 Q2 ...` and the ask page send
them, and together (the first alone, then the rest at once, up to max_in_flight): there each
slot that takes a question evaluates the bundle once.

    python benchmarks/ask_prefix.py [--workspace DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
from retrieval import QUESTIONS, build_workspace
from servers import use

from frontier.config import LLMSettings
from frontier.llm.client import LLM
from frontier.llm.embedded import EmbeddedServer
from frontier.llm.pool import warm_then_bounded
from frontier.synthesize.ask import Answer, answer_over, budget_for, build_bundle
from frontier.synthesize.bundle import Bundle
from frontier.synthesize.retrieve import Retriever

FOLLOW_UPS = 4


def count_tokens(server: EmbeddedServer, text: str) -> int:
    response = httpx.post(f"{server.base_url[:-3]}/tokenize", json={"content": text})
    response.raise_for_status()
    return len(response.json()["tokens"])


async def in_sequence(ask: Callable[[str], Awaitable[Answer]], questions: list[str]) -> None:
    for question in questions:
        await ask(question)


async def together(
    ask: Callable[[str], Awaitable[Answer]], questions: list[str], limit: int
) -> None:
    await warm_then_bounded(questions, ask, limit)


def run_once(
    conn: sqlite3.Connection, settings: LLMSettings, field: str, questions: list[str], way: str
) -> tuple[list[tuple[int, int]], float]:
    """(prompt tokens, cached tokens) of each call, and the seconds the questions took."""
    first_id = conn.execute("SELECT COALESCE(MAX(id), 0) FROM llm_calls").fetchone()[0]

    async def run() -> None:
        async with LLM(settings, conn, use_cache=False) as llm:
            bundle: Bundle = build_bundle(conn, Retriever(conn), questions[0], budget_for(llm) // 2)

            async def ask(question: str) -> Answer:
                return await answer_over(llm, field, question, bundle)

            if way == "in sequence":
                await in_sequence(ask, questions)
            else:
                await together(ask, questions, settings.max_in_flight)

    started = time.perf_counter()
    asyncio.run(run())
    elapsed = time.perf_counter() - started
    rows = conn.execute(
        "SELECT prompt_tokens, cached_tokens FROM llm_calls WHERE id > ? ORDER BY id", (first_id,)
    ).fetchall()
    return [(r[0], r[1]) for r in rows], elapsed


def report(way: str, calls: list[tuple[int, int]], elapsed: float, question_tokens: int) -> None:
    sent = [p for p, _ in calls]
    evaluated = [p - c for p, c in calls]
    reference = sent[0] + question_tokens
    ratio = sum(evaluated) / max(reference, 1)
    print(f"\n{way}: {len(calls)} questions over one bundle, {elapsed:.0f} s")
    print(f"  prompt tokens sent           : {sum(sent):,}  per call {sent}")
    print(f"  prompt tokens evaluated      : {sum(evaluated):,}  per call {evaluated}")
    print(f"  bundle + questions           : {reference:,}")
    verdict = "ok" if ratio <= 1.2 else "over"
    print(f"  evaluated / (bundle + questions): {ratio:.2f} (target <= 1.2: {verdict})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, help="reuse (or create) this KB")
    args = parser.parse_args()
    items = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    questions = [item["question"] for item in items[: 1 + FOLLOW_UPS]]
    with tempfile.TemporaryDirectory() as tmp:
        ws = build_workspace(args.workspace or Path(tmp) / "kb")
        settings = ws.settings.llm
        for way in ("in sequence", "together"):
            server = EmbeddedServer(slots=settings.max_in_flight)  # a fresh server: no cache
            use(server, settings)
            try:
                with contextlib.closing(ws.connect()) as conn:
                    calls, elapsed = run_once(
                        conn, settings, ws.settings.field.name, questions, way
                    )
                question_tokens = sum(count_tokens(server, q) for q in questions[1:])
            finally:
                server.stop()
            report(way, calls, elapsed, question_tokens)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
