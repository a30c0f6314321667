"""The whole pipeline: `frontier demo` (offline, packaged sample) and `frontier update` (daily)."""

from __future__ import annotations

import contextlib
import datetime as dt
from importlib import resources
from pathlib import Path
from typing import Any

from rich.console import Console

from frontier import render_cli
from frontier.commands import _ingest, status_data
from frontier.commands_curate import curate_workspace, print_curation
from frontier.intake.discover import plan_discovery
from frontier.intake.expand import expand_paths
from frontier.intake.report import EXIT_FAILED, EXIT_OK, Report
from frontier.render import render_vault
from frontier.workspace import Workspace, init_workspace, open_workspace

SAMPLE_CORPUS = "sample_papers.jsonl"


def render_workspace(ws: Workspace) -> dict[str, int]:
    with contextlib.closing(ws.connect()) as conn:
        return render_vault(conn, ws.settings, ws.kb_dir)


def demo(directory: Path, json_out: bool, curate: bool, console: Console) -> int:
    """Ingest the packaged sample of arXiv metadata, curate it on the embedded model, render."""
    ws = (
        open_workspace(directory)
        if (directory / "frontier.toml").exists()
        else init_workspace(directory)
    )
    sample = resources.files("frontier.data").joinpath(SAMPLE_CORPUS)
    with resources.as_file(sample) as path:
        report = _ingest(
            ws,
            "demo",
            SAMPLE_CORPUS,
            lambda: expand_paths([path], None, ws.settings.ingest.chunk_tokens),
            console,
            fetch=False,
        )
    curation = curate_workspace(ws, console) if curate else None
    rendered = render_workspace(ws) if curate else None
    topic_page = ws.kb_dir / "topics" / f"{ws.settings.topics[0].slug}.md"
    data = status_data(ws)
    if json_out:
        render_cli.print_json(
            console,
            {
                "report": report.to_dict(),
                "status": data,
                "curation": curation,
                "render": rendered,
                "topic_page": str(topic_page) if curate else None,
            },
        )
    else:
        console.print(render_cli.summary_line(report))
        if curation is not None:
            print_curation(console, curation)
        counts: Any = data["counts"]
        console.print(
            f"Demo workspace: {ws.root}\n  papers {counts['papers']}, chunks {counts['chunks']}, "
            f"pages {counts['pages']}"
        )
        if curate:
            console.print(f"Topic page: {topic_page}")
        console.print(f'  try: frontier -w {ws.root} search "paged attention"')
    if curation and curation["failures"]:
        # the showcase still stands; `frontier curate` retries these and exits 1 while any remain
        console.print(
            f"{len(curation['failures'])} model calls failed; run `frontier -w {ws.root} curate` to retry them."
        )
    return report.exit_code()


def update(workspace: Path | None, paths: list[Path], console: Console) -> int:
    """discover (every topic, its window) -> ingest -> curate -> render; for a daily schedule."""
    ws = open_workspace(workspace)
    log = Console(record=True, width=120, force_terminal=False)
    both = _Tee(console, log)
    both.print(f"frontier update {dt.datetime.now().isoformat(timespec='seconds')} on {ws.root}")
    found = _ingest(
        ws,
        "update:discover",
        "all topics",
        lambda: plan_discovery(ws, ws.settings.topics),
        console,
        fetch=True,
    )
    if any(e.code == "arxiv" for e in found.entries):
        both.print("arXiv is unreachable or refused the query; going on with local sources.")
    both.print("discover: " + render_cli.summary_line(found))
    local = Report()
    watch = [*paths, *(Path(p).expanduser() for p in ws.settings.ingest.watch)]
    if watch:
        local = _ingest(
            ws,
            "update:ingest",
            " ".join(map(str, watch)),
            lambda: expand_paths(watch, None, ws.settings.ingest.chunk_tokens),
            console,
            fetch=False,
        )
        both.print("ingest: " + render_cli.summary_line(local))
    curation = curate_workspace(ws, console)
    print_curation(both, curation)  # type: ignore[arg-type]
    rendered = render_workspace(ws)
    both.print(f"render: {rendered} -> {ws.kb_dir}")
    _save_log(ws, log)
    codes = [found.exit_code(), local.exit_code(), EXIT_FAILED if curation["failures"] else EXIT_OK]
    return max(codes)


class _Tee:
    """Print to the terminal and to the run's log at once."""

    def __init__(self, *consoles: Console) -> None:
        self.consoles = consoles

    def print(self, *args: Any, **kwargs: Any) -> None:
        for console in self.consoles:
            console.print(*args, **kwargs)


def _save_log(ws: Workspace, log: Console) -> None:
    folder = ws.root / ".frontier" / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    (folder / f"update-{stamp}.log").write_text(log.export_text(), encoding="utf-8")
