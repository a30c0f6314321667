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
from frontier.curate.steps import STEPS, Step
from frontier.llm.client import LLM
from frontier.model import Paper
from frontier.store.runs import recorded_run
from frontier.synthesize.conflicts import detect_conflicts
from frontier.synthesize.results import refresh_result_keys
from frontier.workspace import Workspace, open_workspace


def curate_workspace(ws: Workspace, progress: Console, use_cache: bool = True) -> dict[str, Any]:
    """Run curation inside a recorded run; returns counts and per-paper failures."""
    with contextlib.closing(ws.connect()) as conn, recorded_run(conn, "curate") as run:
        ctx = run_interruptible(
            run_curation(ws.settings, conn, run.id, progress, use_cache, CURATE_STEPS)
        )
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


async def _conflicts_and_results(ctx: CurationContext, papers: list[Paper]) -> None:
    """Disagreeing claims across papers, flagged (and withdrawn) once the claims are typed and
    before relations and entries, which speak of the open conflicts; then the results' keys."""
    settings = ctx.settings
    found = await detect_conflicts(
        ctx.conn, ctx.llm, settings.field.name, ctx.run_id, settings.topics[0].slug
    )
    ctx.counts["conflicts flagged"] = found["new"]
    if found["withdrawn"]:
        ctx.counts["conflicts withdrawn"] = found["withdrawn"]
    refresh_result_keys(ctx.conn, settings)


# synthesis over the claims is an upper layer's work: this command puts it among the steps
_AFTER = STEPS.index(next(step for step in STEPS if step.name == "claims")) + 1
CURATE_STEPS = [
    *STEPS[:_AFTER],
    Step("conflicts and results", _conflicts_and_results),
    *STEPS[_AFTER:],
]


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
    """Compare verified claims across papers outside a curation run (`conflicts detect`)."""
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
