"""Ingest's CPU work on the local process pool and on Ray, measured in the same run on this
machine: pages/s of extraction alone (one core), of `frontier ingest` end to end on each engine,
chunks embedded/s on each engine, and the single SQLite writer's insert rate.

    python benchmarks/cluster.py [--workers N] [--embed-pdfs N] [--address HOST:PORT]

End to end, Ray is the one frontier starts itself (no address), with as many CPUs as the pool
has workers, so both engines get the same cores; its start-up is in those figures. Steady state
is measured apart, in this process: against a running cluster (--address, or a head this
benchmark starts with `ray start --head` and ends), the second pass over the same papers once
Ray's workers have imported frontier, against the local pool (which starts its processes on
each ingest, as `frontier ingest` does).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from frontier.children import start_reaper
from frontier.config import ClusterSettings
from frontier.intake import cluster
from frontier.intake.jobs import PdfJob, run_pdf_job
from frontier.intake.pool import extract_in_order
from frontier.intake.save import store_result
from frontier.llm.embeddings import load_embedder
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


@contextlib.contextmanager
def ray_head(cpus: int) -> Iterator[tuple[str, float]]:
    """A Ray head on this machine for the duration (its address and the seconds it took to
    come up); every process it starts is tagged and killed at the end."""
    ray = str(Path(sys.executable).parent / "ray")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"127.0.0.1:{port}"
    tag = uuid.uuid4().hex
    reaper = start_reaper("FRONTIER_BENCH_RAY", tag)
    env = {**os.environ, "FRONTIER_BENCH_RAY": tag, "RAY_USAGE_STATS_ENABLED": "0"}
    start = time.perf_counter()
    command = [ray, "start", "--head", "--block", "--port", str(port), "--num-cpus", str(cpus)]
    command += ["--node-ip-address", "127.0.0.1", "--include-dashboard=false"]
    head = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while (
            f"{cpus}.0 CPU"
            not in subprocess.run(
                [ray, "status", "--address", address], env=env, capture_output=True, text=True
            ).stdout
        ):
            time.sleep(0.2)
        yield address, time.perf_counter() - start
    finally:
        head.terminate()
        head.wait()
        assert reaper.stdin is not None
        reaper.stdin.close()
        reaper.wait()


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def steady_state(
    paths: list[Path], workers: int, embed_pdfs: int, address: str | None
) -> list[tuple[str, str]]:
    """Pages/s and chunks/s of the CPU stages alone (no SQLite), local pool against a running
    Ray cluster, with Ray's start-up and connection reported apart."""
    rows: list[tuple[str, str]] = []
    plain = jobs(paths)
    embedding = jobs(paths[:embed_pdfs])
    for job in embedding:
        job.embed = True
    results = list(extract_in_order(plain, workers))
    pages = sum(r.extracted.n_pages for r in results if r.extracted)
    chunks = sum(len(r.extracted.chunks) for r in extract_in_order(embedding, 1) if r.extracted)
    local_s = min(timed(lambda: list(extract_in_order(plain, workers))) for _ in range(2))
    local_e = timed(lambda: list(extract_in_order(embedding, workers)))
    with contextlib.ExitStack() as stack:
        if address is None:
            address, up = stack.enter_context(ray_head(workers))
            rows.append((f"Ray start-up: `ray start --head` ({workers} CPUs)", f"{up:.1f} s"))
        settings = ClusterSettings(engine="ray", address=address)
        connect = timed(lambda: stack.enter_context(cluster.session(settings)))
        rows.append(("Ray start-up: connecting to it", f"{connect:.1f} s"))
        first = timed(lambda: list(cluster.stream_jobs(plain, settings)))
        rows.append(("Ray start-up: first pass (workers start, import frontier)", f"{first:.1f} s"))
        ray_s = min(timed(lambda: list(cluster.stream_jobs(plain, settings))) for _ in range(2))
        ray_e = timed(lambda: list(cluster.stream_jobs(embedding, settings)))
    rows += [
        (f"steady, local pool ({workers} workers)", f"{pages / local_s:.0f} pages/s"),
        ("steady, Ray (one paper a task)", f"{pages / ray_s:.0f} pages/s"),
        ("steady, Ray / local, pages/s", f"{local_s / ray_s:.2f}"),
        ("steady + embed, local pool", f"{chunks / local_e:.1f} chunks/s"),
        ("steady + embed, Ray", f"{chunks / ray_e:.1f} chunks/s"),
        ("steady + embed, Ray / local", f"{local_e / ray_e:.2f}"),
    ]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--embed-pdfs", type=int, default=6)
    parser.add_argument("--address", help="a running Ray cluster for the steady-state figures")
    parser.add_argument("--steady-only", action="store_true")
    args = parser.parse_args()
    paths = pdfs()
    steady = steady_state(paths, args.workers, args.embed_pdfs, args.address)
    if args.steady_only:
        show(steady)
        return
    rows: list[tuple[str, str]] = []
    alone, pages, results = extraction_alone(paths)
    rows.append(("extraction alone, 1 core", f"{pages / alone:.0f} pages/s ({pages} pages)"))
    stored = writer_alone([r for r in results if r.extracted])
    rows.append(
        (
            "SQLite writer alone",
            f"{pages / stored:.0f} pages/s, {len(results) / stored:.1f} papers/s",
        )
    )
    seconds, chunks = embedding_alone(results, args.embed_pdfs)
    rows.append(("embedding alone, 1 core", f"{chunks / seconds:.1f} chunks/s"))
    engines = {
        "local": {"FRONTIER_INGEST__WORKERS": str(args.workers)},
        "ray": {"FRONTIER_CLUSTER__ENGINE": "ray", "FRONTIER_CLUSTER__CPUS": str(args.workers)},
    }
    rates: dict[str, dict[str, float]] = {}
    for name, env in engines.items():
        seconds, conn = ingest(paths, {**env, "FRONTIER_INGEST__EMBED": "curate"})
        with contextlib.closing(conn):
            assert count(conn, "pages") == pages, name
        embedded_s, conn = ingest(
            paths[: args.embed_pdfs], {**env, "FRONTIER_INGEST__EMBED": "ingest"}
        )
        with contextlib.closing(conn):
            chunks = count(conn, "chunk_embeddings")
        rates[name] = {"pages/s": pages / seconds, "chunks/s": chunks / embedded_s}
        rows.append(
            (
                f"ingest on {name} ({args.workers} CPUs), end to end",
                f"{pages / seconds:.0f} pages/s ({seconds:.1f} s)",
            )
        )
        rows.append(
            (
                f"ingest + embed on {name}, end to end",
                f"{chunks / embedded_s:.1f} chunks/s ({chunks} chunks, {embedded_s:.1f} s)",
            )
        )
    for key in ("pages/s", "chunks/s"):
        rows.append((f"ray / local, {key}", f"{rates['ray'][key] / rates['local'][key]:.2f}"))
    show(rows + steady)
    print(json.dumps(rates))


def show(rows: list[tuple[str, str]]) -> None:
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


if __name__ == "__main__":
    main()
