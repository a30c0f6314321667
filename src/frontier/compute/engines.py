"""Which engine runs CPU work, by `cluster.engine`: worker processes here ("local") or a Ray
cluster ("ray"); ingest runs its stages on it (intake/engines.py), curate embeds chunks on it."""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Iterator

import numpy as np

from frontier.compute import cluster
from frontier.config import Settings
from frontier.llm.embeddings import BatchEmbed, Embedder


def check_engine(settings: Settings) -> None:
    """Stop before any work when the configured engine cannot run here."""
    if settings.cluster.engine == "ray":
        cluster.require_ray()


@contextlib.contextmanager
def chunk_embedding(settings: Settings, embedder: Embedder) -> Iterator[BatchEmbed]:
    """How curate embeds batches of chunk texts for as long as the block lasts: with `embedder`
    here, or on the Ray cluster by the same recipe (connected the first time there is work,
    once for the block)."""
    if settings.cluster.engine != "ray":
        yield lambda batches: (embedder.embed_whole(texts) for texts in batches)
        return
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
