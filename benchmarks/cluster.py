"""Ingest's CPU work on the local process pool and on Ray, measured in the same run on this
machine: the per-core rates (extraction, embedding, the single SQLite writer), Ray's steady
state against the local pool, and `frontier ingest` end to end on each engine.

    python benchmarks/cluster.py [--workers N] [--embed-pdfs N] [--passes N]
                                 [--address HOST:PORT] [--skip-end-to-end]

Rows are printed as they are measured. Steady state is measured in this process against a
running cluster (--address, or a head this benchmark starts with `ray start --head` and ends,
with every process it started, however the benchmark ends): the CPU stages alone (no SQLite),
after a first pass in which Ray's workers start and import frontier, against the local pool
(which starts its processes on each ingest, as `frontier ingest` does), the engines taking
turns pass by pass. End to end,
Ray is the one frontier starts itself, with as many CPUs as the pool has workers, so both
engines get the same cores; its start-up is in those figures.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from statistics import median

from frontier.compute.cluster import session
from frontier.config import ClusterSettings
from frontier.intake import cluster
from frontier.intake.jobs import PdfJob, run_pdf_job
from frontier.intake.pool import extract_in_order
from frontier.intake.save import store_result
from frontier.llm.embeddings import load_embedder
from frontier.process.children import start_reaper
from frontier.sources.ids import content_hash
from frontier.store.db import connect

PDF_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "pdfs"


def pdfs() -> list[Path]:
    if not PDF_DIR.is_dir():
        sys.exit(f"benchmark corpus not found at {PDF_DIR}: it must sit next to the repository")
    return sorted(PDF_DIR.glob("*.pdf"))


def jobs(paths: list[Path]) -> list[PdfJob]:
    return [PdfJob(str(p), str(p), content_hash(p.read_bytes())) for p in paths]


def extraction_alone(paths: list[Path]) -> tuple[float, int, list]:
    """Seconds to extract every PDF in this process (one core), pages, and the results."""
    start = time.perf_counter()
    results = [run_pdf_job(job) for job in jobs(paths)]
    seconds = time.perf_counter() - start
    pages = sum(r.extracted.n_pages for r in results if r.extracted)
    return seconds, pages, results


def writer_alone(results: list) -> float:
    """Seconds the one SQLite writer takes to store these results (FTS triggers included)."""
    with tempfile.TemporaryDirectory() as tmp:
        conn = connect(Path(tmp) / "kb.db")
        run_id = conn.execute(
            "INSERT INTO runs (command, args, started_at, status) VALUES ('bench', '', '', 'ok')"
        ).lastrowid
        start = time.perf_counter()
        for result in results:
            store_result(conn, result, run_id)
        seconds = time.perf_counter() - start
        conn.close()
    return seconds


def ingest(paths: list[Path], env: dict[str, str]) -> tuple[float, sqlite3.Connection]:
    """Wall seconds of `frontier ingest` of these PDFs in a new workspace, and its database."""
    tmp = Path(tempfile.mkdtemp())
    folder = tmp / "pdfs"
    folder.mkdir()
    for path in paths:
        shutil.copy(path, folder / path.name)
    frontier = [sys.executable, "-m", "frontier"]
    subprocess.run([*frontier, "init", str(tmp / "kb")], check=True, capture_output=True)
    start = time.perf_counter()
    subprocess.run(
        [*frontier, "-w", str(tmp / "kb"), "ingest", str(folder), "--json"],
        env={**os.environ, **env},
        capture_output=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    return seconds, sqlite3.connect(tmp / "kb" / ".frontier" / "frontier.db")


def count(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def embedding_alone(results: list, limit: int) -> tuple[float, int]:
    """Seconds to embed the chunks of the first `limit` papers in this process, one thread."""
    texts = [c.text for r in results[:limit] if r.extracted for c in r.extracted.chunks]
    embedder = load_embedder(1)
    start = time.perf_counter()
    embedder.embed_whole(texts)
    return time.perf_counter() - start, len(texts)


# a cluster only this machine's loopback reaches: no tokens to hand around between its nodes
RAY_ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
HEAD_WAIT_S = 120


@contextlib.contextmanager
def ray_head(cpus: int) -> Iterator[tuple[str, float]]:
    """A Ray head on this machine for the duration (its address and the seconds it took to
    come up); every process it starts is tagged and killed at the end, by a reaper that
    outlives this process if it is killed."""
    ray = str(Path(sys.executable).parent / "ray")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"127.0.0.1:{port}"
    tag = uuid.uuid4().hex
    reaper = start_reaper("FRONTIER_BENCH_RAY", tag)
    env = {**os.environ, "FRONTIER_BENCH_RAY": tag, **RAY_ENV}
    start = time.perf_counter()
    command = [ray, "start", "--head", "--block", "--port", str(port), "--num-cpus", str(cpus)]
    command += ["--node-ip-address", "127.0.0.1", "--include-dashboard=false"]
    head = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while not _head_up(ray, address, env, cpus):
            if head.poll() is not None:
                raise SystemExit(f"`ray start --head` ended: {head.stderr.read().decode()[-500:]}")
            if time.perf_counter() - start > HEAD_WAIT_S:
                raise SystemExit(f"the Ray head was not up after {HEAD_WAIT_S} s")
            time.sleep(0.2)
        yield address, time.perf_counter() - start
    finally:
        head.terminate()
        head.wait()
        assert reaper.stdin is not None
        reaper.stdin.close()
        reaper.wait()


def _head_up(ray: str, address: str, env: dict[str, str], cpus: int) -> bool:
    status = subprocess.run(
        [ray, "status", "--address", address], env=env, capture_output=True, text=True
    )
    return status.returncode == 0 and f"{cpus}.0 CPU" in status.stdout


def timed(work: Callable[..., object], *args: object) -> float:
    start = time.perf_counter()
    work(*args)
    return time.perf_counter() - start


def per_core_rates(paths: list[Path], embed_pdfs: int) -> tuple[int, int]:
    """Extraction, the writer and embedding, each alone on one core; the pages of every paper
    and the chunks of the first `embed_pdfs`."""
    alone, pages, results = extraction_alone(paths)
    row("extraction alone, 1 core", f"{pages / alone:.0f} pages/s ({pages} pages)")
    stored = writer_alone([r for r in results if r.extracted])
    row(
        "SQLite writer alone", f"{pages / stored:.0f} pages/s, {len(results) / stored:.1f} papers/s"
    )
    seconds, chunks = embedding_alone(results, embed_pdfs)
    row("embedding alone, 1 core", f"{chunks / seconds:.1f} chunks/s ({chunks} chunks)")
    return pages, chunks


def steady_state(
    paths: list[Path],
    workers: int,
    embed_pdfs: int,
    address: str | None,
    totals: tuple[int, int],
    passes: int,
) -> None:
    """Pages/s and chunks/s of the CPU stages alone (no SQLite), local pool against a running
    Ray cluster (default `[cluster]` settings), with Ray's start-up reported apart. The engines
    take turns, pass by pass, so both see the same machine; medians of the passes and of the
    paired ratios."""
    pages, chunks = totals
    plain = jobs(paths)
    embedding = jobs(paths[:embed_pdfs])
    for job in embedding:
        job.embed = True
    os.environ.update(RAY_ENV)
    with contextlib.ExitStack() as stack:
        if address is None:
            address, up = stack.enter_context(ray_head(workers))
            row(f"Ray start-up: `ray start --head` ({workers} CPUs)", f"{up:.1f} s")
        settings = ClusterSettings(engine="ray", address=address)
        joined = timed(lambda: stack.enter_context(session(settings)))
        row("Ray start-up: connecting to it", f"{joined:.1f} s")
        first = timed(lambda: list(cluster.stream_jobs(plain, settings)))
        row("Ray start-up: first pass (workers start, import frontier)", f"{first:.1f} s")
        first = timed(lambda: list(cluster.stream_jobs(embedding, settings)))
        row("Ray start-up: first embedding pass (workers load the model)", f"{first:.1f} s")
        engines = {
            "local pool": lambda batch: list(extract_in_order(batch, workers)),
            "Ray": lambda batch: list(cluster.stream_jobs(batch, settings)),
        }
        for what, batch, amount, unit in (
            ("", plain, pages, "pages/s"),
            (" + embed", embedding, chunks, "chunks/s"),
        ):
            seconds: dict[str, list[float]] = {name: [] for name in engines}
            for _ in range(passes):
                for name, run in engines.items():
                    seconds[name].append(timed(run, batch))
            for name, taken in seconds.items():
                passes_s = ", ".join(f"{t:.1f}" for t in taken)
                row(f"steady{what}, {name}", f"{amount / median(taken):.1f} {unit} ({passes_s} s)")
            ratios = [a / b for a, b in zip(seconds["local pool"], seconds["Ray"], strict=True)]
            spread = f"(passes {min(ratios):.2f}-{max(ratios):.2f})"
            row(f"steady{what}, Ray / local, {unit}", f"{median(ratios):.2f} {spread}")


def end_to_end(paths: list[Path], workers: int, embed_pdfs: int, pages: int) -> None:
    """`frontier ingest` in a new workspace on each engine, without and with embedding."""
    engines = {
        "local": {"FRONTIER_INGEST__WORKERS": str(workers)},
        "ray": {"FRONTIER_CLUSTER__ENGINE": "ray", "FRONTIER_CLUSTER__CPUS": str(workers)},
    }
    rates: dict[str, dict[str, float]] = {}
    for name, env in engines.items():
        seconds, conn = ingest(paths, {**env, **RAY_ENV, "FRONTIER_INGEST__EMBED": "curate"})
        with contextlib.closing(conn):
            assert count(conn, "pages") == pages, name
        row(
            f"ingest on {name} ({workers} CPUs), end to end",
            f"{pages / seconds:.0f} pages/s ({seconds:.1f} s)",
        )
        embedded_s, conn = ingest(
            paths[:embed_pdfs], {**env, **RAY_ENV, "FRONTIER_INGEST__EMBED": "ingest"}
        )
        with contextlib.closing(conn):
            chunks = count(conn, "chunk_embeddings")
        row(
            f"ingest + embed on {name}, end to end",
            f"{chunks / embedded_s:.1f} chunks/s ({chunks} chunks, {embedded_s:.1f} s)",
        )
        rates[name] = {"pages/s": pages / seconds, "chunks/s": chunks / embedded_s}
    for key in ("pages/s", "chunks/s"):
        row(f"end to end, Ray / local, {key}", f"{rates['ray'][key] / rates['local'][key]:.2f}")


def row(label: str, value: str) -> None:
    # to the real stdout: while connected to Ray, frontier sends what Ray prints to stderr
    print(f"{label:<62}  {value}", file=sys.__stdout__, flush=True)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # so the Ray head this started is ended on the way out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--embed-pdfs", type=int, default=4)
    parser.add_argument("--address", help="a running Ray cluster for the steady-state figures")
    parser.add_argument("--passes", type=int, default=5, help="steady-state passes per engine")
    parser.add_argument("--skip-end-to-end", action="store_true")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    paths = pdfs()
    totals = per_core_rates(paths, args.embed_pdfs)
    steady_state(paths, args.workers, args.embed_pdfs, args.address, totals, args.passes)
    if not args.skip_end_to_end:
        end_to_end(paths, args.workers, args.embed_pdfs, totals[0])


if __name__ == "__main__":
    main()
