"""`frontier curate`: every step of STEPS in order (triage, chunk vectors, claims, relations,
firsts and coverage, entries), each incremental."""

from __future__ import annotations

import sqlite3

from rich.console import Console

from frontier.config import Settings
from frontier.curate.context import Context
from frontier.curate.scope import scope_lines
from frontier.curate.steps import STEPS
from frontier.curate.vectors import (
    embed_texts,
    ensure_paper_vectors,
)
from frontier.llm.client import LLM
from frontier.llm.embeddings import load_embedder
from frontier.store import curation as store


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
    async with LLM(settings.llm, conn, run_id=run_id, command="curate", use_cache=use_cache) as llm:
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
            embedder=embedder,
        )
        for step in STEPS:
            await step.run(ctx, papers)
    ctx.counts["llm calls"] = store.fresh_llm_calls(conn, run_id)
    return ctx
