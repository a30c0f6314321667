"""A small workspace run through ingest -> curate -> map -> render against the stand-in model,
and a snapshot of everything the KB holds, for comparing a faulted run with a clean one."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path

from helpers import corpus, kb_snapshot, run_cli

# one short PDF: its chunks are most of what curate embeds, and every kill and rerun pays for them
PDFS = ("self-attention-no-n2-memory.pdf",)
RECORDS = 8
_RUN_NUMBER = re.compile(r"\brun \d+\b")
_MAP_HEADER = re.compile(r"^_\d+ papers.*_$", re.MULTILINE)


def make_workspace(root: Path) -> Path:
    """A fresh workspace plus the sources it ingests (a short PDF, eight records)."""
    assert run_cli("init", str(root)).code == 0
    sample = resources.files("frontier.data").joinpath("sample_papers.jsonl").read_text()
    (root / "records.jsonl").write_text("\n".join(sample.splitlines()[:RECORDS]) + "\n")
    return root


def steps(root: Path) -> list[list[str]]:
    sources = [str(corpus("pdfs", name)) for name in PDFS] + [str(root / "records.jsonl")]
    return [["ingest", *sources], ["curate"], ["map"], ["render"]]


def model_env(url: str) -> dict[str, str]:
    return {
        "FRONTIER_LLM__BASE_URL": url,
        "FRONTIER_LLM__BACKEND": "vllm",
        "FRONTIER_LLM__TIMEOUT": "5",
        "FRONTIER_LLM__MAX_RETRIES": "2",
    }


def start(root: Path, args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "frontier", "-w", str(root), *args],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def run_killed_after(root: Path, args: list[str], env: dict[str, str], delay: float) -> bool:
    """Start the command and SIGKILL its process group after `delay` s; True if it was killed."""
    proc = start(root, args, env)
    try:
        proc.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return True


def run_to_end(root: Path, args: list[str], env: dict[str, str]) -> float:
    started = time.monotonic()
    result = run_cli("-w", str(root), *args, env=env, timeout=900)
    assert result.code in (0, 1), result.err  # 1: a part the model could not write, recorded
    return time.monotonic() - started


def integrity(root: Path) -> str:
    conn = sqlite3.connect(root / ".frontier" / "frontier.db")
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def snapshot(root: Path) -> dict[str, object]:
    """Papers, chunks, curation, synthesis and vault files, without ids, times and run numbers."""
    data: dict[str, object] = dict(kb_snapshot(root))
    conn = sqlite3.connect(root / ".frontier" / "frontier.db")
    queries = {
        "claims": "SELECT paper_id, metric, value_text, unit, page, quote, verified FROM claims",
        "triage": "SELECT paper_id, topic, stage, reason, scope_line FROM triage",
        "entries": "SELECT paper_id, topic, text, model, prompt_version FROM entries",
        "relations": "SELECT paper_id, topic, kind, target, detail FROM relations",
        "gaps": "SELECT topic, text, status, source FROM gaps",
        "conflicts": "SELECT topic, text, status, source FROM conflicts",
        "maps": "SELECT path, topic, bundle, model, prompt_version FROM maps",
        "chunk_vectors": "SELECT count(*) FROM chunk_embeddings",
    }
    try:
        for name, sql in queries.items():
            data[name] = sorted(map(tuple, conn.execute(sql).fetchall()))
        data["map_content"] = sorted(
            json.dumps({k: v for k, v in json.loads(row[0]).items() if k != "usage"})
            for row in conn.execute("SELECT content FROM maps")
        )
    finally:
        conn.close()
    kb = root / "kb"
    data["vault"] = {
        str(path.relative_to(kb)): _MAP_HEADER.sub("", _RUN_NUMBER.sub("run N", path.read_text()))
        for path in sorted(kb.rglob("*.md"))
    }
    return data
