"""`frontier curate`: triage, claims, relations, counted relations and entries, incrementally."""

from __future__ import annotations

import sqlite3

from rich.console import Console

from frontier.config import Settings
from frontier.curate.counted import counted_relations
from frontier.curate.entries_step import entries_step
from frontier.curate.scope import scope_lines
from frontier.curate.stamps import Stamps
from frontier.curate.steps import Context, claims_step, relations_step, triage_step
from frontier.curate.vectors import (
    CHUNK_RECIPE,
    embed_texts,
    ensure_chunk_vectors,
    ensure_paper_vectors,
)
from frontier.llm.client import LLM
from frontier.llm.embeddings import Embedder, load_embedder
from frontier.store import curation as store
from frontier.store.dense import update_chunk_index
from frontier.store.lexical import update_lexical_indexes


async def curate(
    settings: Settings,
    conn: sqlite3.Connection,
    run_id: int,
    console: Console,
    use_cache: bool = True,
) -> Context:
    """Bring every paper's curation up to date; only what changed is redone."""
    store.sync_config(conn, settings)
    papers = store.papers_to_curate(conn)
    embedder = load_embedder()
    lines = scope_lines(settings)
    llm = LLM(settings.llm, conn, run_id=run_id, command="curate", use_cache=use_cache)
    ctx = Context(
        conn=conn,
        settings=settings,
        llm=llm,
        run_id=run_id,
        vectors=ensure_paper_vectors(conn, embedder, list(papers)),
        lines=lines,
        line_vectors=embed_texts(embedder, [line.text for line in lines]),
        embed=lambda texts: embed_texts(embedder, texts),
        console=console,
    )
    try:
        await triage_step(ctx, papers)
        in_field = [p for p in papers if store.topics_of(conn, p["id"])]
        ctx.bump("chunks embedded", _embed_changed_chunks(conn, embedder, in_field))
        update_chunk_index(conn, embedder.name)
        update_lexical_indexes(conn)
        await claims_step(ctx, papers)
        await relations_step(ctx, papers)
        counted_relations(ctx, papers)
        await entries_step(ctx, papers)
    finally:
        await llm.aclose()
    ctx.counts["llm calls"] = int(
        conn.execute(
            "SELECT COUNT(*) FROM llm_calls WHERE run_id = ? AND cache_hit = 0", (run_id,)
        ).fetchone()[0]
    )
    return ctx


def vectors_quick_key(model: str, text_version: int) -> str:
    """Moves on with the paper's text and with how chunk text becomes a vector (a new recipe
    has every paper's chunks embedded again)."""
    return store.digest("vectors", model, CHUNK_RECIPE, text_version)


def _embed_changed_chunks(
    conn: sqlite3.Connection, embedder: Embedder, papers: list[sqlite3.Row]
) -> int:
    """Chunk vectors for the papers whose text changed since their chunks were last embedded,
    and for every chunk whose vector an older recipe made."""
    stamps = Stamps(conn, "vectors")
    keyed = [(p["id"], vectors_quick_key(embedder.name, p["text_version"])) for p in papers]
    todo = [(paper_id, key) for paper_id, key in keyed if not stamps.quick_match(paper_id, key)]
    embedded = ensure_chunk_vectors(conn, embedder, [])
    for start in range(0, len(todo), 256):
        part = todo[start : start + 256]
        embedded += ensure_chunk_vectors(conn, embedder, [paper_id for paper_id, _ in part])
        store.mark_done(conn, [(paper_id, key, key) for paper_id, key in part], "vectors")
    return embedded
