"""Test helpers: the shared corpus, real workspaces and the real CLI in a subprocess."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from frontier.process.children import holds_file_under

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
# `pgrep -f` pattern of the embedded model server: a command line that starts with its binary
SERVER_PROCESS = "^[^ ]*llama-server "


def corpus(*parts: str) -> Path:
    """A path inside ../shared/corpus; fails the test loudly when the corpus is missing."""
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.fail(
            f"test corpus not found at {path}: the tests need ../shared/corpus next to the repository"
        )
    return path


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self) -> object:
        return json.loads(self.out)


FRONTIER = [sys.executable, "-m", "frontier"]


def cli_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a test runs frontier in: wide and plain output, plus `env`."""
    return {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **(env or {})}


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 600
) -> CliResult:
    """Run `python -m frontier ARGS` for real and capture what a user would see."""
    proc = subprocess.run(
        [*FRONTIER, *args],
        cwd=cwd,
        env=cli_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


# embedded servers that run at the same time share the cores: one thread each, so that none of
# them waits at every step of its model for a thread of its own that another has pushed aside
ONE_THREAD_EACH = {
    "FRONTIER_LLM__EMBEDDED_THREADS": "1",
    "FRONTIER_LLM__EMBEDDED_BATCH_THREADS": "1",
}


def run_clis_at_once(
    *commands: list[str], env: dict[str, str] | None = None, timeout: float = 600
) -> list[CliResult]:
    """Run several `python -m frontier ARGS` at the same time, each in a process of its own, and
    capture what each shows, as `run_cli` does for one; the results come in the order given."""
    with contextlib.ExitStack() as stack:
        running = []
        for args in commands:
            out, err = (stack.enter_context(tempfile.TemporaryFile("w+")) for _ in range(2))
            proc = subprocess.Popen(
                [*FRONTIER, *args], env=cli_env(env), stdout=out, stderr=err, text=True
            )
            stack.callback(proc.kill)  # a no-op once it has ended
            running.append((proc, out, err))
        results = []
        for proc, out, err in running:
            code = proc.wait(timeout=timeout)
            out.seek(0)
            err.seek(0)
            results.append(CliResult(code, out.read(), err.read()))
        return results


def db(workspace: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(workspace / ".frontier" / "frontier.db")
    conn.row_factory = sqlite3.Row
    return conn


def kb_snapshot(workspace: Path) -> dict[str, list[tuple]]:
    """The KB's content, independent of row ids and timestamps, for equality checks."""
    conn = db(workspace)
    try:
        return {
            "papers": conn.execute(
                "SELECT id, title, arxiv_id, status, n_pages, content_hash FROM papers ORDER BY id"
            ).fetchall(),
            "pages": conn.execute(
                "SELECT paper_id, page, length(text) FROM pages ORDER BY 1, 2"
            ).fetchall(),
            "chunks": conn.execute(
                "SELECT paper_id, ord, page, section, text FROM chunks ORDER BY paper_id, ord"
            ).fetchall(),
            "sections": conn.execute(
                "SELECT paper_id, ord, title FROM sections ORDER BY 1, 2"
            ).fetchall(),
        }
    finally:
        conn.close()


def ingest_pdfs(root: Path, names: list[str]) -> Path:
    """A new workspace at `root` with these shared PDFs ingested."""
    assert run_cli("init", str(root)).code == 0
    folder = root.parent / "in"
    folder.mkdir()
    for name in names:
        shutil.copy(corpus("pdfs", name), folder / name)
    assert run_cli("-w", str(root), "ingest", str(folder)).code == 0
    return root


def copy_of(workspace: Path, tmp_path: Path) -> Path:
    """A copy of a module's workspace that one test may change."""
    copy = tmp_path / "kb"
    shutil.copytree(workspace, copy)
    return copy


# a marker in a command's environment finds every process it starts, however they are named
MARK = "FRONTIER_ORPHAN_CHECK"


def process_stat(pid: int) -> tuple[str, int] | None:
    """A process's state letter and start time, or None when it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return fields[0], int(fields[19])


def marked_processes(mark: str) -> dict[int, int]:
    """Live processes whose environment carries `mark`, with their start times."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if f"{MARK}={mark}".encode() in (entry / "environ").read_bytes().split(b"\0"):
                stat = process_stat(int(entry.name))
                if stat and stat[0] != "Z":
                    found[int(entry.name)] = stat[1]
    return found


def kill_marked(mark: str, under: Path | None = None) -> None:
    """SIGKILL every live process whose environment carries `mark`, or that holds a file under
    the directory `under`."""
    for pid in [*marked_processes(mark), *(processes_under(under) if under else [])]:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def processes_under(directory: Path) -> list[int]:
    """Live processes other than this one that work in or hold a file under `directory`."""
    return [
        int(entry.name)
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit()
        and int(entry.name) != os.getpid()
        and holds_file_under(entry.name, str(directory))
    ]


@contextlib.contextmanager
def started(
    args: list[str], env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`python -m frontier ARGS` with a fresh marker in its environment, leading a process group
    of its own (as a command typed at a terminal does); whatever it started is killed
    afterwards, even when the test fails."""
    mark = uuid.uuid4().hex
    proc = subprocess.Popen(
        [sys.executable, "-m", "frontier", *args],
        env={**os.environ, "NO_COLOR": "1", MARK: mark, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        yield proc, mark
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        kill_marked(mark)
