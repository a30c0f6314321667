"""Ingest's CPU work on the local process pool and on Ray, measured in the same run on this
machine: pages/s of extraction alone (one core), of `frontier ingest` end to end on each engine,
chunks embedded/s on each engine, and the single SQLite writer's insert rate.

    python benchmarks/cluster.py [--workers N] [--embed-pdfs N]

Ray here is the one frontier starts itself (no address), with as many CPUs as the pool has
workers, so both engines get the same cores.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from frontier.intake.jobs import PdfJob, run_pdf_job
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--embed-pdfs", type=int, default=6)
    args = parser.parse_args()
    paths = pdfs()
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
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    print(json.dumps(rates))


if __name__ == "__main__":
    main()
