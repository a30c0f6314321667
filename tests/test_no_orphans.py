"""No process of ours outlives frontier: SIGKILL `ingest` mid-extraction, `curate` mid-model-call
and `serve` mid-answer, then look through the process table for anything they started.

Every process a command starts inherits its environment, so a marker there finds them all,
whatever became of their parent (the embedded model server even runs in a session of its own).
"""

from __future__ import annotations

import contextlib
import http.client
import re
import shutil
import signal
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import REPO, corpus, marked_processes, process_stat, started
from typer.testing import CliRunner
from web_kb import free_port

from frontier.cli import app
from frontier.workspace import init_workspace

pytestmark = pytest.mark.slow

SAMPLE = REPO / "src" / "frontier" / "data" / "sample_papers.jsonl"
WAIT_S = 240  # generous: the embedded model shares two cores with whatever else runs


def _cmdline(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return ""


def _alive(pid: int, started: int) -> bool:
    stat = process_stat(pid)
    return stat is not None and stat[1] == started and stat[0] != "Z"


def _wait_for(what: str, ready: Callable[[], bool], proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not ready():
        if proc.poll() is not None:
            pytest.fail(f"the command ended (exit {proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.1)


def kill_and_check(proc: subprocess.Popen[bytes], mark: str) -> dict[int, str]:
    """SIGKILL the command; assert that everything it started dies too. Returns what it had
    started, by pid and command line."""
    children = {pid: t for pid, t in marked_processes(mark).items() if pid != proc.pid}
    names = {pid: _cmdline(pid) for pid in children}
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    deadline = time.monotonic() + 30
    while (
        left := {p for p, t in children.items() if _alive(p, t)}
    ) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, [names[p] for p in left]
    assert marked_processes(mark) == {}, [_cmdline(p) for p in marked_processes(mark)]
    return names


@pytest.fixture(scope="module")
def curated_later(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace holding the packaged sample, not curated yet."""
    root = init_workspace(tmp_path_factory.mktemp("orphans") / "kb").root
    assert CliRunner().invoke(app, ["-w", str(root), "ingest", str(SAMPLE)]).exit_code == 0
    return root


def _copy(root: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(root, tmp_path / "kb"))


def test_sigkill_ingest_mid_extraction_leaves_no_worker(tmp_path: Path) -> None:
    workspace = init_workspace(tmp_path / "kb").root
    folder = tmp_path / "pdfs"
    folder.mkdir()
    for pdf in sorted(corpus("pdfs").glob("*.pdf")):
        shutil.copy(pdf, folder / pdf.name)
    args = ["-w", str(workspace), "ingest", str(folder)]
    with started(args, {"FRONTIER_INGEST__WORKERS": "2"}) as (proc, mark):

        def pool_running() -> bool:
            lines = [_cmdline(p) for p in marked_processes(mark)]
            workers = [line for line in lines if "spawn_main" in line]
            return len(workers) == 2 and any("resource_tracker" in line for line in lines)

        _wait_for("two extraction workers and the resource tracker", pool_running, proc)
        names = kill_and_check(proc, mark)
    assert sum("spawn_main" in line for line in names.values()) == 2


def _server_answers(mark: str) -> bool:
    """The embedded model server of this command is up and answers."""
    for pid in marked_processes(mark):
        port = re.search(r"--port (\d+)", _cmdline(pid))
        if "llama-server" in _cmdline(pid) and port:
            with contextlib.suppress(OSError):
                url = f"http://127.0.0.1:{port.group(1)}/v1/models"
                return urllib.request.urlopen(url, timeout=2).status == 200
    return False


def test_sigkill_curate_mid_model_call_leaves_no_model_server(
    curated_later: Path, tmp_path: Path
) -> None:
    root = _copy(curated_later, tmp_path)
    with started(["-w", str(root), "curate"]) as (proc, mark):
        _wait_for("the embedded model server to answer", lambda: _server_answers(mark), proc)
        names = kill_and_check(proc, mark)
    assert any("llama-server" in line for line in names.values())


def test_sigkill_serve_mid_answer_leaves_no_model_server(
    curated_later: Path, tmp_path: Path
) -> None:
    root = _copy(curated_later, tmp_path)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with started(["-w", str(root), "serve", "--port", str(port)]) as (proc, mark):

        def form() -> str:
            with contextlib.suppress(OSError):
                return urllib.request.urlopen(f"{base}/ask", timeout=5).read().decode()
            return ""

        _wait_for("the server to answer", lambda: bool(form()), proc)
        token = re.search(r'name="csrf" value="([^"]+)"', form())
        assert token
        body = urllib.parse.urlencode({"csrf": token.group(1), "q": "paged attention memory"})
        asking = threading.Thread(target=_post, args=(f"{base}/ask", body.encode()), daemon=True)
        asking.start()
        _wait_for("the embedded model server to answer", lambda: _server_answers(mark), proc)
        names = kill_and_check(proc, mark)
    assert any("llama-server" in line for line in names.values())


def _post(url: str, body: bytes) -> None:
    """Ask, and read the answer until the server is killed under it."""
    with contextlib.suppress(OSError, http.client.HTTPException):
        urllib.request.urlopen(url, data=body, timeout=WAIT_S).read()
