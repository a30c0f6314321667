"""Where the CPU stages of ingest run, by `cluster.engine`: both engines run the same stages
(intake/stages.py) and hand results back in input order to the one writer."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from frontier.compute.pool import worker_count
from frontier.config import Settings
from frontier.intake.jobs import JobResult, PdfJob
from frontier.intake.pool import extract_in_order

Engine = Callable[[list[PdfJob], Settings], Iterator[JobResult]]


def _local(jobs: list[PdfJob], settings: Settings) -> Iterator[JobResult]:
    return extract_in_order(jobs, worker_count(settings.ingest.workers))


def _ray(jobs: list[PdfJob], settings: Settings) -> Iterator[JobResult]:
    from frontier.intake import cluster  # Ray is imported only by those who ask for it

    return cluster.run_on_ray(jobs, settings.cluster)


ENGINES: dict[str, Engine] = {"local": _local, "ray": _ray}


def embeds_at_ingest(settings: Settings) -> bool:
    """Whether the workers embed chunks and papers while reading them."""
    where = settings.ingest.embed
    return where == "ingest" or (where == "auto" and settings.cluster.engine != "local")


def run_jobs(jobs: list[PdfJob], settings: Settings) -> Iterator[JobResult]:
    """One result per job, in the order given, from the configured engine."""
    return ENGINES[settings.cluster.engine](jobs, settings)
