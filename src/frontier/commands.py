"""One function per CLI command: open the workspace, do the work inside a run, return results."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from frontier import render_cli
from frontier.intake.discover import plan_discovery
from frontier.intake.expand import Plan, expand_paths
from frontier.intake.report import Report
from frontier.intake.run import ingest_plan, pdf_fetcher
from frontier.intake.single import plan_single
from frontier.store import queries
from frontier.store.runs import finish_run, recent_runs, start_run
from frontier.synthesize.retrieve import search_papers
from frontier.workspace import Workspace, init_workspace, open_workspace


def init(directory: Path, force: bool) -> Workspace:
    return init_workspace(directory, force)


@dataclass
class RunOutcome:
    """What a recorded run ends with; the command sets it before the run closes."""

    id: int
    status: str = "ok"
    summary: dict[str, Any] = field(default_factory=dict)


@contextlib.contextmanager
def recorded_run(conn: sqlite3.Connection, command: str, args: str = "") -> Iterator[RunOutcome]:
    """Record a command as a run; interrupted or crashed runs are closed as such."""
    outcome = RunOutcome(start_run(conn, command, args))
    try:
        yield outcome
    except KeyboardInterrupt:
        finish_run(conn, outcome.id, "interrupted", outcome.summary)
        render_cli.note_interrupted()
        raise
    except BaseException:
        finish_run(conn, outcome.id, "failed", outcome.summary)
        raise
    finish_run(conn, outcome.id, outcome.status, outcome.summary)


def _ingest(
    ws: Workspace,
    command: str,
    args: str,
    make_plan: Callable[[], Plan],
    console: Console,
    fetch: bool,
    password: str | None = None,
) -> Report:
    with contextlib.closing(ws.connect()) as conn, recorded_run(conn, command, args) as run:
        run.summary = {"counts": {}}
        fetcher = pdf_fetcher(ws, password) if fetch else None
        report = ingest_plan(ws, conn, make_plan(), run.id, console, fetcher)
        run.status = "ok" if report.exit_code() == 0 else "with problems"
        run.summary = {"counts": report.counts(), "exit_code": report.exit_code()}
    return report


def discover(
    workspace: Path | None,
    topics: list[str],
    days: int | None,
    max_results: int | None,
    fetch: bool,
    console: Console,
) -> Report:
    ws = open_workspace(workspace)
    chosen = [ws.settings.topic(slug) for slug in topics] if topics else ws.settings.topics
    return _ingest(
        ws,
        "discover",
        " ".join(t.slug for t in chosen),
        lambda: plan_discovery(ws, chosen, days=days, max_results=max_results),
        console,
        fetch,
    )


def add(workspace: Path | None, items: list[str], password: str | None, console: Console) -> Report:
    ws = open_workspace(workspace)

    def plan_all() -> Plan:
        plan = Plan()
        for item in items:
            single = plan_single(ws, item, password)
            plan.records += single.records
            plan.pdfs += single.pdfs
            plan.problems += single.problems
        return plan

    return _ingest(ws, "add", " ".join(items), plan_all, console, fetch=True, password=password)


def ingest(
    workspace: Path | None, paths: list[Path], password: str | None, fetch: bool, console: Console
) -> Report:
    ws = open_workspace(workspace)
    chunk_tokens = ws.settings.ingest.chunk_tokens
    return _ingest(
        ws,
        "ingest",
        " ".join(map(str, paths)),
        lambda: expand_paths(paths, password, chunk_tokens),
        console,
        fetch,
        password,
    )


def show_report(console: Console, report: Report, json_out: bool) -> int:
    if json_out:
        render_cli.print_json(console, report.to_dict())
    else:
        render_cli.print_report(console, report)
    return report.exit_code()


def search(
    workspace: Path | None, query: str, limit: int, json_out: bool, console: Console
) -> None:
    ws = open_workspace(workspace)
    with contextlib.closing(ws.connect()) as conn:
        hits = [hit.to_dict() for hit in search_papers(conn, query, limit)]
    if json_out:
        render_cli.print_json(console, hits)
    else:
        render_cli.print_hits(console, hits)


def show(
    workspace: Path | None, paper_id: str, page: int | None, json_out: bool, console: Console
) -> int:
    ws = open_workspace(workspace)
    with contextlib.closing(ws.connect()) as conn:
        paper = queries.paper_detail(conn, paper_id)
        text = queries.page_text(conn, paper_id, page) if paper and page else None
    if paper is None:
        console.print(f"No paper with id {paper_id!r}.")
        return 1
    if page is not None:
        if text is None:
            console.print(f"{paper_id} has no page {page} (it has {paper['n_pages']}).")
            return 1
        if json_out:
            render_cli.print_json(console, {"id": paper_id, "page": page, "text": text})
        else:
            console.print(text, markup=False, highlight=False)
        return 0
    if json_out:
        render_cli.print_json(console, paper)
    else:
        render_cli.print_paper(console, paper)
    return 0


def status_data(ws: Workspace) -> dict[str, object]:
    with contextlib.closing(ws.connect()) as conn:
        return {
            "workspace": str(ws.root),
            "field": ws.settings.field.name,
            "topics": [t.slug for t in ws.settings.topics],
            "counts": queries.counts(conn),
            "rejected": queries.rejected_files(conn),
            "warnings": queries.warned_papers(conn),
            "runs": recent_runs(conn, 5),
        }


def status(workspace: Path | None, json_out: bool, console: Console) -> None:
    data = status_data(open_workspace(workspace))
    if json_out:
        render_cli.print_json(console, data)
    else:
        render_cli.print_status(console, data)
