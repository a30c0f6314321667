"""Run PDF jobs on all cores and hand results back in input order, so runs are deterministic."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context

from frontier.intake.jobs import JobResult, PdfJob
from frontier.intake.stages import process_job
from frontier.process.children import die_with_parent

# jobs queued ahead per worker: enough that one long PDF at the head does not idle the others
_WINDOW_PER_WORKER = 16


def worker_count(configured: int) -> int:
    return configured if configured > 0 else max(1, os.cpu_count() or 1)


def _pool(workers: int) -> ProcessPoolExecutor:
    """Worker processes that die with this one, even when it is killed outright; the
    resource tracker then sees its last client gone and ends too."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=get_context("spawn"),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )


def extract_in_order(jobs: list[PdfJob], workers: int) -> Iterator[JobResult]:
    """Yield one result per job, in the order given; a crashed worker fails only its own job."""
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield process_job(job)
        return
    pending = deque(jobs)
    while pending:
        with _pool(workers) as pool:
            window: deque[tuple[PdfJob, Future[JobResult]]] = deque()
            broken = False
            while (pending or window) and not broken:
                while pending and len(window) < workers * _WINDOW_PER_WORKER:
                    job = pending.popleft()
                    window.append((job, pool.submit(process_job, job)))
                job, future = window.popleft()
                try:
                    yield future.result()
                except BrokenProcessPool:
                    yield JobResult(
                        job, code="extract_crash", reason="the PDF parser crashed on this file"
                    )
                    pending.extendleft(reversed([queued for queued, _ in window]))
                    broken = True
