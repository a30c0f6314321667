"""LLM throughput of the embedded model, measured in one run:

1. completion tokens/s of frontier's pool at max_in_flight 1, 2 and 4 on llama.cpp's
   llama-server (what frontier runs) and on llama-cpp-python's server (what it ran before: the
   baseline, when installed), each next to the same server driven by a bare loop of raw HTTP
   requests at the same concurrency;
2. prefix reuse on llama-server: 5 questions over one ~3k-token bundle, one by one (as
   `frontier ask` sends them) and together (the first alone, then the rest at once); the prompt tokens the server evaluated (prompt tokens less the
   cached ones it reports, from frontier's ledger) against 5 x the bundle.

    python benchmarks/llm_throughput.py [--requests N] [--tokens N] [--prefix-only]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sqlite3
import tempfile
import time
from pathlib import Path

import httpx
from servers import NEW, servers, use

from frontier.config import LLMSettings
from frontier.llm.client import LLM
from frontier.llm.embedded import EmbeddedServer
from frontier.llm.pool import run_bounded, warm_then_bounded
from frontier.store.db import connect

TOPICS = [
    "paged KV caches",
    "speculative decoding",
    "weight quantization",
    "continuous batching",
    "prefill/decode disaggregation",
    "FlashAttention",
    "LoRA serving",
    "MoE offloading",
]


def question(i: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"Explain {TOPICS[i % len(TOPICS)]} in detail (#{i})."}]


async def raw_loop(url: str, model: str, n: int, concurrency: int, tokens: int) -> int:
    """The baseline: plain HTTP posts, no client library, no cache, no ledger."""
    gate = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(timeout=600) as client:

        async def one(i: int) -> int:
            async with gate:
                body = {
                    "model": model,
                    "messages": question(i),
                    "max_tokens": tokens,
                    "temperature": 0.0,
                }
                response = await client.post(f"{url}/chat/completions", json=body)
                return int(response.json()["usage"]["completion_tokens"])

        return sum(await asyncio.gather(*(one(i) for i in range(n))))


async def ours(
    settings: LLMSettings, conn: sqlite3.Connection, n: int, concurrency: int, tokens: int
) -> int:
    llm = LLM(settings, conn, use_cache=False)

    async def one(i: int) -> int:
        result = await llm.chat(question(i), purpose="bench", max_tokens=tokens)
        return result.usage.completion_tokens

    results = await run_bounded(list(range(n)), one, concurrency, "bench")
    await llm.aclose()
    return sum(r for r in results if isinstance(r, int))


def rate(tokens: int, started: float) -> float:
    return tokens / (time.perf_counter() - started)


def throughput_rows(
    name: str, server: EmbeddedServer, conn: sqlite3.Connection, n: int, tokens: int
) -> dict[int, float]:
    """One server's rows of the table; returns frontier's tok/s by max_in_flight."""
    url = server.ensure_running()
    asyncio.run(raw_loop(url, server.model_name, 2, 2, 8))  # warm-up
    ours_by_concurrency: dict[int, float] = {}
    for concurrency in (1, 2, 4):
        settings = LLMSettings(max_output_tokens=tokens, timeout=600, max_in_flight=concurrency)
        use(server, settings)
        started = time.perf_counter()
        raw_rate = rate(
            asyncio.run(raw_loop(url, server.model_name, n, concurrency, tokens)), started
        )
        started = time.perf_counter()
        our_rate = rate(asyncio.run(ours(settings, conn, n, concurrency, tokens)), started)
        ours_by_concurrency[concurrency] = our_rate
        print(
            f"{name:<17} {concurrency:>9} {raw_rate:>15.1f} {our_rate:>15.1f} "
            f"{our_rate / raw_rate:>8.2f} {our_rate / ours_by_concurrency[1]:>11.2f}"
        )
    return ours_by_concurrency


def throughput_table(
    named: list[tuple[str, EmbeddedServer]], conn: sqlite3.Connection, n: int, tokens: int
) -> None:
    print(
        f"Completion throughput, {n} requests x {tokens} tokens, embedded {named[-1][1].model_name}"
    )
    print(
        f"{'server':<17} {'in flight':>9} {'raw HTTP tok/s':>15} {'frontier tok/s':>15} {'/ raw':>8} {'/ 1 flight':>11}"
    )
    rates = {}
    for name, server in named:
        try:
            rates[name] = throughput_rows(name, server, conn, n, tokens)
        finally:
            server.stop()
    print("(targets: frontier >= 0.9 x raw HTTP; llama-server at 4 in flight >= 1.6 x at 1)")
    if len(rates) == 2:
        old, new = (rates[name] for name, _ in named)
        ratios = ", ".join(f"{c}: {new[c] / old[c]:.2f}x" for c in (1, 2, 4))
        print(f"llama-server / llama-cpp-python, frontier tok/s by in flight: {ratios}")


def bundle_text(words: int = 2300) -> str:
    base = (
        "Paper {i}: the system batches requests continuously, pages the KV cache into fixed "
        "blocks, and overlaps prefill with decode to raise goodput under latency targets. "
    )
    text, i = [], 0
    while sum(len(t.split()) for t in text) < words:
        text.append(base.format(i=i))
        i += 1
    return "".join(text)


ASKS = [
    "Which paper is first?",
    "Name one technique.",
    "What is paged?",
    "What overlaps?",
    "Summarise in five words.",
]


def prefix_rows(server: EmbeddedServer, conn: sqlite3.Connection, way: str) -> None:
    """5 questions over one bundle on a fresh server: one after another (as `frontier ask` sends
    them), or together (the first alone, then the rest at once)."""
    bundle = bundle_text()
    settings = LLMSettings(max_output_tokens=16, timeout=600)
    use(server, settings)
    purpose = f"prefix-bench {way}"

    async def run() -> None:
        async with LLM(settings, conn, use_cache=False) as llm:

            async def ask(question: str) -> None:
                messages = [
                    {"role": "system", "content": "Answer from the bundle only."},
                    {"role": "user", "content": f"BUNDLE\n{bundle}\n\nQUESTION: {question}"},
                ]
                await llm.chat(messages, purpose=purpose, max_tokens=16)

            if way == "one by one":
                for question in ASKS:
                    await ask(question)
            else:
                await warm_then_bounded(ASKS, ask, settings.max_in_flight)

    try:
        asyncio.run(run())
    finally:
        server.stop()
    rows = conn.execute(
        "SELECT prompt_tokens, cached_tokens FROM llm_calls WHERE purpose = ? ORDER BY id",
        (purpose,),
    ).fetchall()
    sent = sum(r[0] for r in rows)
    evaluated = [r[0] - r[1] for r in rows]
    print(
        f"{way:<22} {sent:>8,} {sum(evaluated):>10,} {sum(evaluated) / max(sent, 1):>8.2f}  "
        f"per call {evaluated}"
    )


def prefix_table(conn: sqlite3.Connection) -> None:
    print(f"\nPrefix reuse on {NEW}: 5 questions over one ~3k-token bundle (sent = 5 x bundle)")
    print(f"{'asked':<22} {'sent':>8} {'evaluated':>10} {'/ sent':>8}")
    for way in ("one by one", "together"):
        prefix_rows(EmbeddedServer(), conn, way)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=12)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--prefix-only", action="store_true")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        contextlib.closing(connect(Path(tmp) / "bench.db")) as conn,
    ):
        if not args.prefix_only:
            throughput_table(servers(), conn, args.requests, args.tokens)
        prefix_table(conn)


if __name__ == "__main__":
    main()
