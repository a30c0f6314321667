"""A model that does not answer a triage question in time costs the paper nothing: the nearest
scope line files it for now, and the next run asks the model again."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

from fake_openai import FakeOpenAI, Reply
from rich.console import Console

from frontier.config import LLMSettings
from frontier.curate.context import CurationContext
from frontier.curate.scope import scope_lines
from frontier.curate.steps.triage import triage_step
from frontier.curate.vectors import embed_texts, ensure_paper_vectors
from frontier.llm.client import LLM
from frontier.llm.embeddings import load_embedder
from frontier.model import SourceRecord
from frontier.store import curation as store
from frontier.store.papers import save_paper
from frontier.store.runs import start_run
from frontier.workspace import init_workspace, open_workspace

ABSTRACT = (
    "We present a serving system for large language models that schedules requests with "
    "continuous batching and manages the KV cache in fixed-size pages."
)


def triage_once(root: Path, url: str) -> tuple[sqlite3.Row, list[tuple[str, str, str]]]:
    """One triage step against the model at `url`, every paper left to the model."""
    ws = open_workspace(root) if (root / "frontier.toml").exists() else init_workspace(root)
    settings = ws.settings.model_copy(deep=True)
    settings.curate.triage_accept = 1.01  # no similarity settles it: the model is asked
    settings.llm = LLMSettings.model_validate(
        {"base_url": url, "backend": "vllm", "timeout": 1.0, "max_retries": 0}
    )
    conn = ws.connect()
    if not conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0]:
        record = SourceRecord(
            source="arxiv",
            source_ref="test",
            arxiv_id="2001.00001",
            title="Paged KV caches for continuous batching",
            abstract=ABSTRACT,
        )
        save_paper(conn, record, None, None)
    store.sync_config(conn, settings)
    embedder = load_embedder()
    papers = store.papers_to_curate(conn)
    lines = scope_lines(settings)
    ctx = CurationContext(
        conn,
        settings,
        LLM(settings.llm, conn),
        start_run(conn, "test"),
        ensure_paper_vectors(conn, embedder, list(papers)),
        lines,
        embed_texts(embedder, [x.text for x in lines]),
        lambda t: embed_texts(embedder, t),
        Console(quiet=True),
    )
    asyncio.run(triage_step(ctx, papers))
    row = conn.execute("SELECT topic, stage, reason FROM triage").fetchone()
    return row, ctx.failures


def test_a_timed_out_triage_files_by_the_nearest_line_and_asks_again(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    with FakeOpenAI([Reply(content="{}", delay=3.0)]) as slow:
        row, failures = triage_once(root, slow.url)
        assert len(slow.requests) == 1
    assert failures == []
    assert row["topic"] == "serving" and row["stage"] == "embedding"
    assert "did not answer in time" in row["reason"]

    verdict = {"destination": "serving", "scope_line": 1, "reason": "It batches requests."}
    with FakeOpenAI([Reply(content=json.dumps(verdict))]) as good:
        row, failures = triage_once(root, good.url)
        assert good.requests, "the next run asks the model again"
    assert failures == [] and row["stage"] == "llm" and row["topic"] == "serving"
