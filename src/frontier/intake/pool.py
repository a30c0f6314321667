"""Run PDF jobs on all cores and hand results back in input order, so runs are deterministic."""

from __future__ import annotations

from collections.abc import Iterator

from frontier.compute.pool import map_in_order
from frontier.intake.jobs import JobResult, PdfJob
from frontier.intake.stages import process_job


def extract_in_order(jobs: list[PdfJob], workers: int) -> Iterator[JobResult]:
    """Yield one result per job, in the order given; a crashed worker fails only its own job."""
    for job, result in zip(jobs, map_in_order(process_job, jobs, workers), strict=True):
        if result is None:
            result = JobResult(
                job, code="extract_crash", reason="the PDF parser crashed on this file"
            )
        yield result
