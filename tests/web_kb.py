"""A demo-like KB for the web tests: the packaged sample and a real PDF ingested by the real CLI,
curation written through the store's own functions (no model run), built once per session."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from fake_openai import FakeOpenAI, Reply
from helpers import corpus, run_cli

from frontier.llm.ledger import record_call
from frontier.llm.records import Usage
from frontier.model import Relation, SourceRecord
from frontier.store.curation import (
    save_claims,
    save_entry,
    save_relations,
    save_triage,
    sync_config,
)
from frontier.store.db import connect, now, transaction
from frontier.store.papers import save_paper
from frontier.store.runs import finish_run, start_run
from frontier.workspace import open_workspace

HOSTILE_TITLE = "<script>alert(1)</script>"
HOSTILE_ID = "doi:10.5555/xss.1"
HOSTILE_QUOTE = 'latency drops to <img src=x onerror="alert(2)"> 12 ms on <b>A100</b>'
VLLM = "2309.06180"
VLLM_QUOTE = "vLLM improves the throughput of popular LLMs by 2-4× with the same level"
SPEC = "2211.17192"
PROPOSED_GAP = "prefix caching across tenants"
_TOPIC_WORDS = [
    ("models", ("quant", "bit", "fp8", "sparse", "compression")),
    ("hardware", ("flash", "offloading", "bandwidth")),
    ("serving", ("serving", "speculative", "decod", "cache", "attention", "orca", "lora")),
]
_BUILT: dict[str, Path] = {}
# the model's part of a map (overview, problems, takeaways, a theme name); [42] and [99] are
# made up and must be removed, and the name is no phrase of the theme's papers
MAP_REPLY = json.dumps(
    {
        "overview": "Serving systems page the KV cache [1] & speculate tokens [2][42].",
        "problems": [
            {"text": "Nobody measures paging overhead on long prompts [1].", "papers": [1, 99]}
        ],
        "takeaways": [
            {"text": "Adopt paged KV cache memory before anything else [1].", "papers": [1]}
        ],
        "names": [{"theme": 1, "name": "Paged KV cache serving"}],
    }
)


def topic_for(title: str) -> str:
    """A deterministic topic from title words; '' (out of field) when none fits."""
    lowered = title.casefold()
    if "quantum" in lowered:
        return ""
    for slug, words in _TOPIC_WORDS:
        if any(word in lowered for word in words):
            return slug
    return "inference-economics"


def _claim(metric: str, value: float, text: str, unit: str, page: int | None, quote: str, **kw):
    fields = {
        "direction": "higher",
        "baseline": "",
        "model_name": "",
        "hardware": "",
        "condition": "",
        "verified": True,
        "verify_note": "",
        "model": "smollm2-135m",
        "prompt_version": "claim@1",
        "headline": False,
        "setup_page": None,
        "setup_fields": "",
        "section": "",
    }
    fields.update(kw)
    return SimpleNamespace(
        metric=metric, value=value, value_text=text, unit=unit, page=page, quote=quote, **fields
    )


CLAIMS = {
    VLLM: [
        _claim(
            "throughput",
            4.0,
            "2-4",
            "×",
            1,
            VLLM_QUOTE,
            baseline="FasterTransformer and Orca",
            model_name="OPT-13B",
            hardware="A100",
            headline=True,
        ),
        _claim(
            "time to first token",
            35.0,
            "35",
            "ms",
            9,
            "reduces time to first token to 35 ms",
            verified=False,
            verify_note="quote not found on page 9",
        ),
    ],
    SPEC: [
        _claim(
            "speedup",
            3.0,
            "2X-3X",
            "×",
            None,
            "2X-3X acceleration",
            model_name="T5-XXL",
            hardware="TPU-v4",
        )
    ],
    "2308.04623": [_claim("speedup", 3.16, "3.16", "x", None, "3.16x", model_name="GPT-2-L")],
    "2304.04487": [_claim("speed-up", 2.2, "2.2", "×", None, "2.2x", hardware="V100")],
    "2306.00978": [_claim("speedup", 3.2, "3.2", "×", None, "3.2x", hardware="RTX 4090")],
    "2403.02310": [
        _claim("serving capacity", 5.6, "5.6", "×", None, "5.6x", hardware="A100", baseline="vLLM")
    ],
    HOSTILE_ID: [
        _claim(
            "latency <i>p50</i>",
            12.0,
            "12",
            "ms",
            None,
            HOSTILE_QUOTE,
            direction="lower",
            hardware="<b>A100</b>",
        )
    ],
}
RELATIONS = {
    VLLM: [
        ("serving", Relation("entity", "vllm", "names vLLM", "title")),
        (
            "serving",
            Relation(
                "gap",
                "1",
                "",
                VLLM_QUOTE,
                page=1,
                how="Its paging cuts the memory long contexts waste.",
            ),
        ),
        ("serving", Relation("entity", "a100", "names A100", "page 1")),
    ],
    SPEC: [
        ("serving", Relation("entity", "speculative-decoding", "names Speculative decoding")),
        ("serving", Relation("conflict", "1", "reports 2-3x where others see less")),
    ],
    "2308.04623": [
        ("serving", Relation("entity", "speculative-decoding", "names speculative decoding"))
    ],
    HOSTILE_ID: [("hardware", Relation("entity", "a100", '<a href="javascript:x">A100</a>'))],
}


def _seed_papers(conn) -> None:
    record = SourceRecord(
        source="bibtex",
        source_ref="test",
        doi="10.5555/xss.1",
        title=HOSTILE_TITLE,
        authors=["Mallory <b>Evil</b>", "{Brace} & Co"],
        published=dt.date(2024, 3, 1),
        abstract="Abstract with <em>markup</em> & {braces} and 100% of $money_#.",
    )
    save_paper(conn, record, None, None)


def _seed_curation(conn, run_id: int) -> None:
    papers = conn.execute("SELECT id, title, published FROM papers ORDER BY id").fetchall()
    for paper in papers:
        topic = topic_for(paper["title"])
        if paper["id"] == HOSTILE_ID:
            topic = "hardware"
        reason = f"close to the {topic or 'no'} scope"
        row = {
            "topic": topic,
            "stage": "embedding",
            "reason": reason,
            "scope_line": "",
            "score": 0.5,
        }
        save_triage(conn, paper["id"], [row], "h", run_id)
        save_claims(conn, paper["id"], CLAIMS.get(paper["id"], []), "h", run_id)
        by_topic: dict[str, list] = {}
        for rel_topic, rel in RELATIONS.get(paper["id"], []):
            by_topic.setdefault(rel_topic, []).append(rel)
        save_relations(conn, paper["id"], by_topic, "h")
        if topic:
            text = f"What {paper['title']} does for {topic}, in one sentence."
            save_entry(conn, paper["id"], topic, text, "smollm2-135m", "entry@1", run_id, "h")


def _seed_items(conn) -> None:
    with transaction(conn):
        conn.execute(
            "INSERT INTO gaps (topic, text, status, source, created_at) "
            "VALUES ('serving', ?, 'proposed', 'map', ?)",
            (PROPOSED_GAP, now()),
        )
        conn.execute(
            "INSERT INTO conflicts (id, topic, text, status, source, created_at) VALUES "
            "(1, 'serving', 'reported speculative decoding speed-ups <u>disagree</u>', 'open', "
            "'manual', ?)",
            (now(),),
        )


def _seed_usage(conn) -> None:
    for n, tokens in enumerate((1200, 800, 2400), start=1):
        run_id = start_run(conn, "curate")
        for k in range(n):
            record_call(
                conn,
                call_id=f"call-{run_id}-{k}",
                run_id=run_id,
                command="curate",
                purpose="claims" if k % 2 else "entry",
                endpoint="embedded",
                model="smollm2-135m",
                prompt_version="claim@1",
                usage=Usage(prompt_tokens=tokens, completion_tokens=tokens // 4),
                cache_hit=k == 1,
                attempts=1,
                latency_ms=100,
                outcome="ok",
            )
        finish_run(conn, run_id, "ok", {})


def build(root: Path) -> Path:
    """Ingest the sample and the vLLM PDF for real, then write curation through the store."""
    assert run_cli("demo", str(root), "--no-curate").code == 0
    added = run_cli("-w", str(root), "add", str(corpus("pdfs", "vllm-pagedattention.pdf")))
    assert added.code == 0, added.out + added.err
    ws = open_workspace(root)
    with contextlib.closing(connect(ws.db_path)) as conn:
        _seed_papers(conn)
        sync_config(conn, ws.settings)
        run_id = start_run(conn, "curate")
        _seed_curation(conn, run_id)
        finish_run(conn, run_id, "ok", {})
        _seed_items(conn)
        _seed_usage(conn)
    return root


def built_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The KB, built on first use in the session; treat it as read-only (copy it to change it)."""
    if "kb" not in _BUILT:
        _BUILT["kb"] = build(tmp_path_factory.mktemp("web-kb") / "kb")
    return _BUILT["kb"]


