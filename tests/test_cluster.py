"""Ingest on a real Ray cluster on 127.0.0.1 (a head and a second worker node, one CPU each):
the same KB as the local process pool, even when a worker is killed mid-run, and no Ray
process of ours left behind, even when frontier is killed."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import (
    MARK,
    REPO,
    corpus,
    db,
    kb_snapshot,
    kill_marked,
    marked_processes,
    processes_under,
    run_cli,
    started,
)
from web_kb import free_port

from frontier.process.children import start_reaper

pytest.importorskip("ray")
# Ray's own processes are told apart from other tests' only by their command lines, and a
# cluster shares the machine's ports and cores with whatever runs beside it: these run alone
pytestmark = [pytest.mark.slow, pytest.mark.alone]

RAY = str(Path(sys.executable).parent / "ray")
WAIT_S = 240
STOP_GRACE_S = 2.0
# a cluster only this machine's loopback reaches: no tokens to hand around between its nodes
NO_TOKENS = {"RAY_AUTH_MODE": "disabled"}
# a few short papers for the runs that also embed: embedding is the slow stage on two cores;
# together they have more chunks than one batch of curate's embedding (64)
EMBEDDED = [
    "self-attention-no-n2-memory.pdf",
    "speculative-decoding-leviathan.pdf",
    "staged-speculative-decoding.pdf",
]


def _cmdline(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return ""


def _nodes_up(address: str, env: dict[str, str], count: int) -> bool:
    status = subprocess.run(
        [RAY, "status", "--address", address], env=env, capture_output=True, text=True, check=False
    )
    return status.returncode == 0 and f"{count}.0 CPU" in status.stdout


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Ray head and a second worker node on this machine, one CPU each; yields the address.
    Both run as children of this test process, marked, and are ended with every process they
    started."""
    mark = uuid.uuid4().hex
    env = {
        **os.environ,
        MARK: mark,
        "PYTHONPATH": str(REPO / "src"),
        "RAY_USAGE_STATS_ENABLED": "0",
        **NO_TOKENS,
    }
    address = f"127.0.0.1:{free_port()}"
    temp = tmp_path_factory.mktemp("ray")
    common = ["--block", "--num-cpus", "1", "--node-ip-address", "127.0.0.1"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    # ends the cluster even when this test process is killed before its cleanup below runs
    reaper = start_reaper(MARK, mark, str(temp))
    head = [
        RAY,
        "start",
        "--head",
        "--port",
        address.split(":")[1],
        "--temp-dir",
        str(temp),
        "--include-dashboard=false",
        *common,
    ]
    second = [RAY, "start", "--address", address, *common]
    # both nodes start at once: the second waits for the head to answer at its address
    nodes = [subprocess.Popen(head, **quiet), subprocess.Popen(second, **quiet)]

    def both_up() -> bool:
        if nodes[1].poll() is not None:  # it gave up before the head answered: once more
            nodes[1] = subprocess.Popen(second, **quiet)
        return _nodes_up(address, env, 2)

    try:
        _wait(both_up, "the two nodes")
        yield address
    finally:
        for node in nodes:
            node.terminate()
        # a head that has run jobs may take its time to stop them all: what is left after a
        # short grace is killed below
        grace = time.monotonic() + STOP_GRACE_S
        for node in nodes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                node.wait(timeout=max(0.0, grace - time.monotonic()))
        # Ray's agents may rewrite their environment (and so lose the mark) when they set their
        # process title; every one of them holds its log files under the cluster's directory
        kill_marked(mark, temp)
        _wait(
            lambda: not marked_processes(mark) and not processes_under(temp),
            "the cluster's processes to end",
        )
        assert reaper.stdin is not None
        reaper.stdin.close()
        reaper.wait(timeout=WAIT_S)


def _wait(ready: object, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not ready():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.2)


def _folder(tmp: Path, names: list[str] | None = None) -> Path:
    folder = tmp / "pdfs"
    folder.mkdir()
    for pdf in sorted(corpus("pdfs").glob("*.pdf")):
        if names is None or pdf.name in names:
            shutil.copy(pdf, folder / pdf.name)
    return folder


def _ingest(root: Path, folder: Path, env: dict[str, str]) -> str:
    assert run_cli("init", str(root)).code == 0
    result = run_cli("-w", str(root), "ingest", str(folder), "--json", env=env)
    assert result.code in (0, 2), result.err
    return result.out


def _on_ray(address: str, **more: str) -> dict[str, str]:
    return {
        "FRONTIER_CLUSTER__ENGINE": "ray",
        "FRONTIER_CLUSTER__ADDRESS": address,
        **NO_TOKENS,
        **more,
    }


LOCAL = {"FRONTIER_INGEST__WORKERS": "2"}


def _outcomes(report: str) -> list[tuple[str, str, str]]:
    entries = json.loads(report)["items"]
    return sorted((Path(e["item"]).name, e["outcome"], e["message"]) for e in entries)


def _vectors(root: Path) -> dict[str, list[tuple]]:
    conn = db(root)
    try:
        return {
            "chunks": conn.execute(
                "SELECT c.paper_id, c.ord, e.model, e.vector FROM chunks c "
                "JOIN chunk_embeddings e ON e.chunk_id = c.id ORDER BY 1, 2"
            ).fetchall(),
            "papers": conn.execute(
                "SELECT paper_id, model, text_hash, vector FROM paper_embeddings ORDER BY 1"
            ).fetchall(),
        }
    finally:
        conn.close()


@pytest.fixture(scope="module")
def local_kb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The 38 shared PDFs ingested by the local process pool, once for the module."""
    tmp = tmp_path_factory.mktemp("local")
    root = tmp / "kb"
    return root, _ingest(root, _folder(tmp), {**LOCAL, "FRONTIER_INGEST__EMBED": "curate"})


def test_ray_ingest_gives_the_local_pool_kb(
    cluster: str, local_kb: tuple[Path, str], tmp_path: Path
) -> None:
    local, local_report = local_kb
    root = tmp_path / "kb"
    report = _ingest(root, _folder(tmp_path), _on_ray(cluster, FRONTIER_INGEST__EMBED="curate"))
    assert kb_snapshot(root) == kb_snapshot(local)
    assert _outcomes(report) == _outcomes(local_report)
    assert len(kb_snapshot(root)["papers"]) >= 30


def test_chunk_and_paper_vectors_made_on_ray_equal_the_local_pool_ones(
    cluster: str, tmp_path: Path
) -> None:
    both = {}
    for engine, env in (("local", LOCAL), ("ray", _on_ray(cluster))):
        tmp = tmp_path / engine
        tmp.mkdir()
        _ingest(tmp / "kb", _folder(tmp, EMBEDDED), {**env, "FRONTIER_INGEST__EMBED": "ingest"})
        both[engine] = (kb_snapshot(tmp / "kb"), _vectors(tmp / "kb"))
    (local_kb, local_vectors), (ray_kb, ray_vectors) = both["local"], both["ray"]
    assert ray_kb == local_kb
    assert ray_vectors == local_vectors
    chunks = len(local_kb["chunks"])
    assert len(local_vectors["chunks"]) == chunks > 0
    assert len(local_vectors["papers"]) == len(EMBEDDED)


def _worker_tasks(mark: str) -> list[int]:
    """Ray workers of the marked command's job, busy with a paper."""
    return [pid for pid in marked_processes(mark) if "run_row" in _cmdline(pid)]


def test_a_worker_killed_mid_run_changes_nothing(
    cluster: str, local_kb: tuple[Path, str], tmp_path: Path
) -> None:
    local, local_report = local_kb
    root = tmp_path / "kb"
    assert run_cli("init", str(root)).code == 0
    folder = _folder(tmp_path)
    killed: list[str] = []
    stop = threading.Event()

    def kill_one_worker() -> None:
        while not stop.is_set() and not killed:
            for pid in _ray_workers_busy():
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                    killed.append(_cmdline(pid) or str(pid))
                    return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_one_worker, daemon=True)
    killer.start()
    try:
        result = run_cli(
            "-w",
            str(root),
            "ingest",
            str(folder),
            "--json",
            env=_on_ray(cluster, FRONTIER_INGEST__EMBED="curate"),
        )
    finally:
        stop.set()
        killer.join()
    assert killed, "no worker was busy with a paper to kill"
    assert result.code in (0, 2), result.err
    assert kb_snapshot(root) == kb_snapshot(local)
    assert result.out.startswith("{"), (result.out[:2000], result.err[-2000:])
    assert _outcomes(result.out) == _outcomes(local_report)


