"""The discovery window: an old arXiv paper is out of the topic unless it strongly matches one
of the topic's open gaps, and then it is taken as a boundary case that says so."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

from rich.console import Console

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
from frontier.workspace import init_workspace

ABSTRACT = (
    "We present a serving system for large language models that schedules requests with "
    "continuous batching and manages the KV cache in fixed-size pages, so that memory is "
    "not wasted and more requests fit in a batch on each GPU."
)


def triage(tmp_path: Path, gaps: list[str], published: dt.date) -> dict[str, object]:
    ws = init_workspace(tmp_path / "kb")
    settings = ws.settings.model_copy(deep=True)
    settings.topic("serving").gaps = gaps
    conn = ws.connect()
    record = SourceRecord(
        source="arxiv",
        source_ref="test",
        arxiv_id="2001.00001",
        title="Paged KV caches for continuous batching",
        abstract=ABSTRACT,
        published=published,
    )
    save_paper(conn, record, None, None)
    store.sync_config(conn, settings)
    run_id = start_run(conn, "test")
    embedder = load_embedder()
    papers = store.papers_to_curate(conn)
    lines = scope_lines(settings)
    ctx = CurationContext(
        conn,
        settings,
        LLM(settings.llm, conn),
        run_id,
        ensure_paper_vectors(conn, embedder, list(papers)),
        lines,
        embed_texts(embedder, [x.text for x in lines]),
        lambda t: embed_texts(embedder, t),
        Console(quiet=True),
    )
    asyncio.run(triage_step(ctx, papers))
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
