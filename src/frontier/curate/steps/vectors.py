"""Chunk vectors step: the chunks of papers in the field embedded for dense search, and both
search indexes brought up to date. No later step reads them, so it runs alongside those steps
(see Step.alongside): the embedding keeps one core while the model works on the other."""

from __future__ import annotations

import sqlite3
import threading

from frontier.curate.context import Context
from frontier.curate.stamps import Stamps
from frontier.curate.vectors import CHUNK_RECIPE, ensure_chunk_vectors
from frontier.llm.embeddings import Embedder
from frontier.store import curation as store
from frontier.store.dense import update_chunk_index
from frontier.store.lexical import update_lexical_indexes


def vectors_quick_key(model: str, text_version: int) -> str:
    """Moves on with the paper's text and with how chunk text becomes a vector (a new recipe
    has every paper's chunks embedded again)."""
    return store.digest("vectors", model, CHUNK_RECIPE, text_version)


def embed_changed_chunks(
    conn: sqlite3.Connection,
    embedder: Embedder,
    papers: list[sqlite3.Row],
    stop: threading.Event | None = None,
) -> int:
    """Chunk vectors for the papers whose text changed since their chunks were last embedded,
    and for every chunk whose vector an older recipe made; a paper is marked done only once all
    its chunks are, so a stopped run goes on where it ended."""
    stamps = Stamps(conn, "vectors")
    keyed = [(p["id"], vectors_quick_key(embedder.name, p["text_version"])) for p in papers]
    todo = [(paper_id, key) for paper_id, key in keyed if not stamps.quick_match(paper_id, key)]
    embedded = ensure_chunk_vectors(conn, embedder, [], stop=stop)
    for start in range(0, len(todo), 256):
        part = todo[start : start + 256]
        embedded += ensure_chunk_vectors(
            conn, embedder, [paper_id for paper_id, _ in part], stop=stop
        )
        if stop is not None and stop.is_set():
            break
        store.mark_done(conn, [(paper_id, key, key) for paper_id, key in part], "vectors")
    return embedded


async def run(ctx: Context, papers: list[sqlite3.Row]) -> None:
    assert ctx.embedder is not None
    in_field = [p for p in papers if store.topics_of(ctx.conn, p["id"])]
    embedded = embed_changed_chunks(ctx.conn, ctx.embedder, in_field, ctx.stopping)
    ctx.bump("chunks embedded", embedded)
    if not ctx.stopping.is_set():
        update_chunk_index(ctx.conn, ctx.embedder.name)
        update_lexical_indexes(ctx.conn)
