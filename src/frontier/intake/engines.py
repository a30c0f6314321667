"""Where the CPU stages of ingest run, by `cluster.engine`: both engines run the same stages
(intake/stages.py) and hand results back in input order to the one writer."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterator

import numpy as np

from frontier.config import Settings
from frontier.intake.jobs import JobResult, PdfJob
from frontier.intake.pool import extract_in_order, worker_count
from frontier.llm.embeddings import BatchEmbed, Embedder

Engine = Callable[[list[PdfJob], Settings], Iterator[JobResult]]


def _local(jobs: list[PdfJob], settings: Settings) -> Iterator[JobResult]:
    return extract_in_order(jobs, worker_count(settings.ingest.workers))


def _ray(jobs: list[PdfJob], settings: Settings) -> Iterator[JobResult]:
    from frontier.intake import cluster  # Ray is imported only by those who ask for it

    return cluster.run_on_ray(jobs, settings.cluster)


ENGINES: dict[str, Engine] = {"local": _local, "ray": _ray}


def check_engine(settings: Settings) -> None:
    """Stop before any work when the configured engine cannot run here."""
    if settings.cluster.engine == "ray":
        from frontier.intake import cluster

        cluster.require_ray()


def embeds_at_ingest(settings: Settings) -> bool:
    """Whether the workers embed chunks and papers while reading them."""
    where = settings.ingest.embed
    return where == "ingest" or (where == "auto" and settings.cluster.engine != "local")


def run_jobs(jobs: list[PdfJob], settings: Settings) -> Iterator[JobResult]:
    """One result per job, in the order given, from the configured engine."""
    return ENGINES[settings.cluster.engine](jobs, settings)


@contextlib.contextmanager
def chunk_embedding(settings: Settings, embedder: Embedder) -> Iterator[BatchEmbed]:
    """How curate embeds batches of chunk texts for as long as the block lasts: with `embedder`
    here, or on the Ray cluster by the same recipe (connected the first time there is work,
    once for the block)."""
    if settings.cluster.engine != "ray":
        yield lambda batches: (embedder.embed_whole(texts) for texts in batches)
        return
    from frontier.intake import cluster

    with contextlib.ExitStack() as connection:
        connected: list[bool] = []

        def on_ray(batches: list[list[str]]) -> Generator[np.ndarray | None]:
            if batches and not connected:  # the first work: connect now
                connection.enter_context(cluster.session(settings.cluster))
                connected.append(True)
            for blob in cluster.embed_batches(batches, settings.cluster):
                if blob is None:
                    yield None
                else:
                    yield np.frombuffer(blob, dtype=np.float32).reshape(-1, embedder.dim)

        yield on_ray
