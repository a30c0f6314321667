"""`frontier ingest` of the shared PDFs end to end against extraction alone, in the same run:
extraction of every PDF in this process (one core), then `frontier ingest` in a new workspace
as a user runs it (a subprocess, start-up included), and the start-up alone (`frontier
--help`). Each is the median of --repeat runs.

    python benchmarks/ingest_profile.py [--repeat 3] [--workers N] [--src DIR ...]

Each --src is another checkout's `src` folder, run the same way in the same run (a baseline).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from frontier.intake.jobs import PdfJob, run_pdf_job
from frontier.sources.ids import content_hash

PDF_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "pdfs"
SRC = Path(__file__).resolve().parents[1] / "src"


def extraction_alone(paths: list[Path]) -> tuple[float, int]:
    start = time.perf_counter()
    jobs = [PdfJob(str(p), str(p), content_hash(p.read_bytes())) for p in paths]
    results = [run_pdf_job(job) for job in jobs]
    seconds = time.perf_counter() - start
    return seconds, sum(r.extracted.n_pages for r in results if r.extracted)


def frontier(src: Path, *args: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "frontier", *args],
        env={**os.environ, "PYTHONPATH": str(src), **env},
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - start


def ingest(src: Path, paths: list[Path], env: dict[str, str]) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "pdfs"
        folder.mkdir()
        for path in paths:
            shutil.copy(path, folder / path.name)
        frontier(src, "init", str(Path(tmp) / "kb"), env=env)
        return frontier(src, "-w", str(Path(tmp) / "kb"), "ingest", str(folder), env=env)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=0, help="0 = one per core")
    parser.add_argument("--src", type=Path, action="append", default=[])
    args = parser.parse_args()
    paths = sorted(PDF_DIR.glob("*.pdf"))
    if not paths:
        sys.exit(f"benchmark corpus not found at {PDF_DIR}: it must sit next to the repository")
    env = {"FRONTIER_INGEST__WORKERS": str(args.workers), "NO_COLOR": "1"}
    alone = [extraction_alone(paths) for _ in range(args.repeat)]
    pages = alone[0][1]
    base = statistics.median(seconds for seconds, _ in alone)
    rows = [("extraction alone, 1 core, in process", base, pages / base)]
    for src in [SRC, *args.src]:
        name = "this checkout" if src == SRC else str(src)
        startup = statistics.median(frontier(src, "--help", env=env) for _ in range(args.repeat))
        whole = statistics.median(ingest(src, paths, env) for _ in range(args.repeat))
        rows.append((f"`frontier --help` ({name})", startup, 0.0))
        rows.append((f"`frontier ingest` end to end ({name})", whole, pages / whole))
    print(f"{len(paths)} PDFs, {pages} pages, median of {args.repeat}")
    width = max(len(label) for label, _, _ in rows)
    for label, seconds, rate in rows:
        ratio = seconds / base
        speed = f"{rate:5.0f} pages/s" if rate else " " * 13
        print(f"{label:<{width}}  {seconds:6.2f} s  {speed}  {ratio:4.2f}x extraction alone")


if __name__ == "__main__":
    main()
