"""Chunk vectors step: the chunks of papers in the field embedded for dense search, and both
search indexes brought up to date. No step reads them, so it runs last, in a thread of its own
(see Step.in_thread)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

from frontier.compute.engines import chunk_embedding
from frontier.curate.context import CurationContext
from frontier.curate.stamps import Stamps
from frontier.curate.vectors import CHUNK_RECIPE, ensure_chunk_vectors
from frontier.llm.embeddings import BatchEmbed, Embedder
from frontier.model import Paper
from frontier.store import curation as store
from frontier.store.dense import update_chunk_index
from frontier.store.lexical import update_lexical_indexes
from frontier.store.vectors import unembedded_chunks


def vectors_quick_key(model: str, text_version: int) -> str:
    """Moves on with the paper's text and with how chunk text becomes a vector (a new recipe
    has every paper's chunks embedded again)."""
    return store.stable_hash("vectors", model, CHUNK_RECIPE, text_version)


def embed_changed_chunks(
    conn: sqlite3.Connection,
    embedder: Embedder,
    text_versions: Sequence[tuple[str, int]],
    stop: threading.Event | None = None,
    embed_batches: BatchEmbed | None = None,
) -> int:
    """Chunk vectors for the papers (id, text version) whose text changed since their chunks
    were last embedded, and for every chunk whose vector an older recipe made; a paper is marked
    done only once all its chunks are, so a stopped run (or one whose batch failed on a cluster)
    goes on where it ended."""
    stamps = Stamps(conn, "vectors")
    keyed = [(paper_id, vectors_quick_key(embedder.name, v)) for paper_id, v in text_versions]
    todo = [(paper_id, key) for paper_id, key in keyed if not stamps.quick_match(paper_id, key)]
    embedded = ensure_chunk_vectors(conn, embedder, [], stop=stop, embed_batches=embed_batches)
    for start in range(0, len(todo), 256):
        part = todo[start : start + 256]
        ids = [paper_id for paper_id, _ in part]
        embedded += ensure_chunk_vectors(
            conn, embedder, ids, stop=stop, embed_batches=embed_batches
        )
        if stop is not None and stop.is_set():
            break
        if unembedded_chunks(conn, ids):
            continue  # a batch failed on a cluster: these papers are tried again next run
        store.mark_done(conn, [(paper_id, key, key) for paper_id, key in part], "vectors")
    return embedded


async def run(ctx: CurationContext, papers: list[Paper]) -> None:
    assert ctx.embedder is not None
    in_field = [(p.id, p.text_version) for p in papers if store.topics_of(ctx.conn, p.id)]
    # on a Ray cluster (`cluster.engine`), the workers embed and this thread stores
    with chunk_embedding(ctx.settings, ctx.embedder) as embed_batches:
        embedded = embed_changed_chunks(
            ctx.conn, ctx.embedder, in_field, ctx.stopping, embed_batches
        )
    ctx.bump("chunks embedded", embedded)
    if not ctx.stopping.is_set():
        update_chunk_index(ctx.conn, ctx.embedder.name)
        update_lexical_indexes(ctx.conn)