def _ray_workers_busy() -> list[int]:
    """Ray worker processes running a paper's task, on any node of the test cluster."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _cmdline(int(entry.name)).startswith("ray::Map(run_row)"):
            found.append(int(entry.name))
    return found


def test_without_ray_the_ray_engine_stops_with_how_to_install_it(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    assert run_cli("init", str(root)).code == 0
    hide = tmp_path / "noray"
    hide.mkdir()
    (hide / "ray").mkdir()
    (hide / "ray" / "__init__.py").write_text("raise ImportError('no ray here')\n")
    path = os.pathsep.join([str(hide), str(REPO / "src")])
    result = run_cli(
        "-w",
        str(root),
        "ingest",
        str(_folder(tmp_path, EMBEDDED[:1])),
        "--cluster",
        "ray",
        env={"PYTHONPATH": path},
    )
    assert result.code == 1
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert "needs Ray, which is not installed: pip install 'frontier[cluster]'" in lines[0]
    assert db(root).execute("SELECT count(*) FROM papers").fetchone()[0] == 0


def _busy_on_own_ray(mark: str) -> bool:
    """The command's own Ray is up and one of its workers reads a paper."""
    return any(_cmdline(pid).startswith("ray::Map(run_row)") for pid in marked_processes(mark))


def _ends_alone(
    proc: subprocess.Popen[bytes], mark: str, how: signal.Signals, group: bool, before: set[int]
) -> list[str]:
    """Send `how` to the command (or to its whole process group, as a terminal's Ctrl-C or a
    scheduler's timeout does); return the command lines of its processes, and of Ray processes
    not in `before`, still alive 30 s after it ended."""
    started = [_cmdline(pid) for pid in marked_processes(mark) if pid != proc.pid]
    assert any("raylet" in line for line in started), started
    if group:
        os.killpg(proc.pid, how)
    else:
        proc.send_signal(how)
    proc.wait(timeout=120)
    deadline = time.monotonic() + 30
    left = _ray_processes() - before
    while (marked_processes(mark) or left) and time.monotonic() < deadline:
        time.sleep(0.2)
        left = _ray_processes() - before
    return [_cmdline(pid) for pid in {*marked_processes(mark), *left}]


