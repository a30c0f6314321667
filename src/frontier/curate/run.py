"""`frontier curate`: triage, claims, relations, counted relations and entries, incrementally."""

from __future__ import annotations

import sqlite3

from rich.console import Console

from frontier.config import Settings
from frontier.curate.counted import counted_relations
from frontier.curate.entries_step import entries_step
from frontier.curate.scope import scope_lines
from frontier.curate.steps import Context, claims_step, relations_step, triage_step
from frontier.curate.vectors import embed_texts, ensure_chunk_vectors, ensure_paper_vectors
from frontier.llm.client import LLM
from frontier.llm.embeddings import load_embedder
from frontier.store import curation as store
from frontier.store.dense import update_chunk_index


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
        in_field = [p["id"] for p in papers if store.topics_of(conn, p["id"])]
        ctx.bump("chunks embedded", ensure_chunk_vectors(conn, embedder, in_field))
        update_chunk_index(conn, embedder.name)
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
