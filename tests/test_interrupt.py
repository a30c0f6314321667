"""Ctrl-C in the middle of curation: a clean exit (130, one line), the run marked interrupted,
finished LLM calls kept in the ledger once each, and no model server left behind."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from helpers import MARK, REPO, marked_processes, run_cli

pytestmark = pytest.mark.slow


def _gone(mark: str) -> bool:
    """Every process the command started has ended (waits a little for the kernel)."""
    deadline = time.monotonic() + 30
    while marked_processes(mark) and time.monotonic() < deadline:
        time.sleep(0.25)
    return not marked_processes(mark)


def test_ctrl_c_during_curation(workspace: Path) -> None:
    sample = REPO / "src" / "frontier" / "data" / "sample_papers.jsonl"
    assert run_cli("-w", str(workspace), "ingest", str(sample)).code == 0
    mark = uuid.uuid4().hex
    proc = subprocess.Popen(
        [sys.executable, "-m", "frontier", "-w", str(workspace), "curate"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, MARK: mark},
    )
    db = workspace / ".frontier" / "frontier.db"
    deadline = time.monotonic() + 300
    calls = 0
    while calls < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.25)
        with sqlite3.connect(db) as conn:
            calls = conn.execute("SELECT COUNT(*) FROM llm_calls").fetchone()[0]
    assert calls >= 2, "curation never reached the model"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=300)  # a hang guard: the model shares two cores with the rest
    assert proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    with sqlite3.connect(db) as conn:
        status = conn.execute("SELECT status FROM runs WHERE command = 'curate'").fetchone()[0]
        ids = [r[0] for r in conn.execute("SELECT call_id FROM llm_calls")]
    assert status == "interrupted"
    assert len(ids) >= 2 and len(ids) == len(set(ids))
    assert _gone(mark), "a process started by the command outlived it"
