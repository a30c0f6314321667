"""`frontier curate`: every step of STEPS in order (triage, claims, relations, firsts and
coverage, entries, chunk vectors), each incremental; a step marked in_thread runs in a thread of
its own, awaited, so that a Ctrl-C is heard while it works."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console

from frontier.config import Settings
from frontier.curate.context import CurationContext
from frontier.curate.scope import scope_lines
from frontier.curate.steps import STEPS, Step
from frontier.curate.vectors import (
    embed_texts,
    ensure_paper_vectors,
)
from frontier.llm.client import LLM
from frontier.llm.embeddings import load_embedder
from frontier.model import Paper
from frontier.store import curation as store
from frontier.store.db import connect, database_file


async def curate(
    settings: Settings,
    conn: sqlite3.Connection,
    run_id: int,
    console: Console,
    use_cache: bool = True,
) -> CurationContext:
    """Bring every paper's curation up to date; only what changed is redone."""
    store.sync_config(conn, settings)
    papers = store.papers_to_curate(conn)
    embedder = load_embedder()
    lines = scope_lines(settings)
    async with LLM(settings.llm, conn, run_id=run_id, command="curate", use_cache=use_cache) as llm:
        ctx = CurationContext(
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
        try:
            for step in STEPS:
                with timed(ctx.seconds, step.name):
                    if step.in_thread and database_file(conn):
                        await _in_thread(ctx, step, papers)
                    else:
                        await step.run(ctx, papers)
        finally:
            ctx.stopping.set()
    ctx.counts["llm calls"] = store.fresh_llm_calls(conn, run_id)
    return ctx


@contextlib.contextmanager
def timed(seconds: dict[str, float], name: str) -> Iterator[None]:
    """The block's wall time in `seconds[name]`, to a tenth of a second, however it ends."""
    started = time.perf_counter()
    try:
        yield
    finally:
        seconds[name] = round(time.perf_counter() - started, 1)


async def _in_thread(ctx: CurationContext, step: Step, papers: list[Paper]) -> None:
    """Run a step in a thread with its own connection: its work holds the CPU for long
    stretches, and the event loop stays free to hear a Ctrl-C (the step stops at
    `ctx.stopping`)."""

    path = Path(database_file(ctx.conn))

    def work() -> None:
        with contextlib.closing(connect(path)) as conn:
            asyncio.run(step.run(dataclasses.replace(ctx, conn=conn), papers))

    await asyncio.to_thread(work)
