"""The CPU stages of ingest on a Ray cluster, with Ray Data: each paper is one block that a
worker reads (and embeds) with the stages the local pool runs; results stream back in input
order to this process, which stays the one writer of the KB."""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import sys
import uuid
import warnings
from collections.abc import Iterator
from typing import Any

from frontier.children import start_reaper
from frontier.config import ClusterSettings
from frontier.errors import FrontierError
from frontier.intake.jobs import JobResult, PdfJob
from frontier.intake.stages import process_job

INSTALL = "pip install 'frontier[cluster]'"
_OWNER = "FRONTIER_RAY_OWNER"


class RayMissing(FrontierError):
    """`cluster.engine = "ray"` on a machine without Ray."""


def require_ray() -> None:
    try:
        import ray.data  # noqa: F401
    except ImportError:
        raise RayMissing(
            f'cluster.engine = "ray" needs Ray, which is not installed: {INSTALL}'
        ) from None


def run_on_ray(jobs: list[PdfJob], settings: ClusterSettings) -> Iterator[JobResult]:
    """One result per job, in the order given; a paper whose worker died on every try is
    reported as a crash, like a crashed pool worker."""
    require_ray()
    if not jobs:
        return
    # Ray prints what its nodes report (a worker that died, say) on stdout, where results go
    with contextlib.redirect_stdout(sys.stderr), connected(settings):
        yield from _stream(jobs, settings)


@contextlib.contextmanager
def connected(settings: ClusterSettings) -> Iterator[None]:
    """Connected to the configured cluster for the duration. With no address, a Ray started
    here: its processes share this one's fate (the kernel ends them even if it is killed)."""
    import ray

    quiet: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": logging.WARNING,
    }
    if settings.address:
        ray.init(address=settings.address, **quiet)
        try:
            yield
        finally:
            ray.shutdown()  # the cluster ends this job's tasks
        return
    with _own_ray():
        ray.init(num_cpus=settings.cpus or None, **quiet)
        try:
            yield
        finally:
            ray.shutdown()


@contextlib.contextmanager
def _own_ray() -> Iterator[None]:
    """Every process of a Ray started here is tagged, and a reaper kills them all once this
    process ends: the kernel ends Ray's servers with it, but not the agents they start."""
    tag = uuid.uuid4().hex
    reaper = start_reaper(_OWNER, tag)
    os.environ[_OWNER] = tag
    try:
        yield
    finally:
        del os.environ[_OWNER]
        assert reaper.stdin is not None
        reaper.stdin.close()  # Ray is shut down: reap what is left now
        reaper.wait()


def _stream(jobs: list[PdfJob], settings: ClusterSettings) -> Iterator[JobResult]:
    import ray.data

    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True  # the same order, so the same KB, as locally
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    context.max_errored_blocks = -1  # a paper that kills its worker every time fails alone
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    rows = [{"index": index, "job": pickle.dumps(job)} for index, job in enumerate(jobs)]
    resources: dict[str, Any] = {"num_cpus": settings.cpus_per_task}
    if settings.memory_per_task_mb:
        resources["memory"] = settings.memory_per_task_mb * 2**20
    with warnings.catch_warnings():
        # Ray Data has no named parameter for task retries yet; its default retries forever,
        # and a PDF that kills every worker it meets must fail alone instead
        warnings.simplefilter("ignore", DeprecationWarning)
        papers = ray.data.from_items(rows, override_num_blocks=len(rows)).map(
            run_row,
            compute=ray.data.TaskPoolStrategy(size=min(settings.max_in_flight, len(jobs))),
            max_retries=settings.retries,
            **resources,
        )
    expected = 0
    for row in papers.iter_rows():
        while expected < row["index"]:
            yield _crashed(jobs[expected], settings.retries)
            expected += 1
        yield pickle.loads(row["result"])
        expected += 1
    for job in jobs[expected:]:
        yield _crashed(job, settings.retries)


def run_row(row: dict[str, Any]) -> dict[str, Any]:
    """On a worker: one paper's stages."""
    return {"index": row["index"], "result": pickle.dumps(process_job(pickle.loads(row["job"])))}


def _crashed(job: PdfJob, retries: int) -> JobResult:
    return JobResult(
        job,
        code="extract_crash",
        reason=f"the worker reading this file died on each of {retries + 1} tries",
    )
