"""How command results look in a terminal (tables) and as JSON."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from frontier.intake.report import Report

_STYLE = {
    "stored": "green",
    "warning": "yellow",
    "updated": "cyan",
    "duplicate": "dim",
    "rejected": "red",
    "failed": "red",
}


def note_interrupted() -> None:
    """What Ctrl-C leaves behind, said once on stderr (the CLI then exits with 130)."""
    Console(stderr=True, soft_wrap=True).print(
        "[yellow]interrupted[/] — everything finished so far is stored; run the same command again to resume"
    )


def print_json(console: Console, data: Any) -> None:
    console.print_json(json.dumps(data, default=str))


def print_report(console: Console, report: Report, *, verbose_limit: int = 200) -> None:
    """Each item with its outcome, then one summary line."""
    table = Table(title=None, show_lines=False, expand=False)
    table.add_column("outcome")
    table.add_column("item", overflow="fold")
    table.add_column("detail", overflow="fold")
    shown = [e for e in report.entries if e.outcome != "duplicate"] or report.entries
    for entry in shown[:verbose_limit]:
        style = _STYLE.get(entry.outcome, "")
        table.add_row(f"[{style}]{entry.outcome}[/]", escape(entry.item), escape(entry.message))
    if report.entries:
        console.print(table)
    if len(shown) > verbose_limit:
        console.print(f"... and {len(shown) - verbose_limit} more")
    console.print(summary_line(report))


def summary_line(report: Report) -> str:
    counts = report.counts()
    if not report.entries:
        return "Nothing to do."
    parts = [f"{counts[name]} {name}" for name in _STYLE if counts.get(name)]
    tail = "" if report.new_or_changed else " Nothing new was stored."
    return f"Summary: {', '.join(parts)}.{tail}"


def print_hits(console: Console, hits: list[dict[str, Any]]) -> None:
    if not hits:
        console.print("No matches.")
        return
    table = Table()
    for column in ("#", "id", "title", "page", "snippet"):
        table.add_column(column, overflow="fold")
    for rank, hit in enumerate(hits, start=1):
        page = "" if hit["page"] is None else str(hit["page"])
        table.add_row(
            str(rank), escape(hit["id"]), escape(hit["title"]), page, escape(hit["snippet"])
        )
    console.print(table)


def print_status(console: Console, status: dict[str, Any]) -> None:
    counts = status["counts"]
    console.print(f"[bold]{status['field']}[/] — workspace {status['workspace']}")
    console.print(
        f"papers {counts['papers']} ({counts['with_full_text']} with full text), pages {counts['pages']}, "
        f"chunks {counts['chunks']}, with warnings {counts['with_warnings']}, "
        f"rejected files {counts['rejected_files']}"
    )
    console.print(
        f"curated: {counts['in_field']} in the field, {counts['out_of_field']} out; "
        f"claims {counts['claims_verified']} verified, {counts['claims_unverified']} unverified; "
        f"entries {counts['entries']}"
    )
    if status["rejected"]:
        table = Table(title="Rejected")
        table.add_column("item", overflow="fold")
        table.add_column("reason", overflow="fold")
        for row in status["rejected"]:
            table.add_row(row["item"], row["reason"])
        console.print(table)
    if status["warnings"]:
        table = Table(title="Stored with warnings")
        table.add_column("paper")
        table.add_column("warnings", overflow="fold")
        for row in status["warnings"]:
            table.add_row(row["id"], "; ".join(row["warnings"]))
        console.print(table)
    runs = Table(title="Last runs")
    for column in ("id", "command", "started", "status", "summary"):
        runs.add_column(column, overflow="fold")
    for run in status["runs"]:
        summary = ", ".join(f"{k} {v}" for k, v in run["summary"].get("counts", {}).items())
        runs.add_row(str(run["id"]), run["command"], run["started_at"], run["status"], summary)
    console.print(runs)


def print_paper(console: Console, paper: dict[str, Any]) -> None:
    flag = " (provisional title)" if paper["title_provisional"] else ""
    console.print(f"[bold]{paper['title']}[/]{flag}")
    facts = [
        ("id", paper["id"]),
        ("arXiv", paper["arxiv_id"]),
        ("version", paper["arxiv_version"]),
        ("versions seen", ", ".join(f"v{v}" for v in paper["versions"])),
        ("DOI", paper["doi"]),
        ("authors", ", ".join(paper["authors"])),
        ("published", paper["published"]),
        ("categories", ", ".join(paper["categories"])),
        ("kind", paper["kind"]),
        ("status", paper["status"]),
        ("pages", paper["n_pages"]),
        ("chunks", paper["chunks"]),
        ("site", paper["site"]),
        ("url", paper["url"]),
        ("collection", paper["collection"]),
    ]
    for label, value in facts:
        if value not in (None, "", 0):
            console.print(f"  {label:<14} {value}")
    for warning in paper["warnings"]:
        console.print(f"  [yellow]warning[/] {warning}")
    if paper["sections"]:
        names = [
            f"{s['number']} {s['title']} (p{s['page_start']})".strip() for s in paper["sections"]
        ]
        console.print("  sections       " + " · ".join(names))
    if paper["abstract"]:
        console.print(f"\n{paper['abstract']}")
