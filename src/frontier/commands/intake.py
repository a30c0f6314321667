"""Bringing papers in and looking at them: init, discover, add, ingest, search, show, status."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from frontier.compute.engines import check_engine
from frontier.curate.earned import trust_report
from frontier.intake.expand import Plan, expand_paths, read_options
from frontier.intake.report import Report
from frontier.intake.run import ingest_plan, pdf_fetcher
from frontier.sources.records import printable
from frontier.store import queries
from frontier.store.runs import recent_runs, recorded_run
from frontier.workspace import Workspace, init_workspace, open_workspace


def init(directory: Path, force: bool) -> Workspace:
    return init_workspace(directory, force)


def ingest_run(
    ws: Workspace,
    command: str,
    args: str,
    make_plan: Callable[[], Plan],
    progress: Console,
    fetch: bool,
    password: str | None = None,
) -> Report:
    """Ingest what `make_plan` finds as one recorded run; `progress` shows the bar."""
    check_engine(ws.settings)
    with contextlib.closing(ws.connect()) as conn, recorded_run(conn, command, args) as run:
        run.summary = {"counts": {}}
        fetcher = pdf_fetcher(ws, password) if fetch else None
        report = ingest_plan(ws, conn, make_plan(), run.id, progress, fetcher, password)
        run.status = "ok" if report.exit_code() == 0 else "with problems"
        run.summary = {"counts": report.counts(), "exit_code": report.exit_code()}
    return report


def discover(
    workspace: Path | None,
    topics: list[str],
    days: int | None,
    max_results: int | None,
    fetch: bool,
    progress: Console,
    cluster: str | None = None,
) -> Report:
    from frontier.intake.discover import plan_discovery  # arXiv's client: only discover needs it

    ws = open_workspace(workspace).on_engine(cluster)
    chosen = [ws.settings.topic(slug) for slug in topics] if topics else ws.settings.topics
    return ingest_run(
        ws,
        "discover",
        " ".join(t.slug for t in chosen),
        lambda: plan_discovery(ws, chosen, days=days, max_results=max_results),
        progress,
        fetch,
    )


def add(
    workspace: Path | None, items: list[str], password: str | None, progress: Console
) -> Report:
    from frontier.intake.single import plan_single

    ws = open_workspace(workspace)

    def plan_all() -> Plan:
        plan = Plan()
        for item in items:
            single = plan_single(ws, item, password)
            plan.records += single.records
            plan.pdfs += single.pdfs
            plan.problems += single.problems
        return plan

    return ingest_run(
        ws, "add", printable(" ".join(items)), plan_all, progress, fetch=True, password=password
    )


def ingest(
    workspace: Path | None,
    paths: list[Path],
    password: str | None,
    fetch: bool,
    progress: Console,
    cluster: str | None = None,
) -> Report:
    ws = open_workspace(workspace).on_engine(cluster)
    chunk_tokens = ws.settings.ingest.chunk_tokens
    options = read_options(ws.settings.ingest)
    return ingest_run(
        ws,
        "ingest",
        " ".join(printable(str(path)) for path in paths),
        lambda: expand_paths(paths, password, chunk_tokens, options),
        progress,
        fetch,
        password,
    )


def search(workspace: Path | None, query: str, limit: int) -> list[dict[str, Any]]:
    from frontier.synthesize.retrieve import search_papers

    ws = open_workspace(workspace)
    with contextlib.closing(ws.connect()) as conn:
        return [hit.to_dict() for hit in search_papers(conn, query, limit)]


def show(
    workspace: Path | None, paper_id: str, page: int | None
) -> tuple[dict[str, Any] | None, str | None]:
    """The paper's details (None if unknown) and, when `page` is given, that page's text."""
    ws = open_workspace(workspace)
    with contextlib.closing(ws.connect()) as conn:
        paper = queries.paper_detail(conn, paper_id)
        text = queries.page_text(conn, paper_id, page) if paper and page else None
    return paper, text


def status_data(ws: Workspace) -> dict[str, Any]:
    with contextlib.closing(ws.connect()) as conn:
        return {
            "workspace": str(ws.root),
            "field": ws.settings.field.name,
            "topics": [t.slug for t in ws.settings.topics],
            "counts": queries.counts(conn),
            "rejected": queries.rejected_files(conn),
            "warnings": queries.warned_papers(conn),
            "runs": recent_runs(conn, 5),
            "model_checks": trust_report(conn, ws.settings),
        }


def status(workspace: Path | None) -> dict[str, Any]:
    return status_data(open_workspace(workspace))
