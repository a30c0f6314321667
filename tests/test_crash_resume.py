"""SIGKILL in the middle of an ingest, then the same command again: intact KB, same content."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import corpus, kb_snapshot, run_cli


def papers_stored(root: Path) -> int:
    try:
        conn = sqlite3.connect(root / ".frontier" / "frontier.db", timeout=1)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM papers").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def kill_midway(root: Path, folder: Path, after_papers: int) -> None:
    """Start the ingest, wait until some papers are in, then SIGKILL the whole process group."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "frontier", "-w", str(root), "ingest", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    while (
        papers_stored(root) < after_papers and proc.poll() is None and time.monotonic() < deadline
    ):
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@pytest.mark.slow
def test_sigkill_then_rerun_equals_uninterrupted(tmp_path: Path) -> None:
    folder = corpus("pdfs")
    reference, crashed = tmp_path / "reference", tmp_path / "crashed"
    for root in (reference, crashed):
        assert run_cli("init", str(root)).code == 0
    assert run_cli("-w", str(reference), "ingest", str(folder)).code == 0

    kill_midway(crashed, folder, after_papers=12)
    interrupted = papers_stored(crashed)
    assert 0 < interrupted < 38, "the kill must land in the middle of the run"
    conn = sqlite3.connect(crashed / ".frontier" / "frontier.db")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()

    resumed = run_cli("-w", str(crashed), "ingest", str(folder), "--json")
    assert resumed.code == 0
    assert resumed.json()["counts"] == {"duplicate": interrupted, "stored": 38 - interrupted}
    conn = sqlite3.connect(crashed / ".frontier" / "frontier.db")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    assert kb_snapshot(crashed) == kb_snapshot(reference)

    runs = run_cli("-w", str(crashed), "status", "--json").json()["runs"]
    assert [r["status"] for r in runs] == ["ok", "interrupted"]  # the killed run is named as such