def _ray_processes() -> set[int]:
    """Ray's servers and agents on this machine, whichever cluster they belong to (an agent's
    environment may have lost the test's mark)."""
    return {
        int(entry.name)
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit()
        and any(name in _cmdline(int(entry.name)) for name in ("ray::", "raylet", "gcs_server"))
    }


@pytest.mark.parametrize(
    ("how", "group"),
    [
        (signal.SIGKILL, False),
        (signal.SIGINT, False),
        (signal.SIGTERM, True),
    ],
    ids=["SIGKILL", "SIGINT", "SIGTERM to its group"],
)
def test_a_ray_frontier_started_ends_with_it(
    how: signal.Signals, group: bool, tmp_path: Path
) -> None:
    root = tmp_path / "kb"
    assert run_cli("init", str(root)).code == 0
    args = ["-w", str(root), "ingest", str(_folder(tmp_path)), "--cluster", "ray"]
    env = {"FRONTIER_CLUSTER__CPUS": "2", "FRONTIER_INGEST__EMBED": "ingest"}
    before = _ray_processes()
    with started(args, env) as (proc, mark):
        _wait(lambda: _busy_on_own_ray(mark) or proc.poll() is not None, "a Ray worker busy")
        assert proc.poll() is None, "the command ended before its Ray worked"
        assert _ends_alone(proc, mark, how, group, before) == []
    if how == signal.SIGINT:
        assert proc.returncode == 130


HANGS_WHEN_STOPPED = """
import sys, time
from frontier.compute.cluster import _exit_after_interrupt
with _exit_after_interrupt(1.0):
    try:
        print("ready", flush=True)
        time.sleep(60)
    finally:
        time.sleep(60)  # a shutdown that never returns
"""


def test_ctrl_c_ends_the_process_when_stopping_its_ray_hangs() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", HANGS_WHEN_STOPPED],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert "Ray did not stop within 1 s of Ctrl-C" in err and "Traceback" not in err


