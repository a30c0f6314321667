"""Triage as curation runs it. The discovery window: an old arXiv paper is out of the topic
unless it strongly matches one of the topic's open gaps, and then it is taken as a boundary case
that says so. A model that does not answer in time: the nearest scope line decides for now."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sqlite3
from pathlib import Path

from fake_openai import FakeOpenAI, Reply
from rich.console import Console

from frontier.config import LLMSettings, Settings
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
    "continuous batching and manages the KV cache in fixed-size pages, so that memory is "
    "not wasted and more requests fit in a batch on each GPU."
)


def run_triage(conn: sqlite3.Connection, settings: Settings) -> list[tuple[str, str, str]]:
    """The triage step over the papers to curate, as curation runs it; returns its failures."""
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
    return ctx.failures


def paper(published: dt.date | None = None) -> SourceRecord:
    return SourceRecord(
        source="arxiv",
        source_ref="test",
        arxiv_id="2001.00001",
        title="Paged KV caches for continuous batching",
        abstract=ABSTRACT,
        published=published,
    )


def triage(tmp_path: Path, gaps: list[str], published: dt.date) -> dict[str, object]:
    ws = init_workspace(tmp_path / "kb")
    settings = ws.settings.model_copy(deep=True)
    settings.topic("serving").gaps = gaps
    conn = ws.connect()
    save_paper(conn, paper(published), None, None)
    run_triage(conn, settings)
    row = conn.execute("SELECT topic, stage, reason, boundary FROM triage").fetchone()
    assert conn.execute("SELECT COUNT(*) FROM llm_calls").fetchone()[0] == 0  # a clear case
    return dict(row)


def test_recent_paper_is_taken(tmp_path: Path) -> None:
    row = triage(tmp_path, [], dt.date.today() - dt.timedelta(days=3))
    assert row["topic"] == "serving" and row["stage"] == "embedding" and not row["boundary"]
    assert "in scope of serving" in str(row["reason"])


def test_old_paper_is_left_out_of_the_window(tmp_path: Path) -> None:
    row = triage(tmp_path, [], dt.date(2020, 1, 1))
    assert row["topic"] == "" and "30-day discovery window of serving" in str(row["reason"])


def test_old_paper_matching_an_open_gap_is_a_boundary_case(tmp_path: Path) -> None:
    gap = "KV cache memory wasted in serving systems that batch requests continuously"
    row = triage(tmp_path, [gap], dt.date(2020, 1, 1))
    assert row["topic"] == "serving" and row["boundary"] == 1
    assert "boundary case" in str(row["reason"]) and gap in str(row["reason"])


def triage_by(root: Path, url: str) -> tuple[sqlite3.Row, list[tuple[str, str, str]]]:
    """Triage against the model at `url`, every paper left to the model to decide."""
    ws = open_workspace(root) if (root / "frontier.toml").exists() else init_workspace(root)
    settings = ws.settings.model_copy(deep=True)
    settings.curate.triage_accept = 1.01  # no similarity settles it: the model is asked
    settings.llm = LLMSettings.model_validate(
        {"base_url": url, "backend": "vllm", "timeout": 1.0, "max_retries": 0}
    )
    conn = ws.connect()
    if not conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0]:
        save_paper(conn, paper(), None, None)
    failures = run_triage(conn, settings)
    return conn.execute("SELECT topic, stage, reason FROM triage").fetchone(), failures


def test_a_timed_out_triage_files_by_the_nearest_line_and_asks_again(tmp_path: Path) -> None:
    """A model that does not answer in time costs the paper nothing: the nearest scope line
    files it for now, and the next run asks the model again."""
    root = tmp_path / "kb"
    with FakeOpenAI([Reply(content="{}", delay=3.0)]) as slow:
        row, failures = triage_by(root, slow.url)
        assert len(slow.requests) == 1
    assert failures == []
    assert row["topic"] == "serving" and row["stage"] == "embedding"
    assert "did not answer in time" in row["reason"]

    verdict = {"destination": "serving", "scope_line": 1, "reason": "It batches requests."}
    with FakeOpenAI([Reply(content=json.dumps(verdict))]) as good:
        row, failures = triage_by(root, good.url)
        assert good.requests, "the next run asks the model again"
    assert failures == [] and row["stage"] == "llm" and row["topic"] == "serving"
