"""The disk holding the KB fills up mid-ingest: one clear error, the KB intact and usable."""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import corpus, kb_snapshot, run_cli
from pipeline import integrity

CAP_MB = 6


@contextlib.contextmanager
def capped_folder(base: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A folder on a small tmpfs when the machine lets us mount one; otherwise a normal folder
    whose processes may not write files beyond the cap (RLIMIT_FSIZE, applied by `limited`)."""
    folder = base / "capped"
    folder.mkdir()
    mounted = False
    if os.geteuid() == 0 and shutil.which("mount"):
        result = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={CAP_MB}m", "tmpfs", str(folder)],
            capture_output=True,
            check=False,
        )
        mounted = result.returncode == 0
    try:
        yield folder, ({} if mounted else {"FILE_SIZE_CAP": str(CAP_MB << 20)})
    finally:
        if mounted:
            subprocess.run(["umount", str(folder)], check=False)


def limited(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cap = env.get("FILE_SIZE_CAP")

    def apply_cap() -> None:
        if cap:
            resource.setrlimit(resource.RLIMIT_FSIZE, (int(cap), int(cap)))

    return subprocess.run(
        [sys.executable, "-m", "frontier", *args],
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        preexec_fn=apply_cap,
    )


@pytest.mark.slow
def test_a_full_disk_stops_ingest_with_one_clear_line_and_keeps_the_kb(tmp_path: Path) -> None:
    with capped_folder(tmp_path) as (folder, env):
        ws = folder / "kb"
        assert run_cli("init", str(ws)).code == 0
        first = limited(["-w", str(ws), "ingest", str(corpus("pdfs", "orca.pdf"))], env)
        assert first.returncode == 0, first.stderr
        before = kb_snapshot(ws)
        full = limited(["-w", str(ws), "ingest", str(corpus("pdfs"))], env)
        assert full.returncode != 0
        assert "Traceback" not in full.stderr
        errors = [line for line in full.stderr.splitlines() if "error" in line.lower()]
        assert len(errors) == 1 and "no space left" in errors[0], full.stderr[-2000:]
        assert integrity(ws) == "ok"
        after = kb_snapshot(ws)
        orca = [p for p in before["papers"] if "Orca" in p["title"]]
        assert orca and all(p in after["papers"] for p in orca)
        kept = {row["paper_id"] for row in after["chunks"]}
        assert {row["paper_id"] for row in before["chunks"]} <= kept
        hits = run_cli("-w", str(ws), "search", "iteration-level scheduling", "--json")
        assert hits.code == 0 and hits.json()[0]["title"].startswith("Orca")
        assert run_cli("-w", str(ws), "status").code == 0
