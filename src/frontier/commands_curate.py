"""`frontier curate` and `frontier update` (the daily pipeline)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path
from typing import Any

from rich.console import Console

from frontier import render_cli
from frontier.commands import recorded_run
from frontier.curate.run import curate as run_curation
from frontier.llm.client import LLM
from frontier.synthesize.conflicts import detect_conflicts
from frontier.workspace import Workspace, open_workspace


def curate_workspace(ws: Workspace, console: Console, use_cache: bool = True) -> dict[str, Any]:
    """Run curation inside a recorded run; returns counts and per-paper failures."""
    with contextlib.closing(ws.connect()) as conn, recorded_run(conn, "curate") as run:
        ctx = asyncio.run(run_curation(ws.settings, conn, run.id, console, use_cache))
        found = asyncio.run(flag_conflicts(ws, conn, run.id, use_cache))
        ctx.counts["conflicts flagged"] = found["new"]
        failures = [{"paper": p, "step": s, "error": e} for p, s, e in ctx.failures]
        run.status = "ok" if not failures else "with problems"
        run.summary = {"counts": ctx.counts, "failures": failures}
    return {"run_id": run.id, "counts": ctx.counts, "failures": failures}


async def flag_conflicts(
    ws: Workspace,
    conn: sqlite3.Connection,
    run_id: int,
    use_cache: bool = True,
    everything: bool = False,
) -> dict[str, int]:
    """Find disagreeing verified claims across papers (synthesis over the curated claims): those
    of claims not paired before, or, with `everything`, all of them."""
    llm = LLM(ws.settings.llm, conn, run_id=run_id, command="curate", use_cache=use_cache)
    try:
        return await detect_conflicts(
            conn, llm, ws.settings.field.name, run_id, ws.settings.topics[0].slug, everything
        )
    finally:
        await llm.aclose()


def conflicts_detect(
    workspace: Path | None, json_out: bool, use_cache: bool, console: Console
) -> int:
    ws = open_workspace(workspace)
    with contextlib.closing(ws.connect()) as conn, recorded_run(conn, "conflicts detect") as run:
        counts = asyncio.run(flag_conflicts(ws, conn, run.id, use_cache, everything=True))
        run.summary = counts
    if json_out:
        render_cli.print_json(console, counts)
    else:
        console.print(
            f"{counts['pairs']} disagreeing claim pairs, {counts['new']} newly flagged "
            f"({counts['label failures']} without a label from the model)."
        )
    return 0


def curate(workspace: Path | None, json_out: bool, use_cache: bool, console: Console) -> int:
    ws = open_workspace(workspace)
    result = curate_workspace(ws, console, use_cache)
    if json_out:
        render_cli.print_json(console, result)
    else:
        print_curation(console, result)
    return 1 if result["failures"] else 0


def print_curation(console: Console, result: dict[str, Any]) -> None:
    counts = result["counts"]
    parts = [f"{key} {value}" for key, value in sorted(counts.items())]
    console.print("Curation: " + (", ".join(parts) if parts else "nothing to do"))
    for failure in result["failures"][:20]:
        console.print(
            f"[red]failed[/] {failure['paper']} ({failure['step']}): {failure['error']}",
            markup=True,
        )
    if len(result["failures"]) > 20:
        console.print(f"... and {len(result['failures']) - 20} more failures")
