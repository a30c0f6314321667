"""LLM throughput against the embedded server, measured in one run:

1. completion tokens/s of frontier's pool at max_in_flight 1, 2 and 4, next to the same server
   driven by a bare loop of raw HTTP requests at the same concurrency (the baseline);
2. prefix reuse: 5 questions over one ~3k-token bundle; the prompt tokens the server reports as
   evaluated (from its timing log) against 5 x the bundle.

    python benchmarks/llm_throughput.py [--requests N] [--tokens N]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sqlite3
import tempfile
import time
from pathlib import Path

import httpx

from frontier.config import LLMSettings
from frontier.llm import embedded as embedded_module
from frontier.llm.client import LLM
from frontier.llm.embedded import EmbeddedServer
from frontier.llm.pool import run_bounded
from frontier.store.db import connect

_EVALUATED = re.compile(r"prompt eval time\s*=\s*([\d.]+) ms /\s*(\d+) tokens")
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
    llm = LLM(settings.model_copy(update={"max_in_flight": concurrency}), conn, use_cache=False)

    async def one(i: int) -> int:
        result = await llm.chat(question(i), purpose="bench", max_tokens=tokens)
        return result.usage.completion_tokens

    results = await run_bounded(list(range(n)), one, concurrency, "bench")
    await llm.aclose()
    return sum(r for r in results if isinstance(r, int))


def throughput_table(server: EmbeddedServer, conn: sqlite3.Connection, n: int, tokens: int) -> None:
    settings = LLMSettings(max_output_tokens=tokens, timeout=600)
    url = server.ensure_running()
    asyncio.run(raw_loop(url, server.model_name, 2, 2, 8))  # warm-up
    print(f"Completion throughput, {n} requests x {tokens} tokens, embedded {server.model_name}")
    print(f"{'max_in_flight':>13} {'raw HTTP tok/s':>15} {'frontier tok/s':>15} {'ratio':>7}")
    for concurrency in (1, 2, 4):
        start = time.perf_counter()
        raw_tokens = asyncio.run(raw_loop(url, server.model_name, n, concurrency, tokens))
        raw_rate = raw_tokens / (time.perf_counter() - start)
        start = time.perf_counter()
        our_tokens = asyncio.run(ours(settings, conn, n, concurrency, tokens))
        our_rate = our_tokens / (time.perf_counter() - start)
        print(f"{concurrency:>13} {raw_rate:>15.1f} {our_rate:>15.1f} {our_rate / raw_rate:>7.2f}")
    print("(target: frontier >= 0.9 x raw at every concurrency)")


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


def prefix_table(log: Path, conn: sqlite3.Connection) -> None:
    bundle = bundle_text()
    settings = LLMSettings(max_output_tokens=16, timeout=600)
    llm_holder: dict[str, LLM] = {}
    asks = [
        "Which paper is first?",
        "Name one technique.",
        "What is paged?",
        "What overlaps?",
        "Summarise in five words.",
    ]
    before = log.read_text(errors="replace") if log.exists() else ""

    async def run() -> list[int]:
        llm = llm_holder.setdefault("llm", LLM(settings, conn, use_cache=False))
        prompts = []
        for ask in asks:
            messages = [
                {"role": "system", "content": "Answer from the bundle only."},
                {"role": "user", "content": f"BUNDLE\n{bundle}\n\nQUESTION: {ask}"},
            ]
            result = await llm.chat(messages, purpose="prefix-bench", max_tokens=16)
            prompts.append(result.usage.prompt_tokens)
        await llm.aclose()
        return prompts

    prompt_tokens = asyncio.run(run())
    evaluated = [
        int(m.group(2)) for m in _EVALUATED.finditer(log.read_text(errors="replace")[len(before) :])
    ]
    print(f"\nPrefix reuse: 5 questions over one bundle of ~{prompt_tokens[0]:,} prompt tokens")
    print(f"  prompt tokens sent          : {sum(prompt_tokens):,} (5 x bundle)")
    print(f"  prompt tokens evaluated     : {sum(evaluated):,}  per call {evaluated}")
    if evaluated:
        print(f"  evaluated / sent            : {sum(evaluated) / sum(prompt_tokens):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=48)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        server = EmbeddedServer(log_path=log)
        embedded_module._shared[("", 8192, 0)] = server  # the LLM path uses this very server
        conn = connect(Path(tmp) / "bench.db")
        try:
            throughput_table(server, conn, args.requests, args.tokens)
            prefix_table(log, conn)
        finally:
            server.stop()
            conn.close()


if __name__ == "__main__":
    main()