def _holding(path: Path) -> list[int]:
    """Processes other than this one with `path` open."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            for fd in (entry / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) == str(path):
                        found.append(int(entry.name))
                        break
    return found


def test_a_paper_that_kills_its_worker_every_time_fails_alone(cluster: str, tmp_path: Path) -> None:
    """The paper is a named pipe: frontier reads it whole to hash it, but every Ray worker that
    opens it is killed while it waits for the bytes."""
    folder = _folder(tmp_path, EMBEDDED)
    donor = next(p for p in sorted(corpus("pdfs").glob("*.pdf")) if p.name not in EMBEDDED)
    deadly = tmp_path / "deadly.pdf"
    os.mkfifo(deadly)
    root = tmp_path / "kb"
    assert run_cli("init", str(root)).code == 0
    killed: list[int] = []
    fed: list[int] = []
    stop = threading.Event()

    def feed(writer: int, reader: int) -> int:
        """Give frontier (hashing the file) the bytes and then the end of the file; a new
        writer once it has read them all. The writes never block: a reader that goes away
        before it has read them all (a worker killed before its title said so) ends the feed
        instead of leaving this thread waiting on a full pipe."""
        left = memoryview(donor.read_bytes())
        os.set_blocking(writer, False)
        while left and not stop.is_set():
            try:
                left = left[os.write(writer, left) :]
            except BlockingIOError:
                if reader not in _holding(deadly):
                    break
                time.sleep(0.02)
        os.close(writer)
        while reader in _holding(deadly) and not stop.is_set():
            time.sleep(0.02)
        return os.open(deadly, os.O_RDWR)

    def guard() -> None:
        writer = os.open(deadly, os.O_RDWR)  # readers' open() returns; their read() waits
        try:
            while not stop.is_set():
                for pid in _holding(deadly):
                    command = _cmdline(pid)
                    if "run_row" in command and pid not in killed:
                        with contextlib.suppress(OSError):
                            os.kill(pid, signal.SIGKILL)
                            killed.append(pid)
                    elif pid not in fed and "frontier" in command and "ingest" in command:
                        fed.append(pid)  # frontier itself, hashing the file
                        writer = feed(writer, pid)
                    # else: a Ray worker whose title does not say its task yet; seen again
                time.sleep(0.02)
        finally:
            os.close(writer)

    guarding = threading.Thread(target=guard, daemon=True)
    guarding.start()
    try:
        result = run_cli(
            "-w",
            str(root),
            "ingest",
            str(folder),
            str(deadly),
            "--json",
            env=_on_ray(cluster, FRONTIER_INGEST__EMBED="curate", FRONTIER_CLUSTER__RETRIES="1"),
        )
    finally:
        stop.set()
        guarding.join()
    assert len(killed) == 2, killed  # the first try and one retry
    assert result.code == 2, result.err  # some input rejected, each named with its reason
    outcomes = _outcomes(result.out)
    assert outcomes.count(("deadly.pdf", "rejected", _died(2))) == 1, outcomes
    stored = [name for name, outcome, _ in outcomes if outcome in ("stored", "warning")]
    assert stored == sorted(EMBEDDED)
    assert len(kb_snapshot(root)["papers"]) == len(EMBEDDED)


def _died(tries: int) -> str:
    return f"the worker reading this file died on each of {tries} tries"


def _papers_stored(root: Path) -> int:
    with contextlib.suppress(sqlite3.Error):
        conn = sqlite3.connect(root / ".frontier" / "frontier.db", timeout=1)
        try:
            return int(conn.execute("SELECT count(*) FROM papers").fetchone()[0])
        finally:
            conn.close()
    return 0


def test_frontier_killed_mid_run_on_ray_resumes_to_the_uninterrupted_kb(
    cluster: str, local_kb: tuple[Path, str], tmp_path: Path
) -> None:
    local, _ = local_kb
    root = tmp_path / "kb"
    assert run_cli("init", str(root)).code == 0
    args = ["-w", str(root), "ingest", str(_folder(tmp_path))]
    env = _on_ray(cluster, FRONTIER_INGEST__EMBED="curate")
    with started(args, env) as (proc, _):
        _wait(lambda: _papers_stored(root) >= 5 or proc.poll() is not None, "papers stored")
        assert proc.poll() is None, "the command ended before it could be killed"
        proc.kill()
        proc.wait()
    assert 5 <= _papers_stored(root) < len(kb_snapshot(local)["papers"])
    result = run_cli(*args, "--json", env=env)
    assert result.code in (0, 2), result.err
    assert kb_snapshot(root) == kb_snapshot(local)


def test_curate_chunk_vectors_made_on_ray_equal_the_local_ones(
    cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Curate's chunk vectors step, on the cluster and here, over the same few papers: the
    workers embed by the same recipe and the driver stores the same vectors."""
    from frontier.compute.engines import chunk_embedding
    from frontier.config import ClusterSettings
    from frontier.curate.steps.vectors import embed_changed_chunks
    from frontier.llm.embeddings import load_embedder
    from frontier.store.db import connect
    from frontier.workspace import open_workspace

    for name, value in NO_TOKENS.items():
        monkeypatch.setenv(name, value)
    first = tmp_path / "local"
    first.mkdir()
    _ingest(first / "kb", _folder(first, EMBEDDED), {**LOCAL, "FRONTIER_INGEST__EMBED": "curate"})
    shutil.copytree(first / "kb", tmp_path / "ray")
    embedder = load_embedder(1)
    counts = {}
    for engine in ("local", "ray"):
        root = first / "kb" if engine == "local" else tmp_path / "ray"
        settings = open_workspace(root).settings
        cluster_settings = ClusterSettings(engine=engine, address=cluster)
        settings = settings.model_copy(update={"cluster": cluster_settings})
        with contextlib.closing(connect(root / ".frontier" / "frontier.db")) as conn:
            papers = conn.execute("SELECT id, text_version FROM papers ORDER BY id").fetchall()
            with chunk_embedding(settings, embedder) as embed_batches:
                counts[engine] = embed_changed_chunks(conn, embedder, papers, None, embed_batches)
    local, ray = _vectors(first / "kb")["chunks"], _vectors(tmp_path / "ray")["chunks"]
    assert (
        counts["ray"] == counts["local"] == len(local) == len(kb_snapshot(first / "kb")["chunks"])
    )
    assert len(local) > 64  # more than one batch
    assert ray == local