def mapped_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the KB with a research map of the serving topic, written by the real
    `frontier map` against a scripted remote model; built once per session, read-only."""
    if "mapped" not in _BUILT:
        root = copy_kb(built_kb(tmp_path_factory), tmp_path_factory.mktemp("mapped-kb") / "kb")
        with FakeOpenAI([Reply(content=MAP_REPLY)]) as server:
            made = run_cli("-w", str(root), "map", "--topic", "serving", env=model_env(server))
        assert made.code == 0, made.out + made.err
        _BUILT["mapped"] = root
    return _BUILT["mapped"]


def model_env(server: FakeOpenAI) -> dict[str, str]:
    """Settings that send every model call to the scripted server, as to a remote vLLM."""
    return {"FRONTIER_LLM__BASE_URL": server.url, "FRONTIER_LLM__BACKEND": "vllm"}


def copy_kb(template: Path, target: Path) -> Path:
    shutil.copytree(template, target)
    return target


def free_port() -> int:
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serving(root: Path, *flags: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """`frontier serve` for real in a subprocess on a free port; yields its base URL."""
    port = free_port()
    env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    command = [sys.executable, "-m", "frontier", "-w", str(root), "serve", "--port", str(port)]
    proc = subprocess.Popen(
        [*command, *flags], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(proc, port)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_until_up(proc: subprocess.Popen[str], port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"serve exited {proc.returncode}: {proc.stderr.read()}")  # type: ignore[union-attr]
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        time.sleep(0.1)
    raise AssertionError("serve did not start listening within 30 s")
