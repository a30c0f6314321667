"""The CPU stages of ingest on a Ray cluster (compute/cluster.py): each paper is one block that
a worker reads with the functions the local engine runs; results stream back in input order."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from typing import Any

from frontier.compute.cluster import ordered_map, require_ray, session
from frontier.config import ClusterSettings
from frontier.intake.jobs import JobResult, PdfJob
from frontier.intake.stages import process_job


def run_on_ray(jobs: list[PdfJob], settings: ClusterSettings) -> Iterator[JobResult]:
    """One result per job, in the order given; a paper whose worker died on every try is
    reported as a crash, like a crashed pool worker."""
    require_ray()
    if not jobs:
        return
    # Ray prints what its nodes report (a worker that died, say) on stdout, where results go
    with session(settings):
        yield from stream_jobs(jobs, settings)


def stream_jobs(jobs: list[PdfJob], settings: ClusterSettings) -> Iterator[JobResult]:
    """`run_on_ray` on a cluster already connected to."""
    payloads = [pickle.dumps(job) for job in jobs]
    for job, result in zip(jobs, ordered_map(payloads, run_row, settings), strict=True):
        yield _crashed(job, settings.retries) if result is None else pickle.loads(result)


def run_row(row: dict[str, Any]) -> dict[str, Any]:
    """On a worker: one paper's stages."""
    job = pickle.loads(row["payload"])
    return {"index": row["index"], "result": pickle.dumps(process_job(job))}


def _crashed(job: PdfJob, retries: int) -> JobResult:
    return JobResult(
        job,
        code="extract_crash",
        reason=f"the worker reading this file died on each of {retries + 1} tries",
    )
