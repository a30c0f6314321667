"""Curation: `frontier curate` and `frontier conflicts detect`."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sqlite3
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console

from frontier.curate.context import CurationContext
from frontier.curate.run import curate as run_curation
from frontier.curate.run import timed
from frontier.llm.client import LLM
from frontier.store.runs import recorded_run
from frontier.synthesize.conflicts import detect_conflicts
from frontier.synthesize.results import refresh_result_keys
from frontier.workspace import Workspace, open_workspace


def curate_workspace(ws: Workspace, progress: Console, use_cache: bool = True) -> dict[str, Any]:
    """Run curation inside a recorded run; returns counts and per-paper failures."""
    with contextlib.closing(ws.connect()) as conn, recorded_run(conn, "curate") as run:
        ctx = run_interruptible(run_curation(ws.settings, conn, run.id, progress, use_cache))
        with timed(ctx.seconds, "conflicts and results"):
            found = run_interruptible(flag_conflicts(ws, conn, run.id, use_cache))
            ctx.counts["conflicts flagged"] = found["new"]
            if found["withdrawn"]:
                ctx.counts["conflicts withdrawn"] = found["withdrawn"]
            refresh_result_keys(conn, ws.settings)
        if found["new"] or found["withdrawn"]:
            # relations and entries speak of the open conflicts: a second pass redoes what the
            # change touched (nothing else: every step is keyed on what it read)
            again = run_interruptible(run_curation(ws.settings, conn, run.id, progress, use_cache))
            _add_pass(ctx, again)
        failures = [{"paper": p, "step": s, "error": e} for p, s, e in ctx.failures]
        run.status = "ok" if not failures else "with problems"
        run.summary = {"counts": ctx.counts, "failures": failures, "notes": ctx.notes}
    return {
        "run_id": run.id,
        "counts": ctx.counts,
        "failures": failures,
        "notes": ctx.notes,
        "seconds": ctx.seconds,
    }


def _add_pass(ctx: CurationContext, again: CurationContext) -> None:
    """The second pass's counts, failures, notes and times added to the first's."""
    for key, count in again.counts.items():
        ctx.bump(key, count)
    ctx.failures.extend(again.failures)
    ctx.notes.extend(note for note in again.notes if note not in ctx.notes)
    for step, seconds in again.seconds.items():
        ctx.seconds[step] = ctx.seconds.get(step, 0.0) + seconds


T = TypeVar("T")
RECANCEL_SECONDS = 1.0  # how often a Ctrl-C's cancellation is sent again until the run ends


def run_interruptible(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run`, save that a Ctrl-C is never lost: its cancellation is sent again until
    the run ends (a library may swallow one: an HTTP client's timeout scope that expires with
    it), and the run then ends in KeyboardInterrupt. A second Ctrl-C interrupts at once. Only
    in the main thread, and only where no one else (a Ray of our own) handles Ctrl-C."""
    interrupted = False
    ours = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )

    async def guarded() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def cancel_again() -> None:
            if not task.done():
                task.cancel()
                loop.call_later(RECANCEL_SECONDS, cancel_again)

        def on_sigint() -> None:
            nonlocal interrupted
            interrupted = True
            loop.remove_signal_handler(signal.SIGINT)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            cancel_again()

        if not ours:
            return await main
        loop.add_signal_handler(signal.SIGINT, on_sigint)
        try:
            return await main
        finally:
            loop.remove_signal_handler(signal.SIGINT)

    try:
        result = asyncio.run(guarded())
    except asyncio.CancelledError:
        if interrupted:
            raise KeyboardInterrupt from None
        raise
    if interrupted:
        raise KeyboardInterrupt
    return result


async def flag_conflicts(
    ws: Workspace,
    conn: sqlite3.Connection,
    run_id: int,
    use_cache: bool = True,
    everything: bool = False,
) -> dict[str, int]:
    """Find disagreeing verified claims across papers (synthesis over the curated claims): those
    of claims not paired before, or, with `everything`, all of them."""
    settings = ws.settings
    async with LLM(settings.llm, conn, run_id=run_id, command="curate", use_cache=use_cache) as llm:
        return await detect_conflicts(
            conn, llm, settings.field.name, run_id, settings.topics[0].slug, everything
        )


def conflicts_detect(workspace: Path | None, use_cache: bool) -> dict[str, int]:
    """Compare every verified claim again; counts of pairs, new flags and unlabelled pairs."""
    ws = open_workspace(workspace)
    with contextlib.closing(ws.connect()) as conn, recorded_run(conn, "conflicts detect") as run:
        counts = asyncio.run(flag_conflicts(ws, conn, run.id, use_cache, everything=True))
        run.summary = counts
    return counts


def curate(
    workspace: Path | None, use_cache: bool, progress: Console, cluster: str | None = None
) -> dict[str, Any]:
    return curate_workspace(open_workspace(workspace).on_engine(cluster), progress, use_cache)
