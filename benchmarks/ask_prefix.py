"""Follow-up questions over one bundle on the embedded server, one run: the prompt tokens the
server actually evaluated (from its timing log) against the bundle plus the questions (counted
with the server's tokenizer). Target: evaluated <= 1.5 x (bundle + questions).

    python benchmarks/ask_prefix.py [--workspace DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import sqlite3
import tempfile
from pathlib import Path

import httpx
from retrieval import QUESTIONS, build_workspace

from frontier.llm import embedded as embedded_module
from frontier.llm.client import LLM
from frontier.llm.embedded import EmbeddedServer
from frontier.synthesize.ask import answer_over, budget_for, build_bundle
from frontier.synthesize.retrieve import Retriever

_EVALUATED = re.compile(r"prompt eval time\s*=\s*([\d.]+) ms /\s*(\d+) tokens")
FOLLOW_UPS = 4


def count_tokens(server: EmbeddedServer, text: str) -> int:
    response = httpx.post(f"{server.base_url[:-3]}/extras/tokenize", json={"input": text})
    response.raise_for_status()
    return len(response.json()["tokens"])


async def ask_all(
    conn: sqlite3.Connection, settings: object, field: str, questions: list[str]
) -> tuple[int, list[int]]:
    llm = LLM(settings, conn, use_cache=False)  # type: ignore[arg-type]
    try:
        bundle = build_bundle(conn, Retriever(conn), questions[0], budget_for(llm) // 2)
        prompts = []
        for question in questions:
            answer = await answer_over(llm, field, question, bundle)
            assert answer.result is not None
            prompts.append(answer.result.usage.prompt_tokens)
        return bundle.tokens(), prompts
    finally:
        await llm.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, help="reuse (or create) this KB")
    args = parser.parse_args()
    items = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    questions = [item["question"] for item in items[: 1 + FOLLOW_UPS]]
    with tempfile.TemporaryDirectory() as tmp:
        ws = build_workspace(args.workspace or Path(tmp) / "kb")
        log = Path(tmp) / "server.log"
        server = EmbeddedServer(log_path=log)
        embedded_module._shared[("", 8192, 0)] = server  # the LLM path uses this very server
        try:
            with contextlib.closing(ws.connect()) as conn:
                _, prompts = asyncio.run(
                    ask_all(conn, ws.settings.llm, ws.settings.field.name, questions)
                )
            evaluated = [int(m.group(2)) for m in _EVALUATED.finditer(log.read_text())]
            question_tokens = sum(count_tokens(server, q) for q in questions[1:])
        finally:
            server.stop()
    reference = prompts[0] + question_tokens
    print(
        f"{len(questions)} questions over one bundle ({prompts[0]:,} prompt tokens for the first)"
    )
    print(f"  prompt tokens sent           : {sum(prompts):,}  per call {prompts}")
    print(f"  prompt tokens evaluated      : {sum(evaluated):,}  per call {evaluated}")
    print(f"  bundle + questions           : {reference:,}")
    ratio = sum(evaluated) / max(reference, 1)
    print(
        f"  evaluated / (bundle + questions): {ratio:.2f} (target <= 1.5: "
        f"{'ok' if ratio <= 1.5 else 'MISSED'}); evaluated / sent: "
        f"{sum(evaluated) / max(sum(prompts), 1):.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
