"""A paper's date is what a record or its own first page says, else unknown: never the day it
was ingested. Unknown dates are shown as such and kept out of the map's chronology."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from pathlib import Path

import pytest
from helpers import copy_of, db, ingest_pdfs, run_cli

from frontier.render import render_vault
from frontier.store.db import transaction
from frontier.store.runs import start_run
from frontier.store.synthesis import select_papers
from frontier.synthesize.bundle import Bundle, Source
from frontier.synthesize.papers import SUMMARY_TOKENS, paper_bundle
from frontier.synthesize.proposals import map_path, save_map
from frontier.synthesize.researchmap import (
    UNKNOWN_DATE,
    ResearchMap,
    chronology,
    with_published_dates,
)
from frontier.workspace import open_workspace

# the USENIX camera-ready of Sarathi-Serve carries no arXiv stamp and prints no date of its own
UNSTAMPED = "sarathi-serve.pdf"
UNSTAMPED_TITLE = "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve"
STAMPED = "vllm-pagedattention.pdf"


@pytest.fixture(scope="module")
def dated_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingest_pdfs(tmp_path_factory.mktemp("dates") / "kb", [UNSTAMPED, STAMPED])


def _paper(workspace: Path, name: str) -> dict:
    conn = db(workspace)
    try:
        row = conn.execute("SELECT * FROM papers WHERE source_ref LIKE ?", (f"%{name}",)).fetchone()
        return dict(row)
    finally:
        conn.close()


def _map_page(workspace: Path) -> str:
    """Write a map of every paper as `frontier map` does, without the model's prose, render
    the vault and return the map's page."""
    ws = open_workspace(workspace)
    with contextlib.closing(ws.connect()) as conn:
        papers = select_papers(conn, None, None, 10)
        rmap = ResearchMap(with_published_dates(conn, paper_bundle(conn, papers, SUMMARY_TOKENS)))
        rmap.chronology = chronology(rmap.bundle)
        path = map_path(dt.date.today().isoformat(), None)
        save_map(conn, rmap, start_run(conn, "map"), None, None, path)
        render_vault(conn, ws.settings, ws.kb_dir)
    return (ws.kb_dir / path).read_text()


def test_a_pdf_without_stamp_or_date_has_an_unknown_date(dated_kb: Path) -> None:
    unstamped = _paper(dated_kb, UNSTAMPED)
    assert unstamped["title"] == UNSTAMPED_TITLE
    assert unstamped["arxiv_id"] is None
    assert unstamped["published"] is None and unstamped["updated"] is None
    assert _paper(dated_kb, STAMPED)["published"] == "2023-09-12"


def test_map_chronology_and_pages_say_date_unknown(dated_kb: Path, tmp_path: Path) -> None:
    workspace = copy_of(dated_kb, tmp_path)
    unstamped = _paper(workspace, UNSTAMPED)["id"]
    with contextlib.closing(db(workspace)) as conn, transaction(conn):
        conn.execute(
            "INSERT INTO triage (paper_id, topic, stage, reason, scope_line, input_hash, at) "
            "SELECT id, 'serving', 'llm', 'serving', '', 'h', '2025-06-01' FROM papers"
        )
    page = _map_page(workspace)
    ingest_year = dt.date.today().year
    chrono = page.split("## Chronology")[1].split("## Open problems")[0]
    periods = [line.split("**")[1] for line in chrono.splitlines() if line.startswith("- **")]
    assert periods == ["2023 H2", UNKNOWN_DATE]
    assert UNSTAMPED_TITLE in chrono.split(f"**{UNKNOWN_DATE}**")[1]
    assert str(ingest_year) not in chrono
    bundle = page.split("## Bundle")[1]
    assert f"{unstamped}, {UNKNOWN_DATE}" in bundle.replace("\\", "")
    assert "2023-09-12" in bundle and str(ingest_year) not in bundle
    topic = (workspace / "kb" / "topics" / "serving.md").read_text()
    headings = [line for line in topic.splitlines() if line.startswith("### ")]
    assert headings[0].startswith("### 2023-09-12 · ")  # dated papers first, newest first
    assert headings[-1].startswith(f"### {UNKNOWN_DATE} · ") and "Sarathi-Serve" in headings[-1]
    assert str(ingest_year) not in "\n".join(headings)


def test_a_later_record_supplies_the_unknown_date(dated_kb: Path, tmp_path: Path) -> None:
    workspace = copy_of(dated_kb, tmp_path)
    records = tmp_path / "records.jsonl"
    records.write_text(
        json.dumps({"title": UNSTAMPED_TITLE, "date": "2024-03-04", "authors": "Amey Agrawal"})
        + "\n"
    )
    result = run_cli("-w", str(workspace), "ingest", str(records))
    assert result.code == 0, result.out + result.err
    assert _paper(workspace, UNSTAMPED)["published"] == "2024-03-04"
    # a record that arrives later does not move a date once one is known
    records.write_text(json.dumps({"title": UNSTAMPED_TITLE, "date": "2025-01-01"}) + "\n")
    assert run_cli("-w", str(workspace), "ingest", str(records)).code == 0
    assert _paper(workspace, UNSTAMPED)["published"] == "2024-03-04"
    chrono = _map_page(workspace).split("## Chronology")[1].split("## Open problems")[0]
    assert "**2024 H1**" in chrono and UNKNOWN_DATE not in chrono


def test_chronology_places_only_known_dates() -> None:
    sources = [
        Source(1, "a", "A", "2024-03-04", (), ""),
        Source(2, "b", "B", "", (), ""),
        Source(3, "c", "C", "2023-11-30", (), ""),
        Source(4, "d", "D", "2024", (), ""),
    ]
    assert chronology(Bundle(sources)) == [
        ("2023 H2", [3]),
        ("2024", [4]),
        ("2024 H1", [1]),
        (UNKNOWN_DATE, [2]),
    ]
