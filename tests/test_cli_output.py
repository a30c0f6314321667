"""What the command line prints when stdout is not a terminal (a log, cron, CI): one line per
item with its full name, nothing wrapped, nothing printed twice, no Python reprs."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import corpus, run_cli

NARROW = {"COLUMNS": "80"}  # what a pipe gets when nothing says otherwise
OFFLINE = {
    "FRONTIER_ARXIV__API_URL": "http://127.0.0.1:9/api/query",
    "FRONTIER_ARXIV__NUM_RETRIES": "0",
    "FRONTIER_ARXIV__DELAY_SECONDS": "0",
}


def test_ingest_and_update_print_whole_lines_to_a_pipe(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    assert run_cli("init", str(root)).code == 0
    folder = tmp_path / "in"
    folder.mkdir()
    names = [
        "a-paper-whose-file-name-is-much-longer-than-any-terminal-column-would-allow-v1.pdf",
        "another-paper-with-an-equally-long-file-name-that-must-stay-on-one-line-too.pdf",
    ]
    sources = ["self-attention-no-n2-memory.pdf", "moe-offloading-fast-inference.pdf"]
    for name, source in zip(names, sources, strict=True):
        shutil.copy(corpus("pdfs", source), folder / name)

    ingested = run_cli("-w", str(root), "ingest", str(folder), env=NARROW)
    assert ingested.code == 0, ingested.out + ingested.err
    lines = ingested.out.splitlines()
    for name in names:
        assert sum(name in line for line in lines) == 1, ingested.out  # whole, on one line
    assert "Summary: 2 stored." in lines

    empty = tmp_path / "empty"  # nothing to curate: the model is not needed
    assert run_cli("init", str(empty)).code == 0
    update = run_cli("-w", str(empty), "update", env={**NARROW, **OFFLINE})
    assert update.code == 1, update.out + update.err
    lines = [line for line in update.out.splitlines() if line.strip()]
    assert len(lines) == len(set(lines)), update.out  # nothing printed twice
    assert sum("arXiv is unreachable" in line for line in lines) == 1
    assert any("llm calls" in line and line.startswith("Curation:") for line in lines)
    render = next(line for line in lines if line.startswith("render:"))
    assert "{" not in render and "written" in render and "unchanged" in render, render
    assert "Traceback" not in update.err
