"""The whole pipeline: `frontier demo` (offline, packaged sample) and `frontier update` (daily)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from rich.console import Console

from frontier.commands.curate import curate_workspace
from frontier.commands.digest import render_workspace, write_digest
from frontier.commands.intake import ingest_run, status_data
from frontier.curate.run import timed
from frontier.intake.discover import plan_discovery
from frontier.intake.expand import expand_paths, read_options
from frontier.intake.report import EXIT_FAILED, EXIT_OK, Report
from frontier.workspace import Workspace, init_workspace, open_workspace

SAMPLE_CORPUS = "sample_papers.jsonl"
# what `update` tells `on_step` after each step: (step name, its result)
StepCallback = Callable[[str, Any], None]


@dataclass
class DemoOutcome:
    ws: Workspace
    report: Report
    status: dict[str, Any]
    curation: dict[str, Any] | None
    rendered: dict[str, int] | None
    topic_page: Path | None
    seconds: dict[str, float]  # wall time of each stage: ingest, curate, render

    def exit_code(self) -> int:
        return self.report.exit_code()


def demo(directory: Path, curate: bool, progress: Console) -> DemoOutcome:
    """Ingest the packaged sample of arXiv metadata, curate it on the embedded model, render."""
    ws = (
        open_workspace(directory)
        if (directory / "frontier.toml").exists()
        else init_workspace(directory)
    )
    sample = resources.files("frontier.data").joinpath(SAMPLE_CORPUS)
    seconds: dict[str, float] = {}
    with resources.as_file(sample) as path, timed(seconds, "ingest"):
        report = ingest_run(
            ws,
            "demo",
            SAMPLE_CORPUS,
            lambda: expand_paths([path], None, ws.settings.ingest.chunk_tokens),
            progress,
            fetch=False,
        )
    curation = rendered = topic_page = None
    if curate:
        with timed(seconds, "curate"):
            curation = curate_workspace(ws, progress)
        with timed(seconds, "render"):
            rendered = render_workspace(ws)
        topic_page = ws.kb_dir / "topics" / f"{ws.settings.topics[0].slug}.md"
    return DemoOutcome(ws, report, status_data(ws), curation, rendered, topic_page, seconds)


def update(
    workspace: Path | None,
    paths: list[Path],
    progress: Console,
    on_step: StepCallback,
    cluster: str | None = None,
) -> int:
    """discover (every topic, its window) -> ingest -> curate -> render -> digest; for a daily
    schedule. `on_step` hears of each step as it ends: start (the workspace), discover and
    ingest (their reports), curate (counts and failures), render (counts and the vault's
    folder), digest (what changed since the last digest, written to kb/digests/)."""
    ws = open_workspace(workspace).on_engine(cluster)
    on_step("start", ws)
    found = ingest_run(
        ws,
        "update:discover",
        "all topics",
        lambda: plan_discovery(ws, ws.settings.topics),
        progress,
        fetch=True,
    )
    on_step("discover", found)
    local = Report()
    watch = [*paths, *(Path(p).expanduser() for p in ws.settings.ingest.watch)]
    if watch:
        local = ingest_run(
            ws,
            "update:ingest",
            " ".join(map(str, watch)),
            lambda: expand_paths(
                watch, None, ws.settings.ingest.chunk_tokens, read_options(ws.settings.ingest)
            ),
            progress,
            fetch=False,
        )
        on_step("ingest", local)
    curation = curate_workspace(ws, progress)
    on_step("curate", curation)
    on_step("render", {**render_workspace(ws), "kb": str(ws.kb_dir)})
    on_step("digest", write_digest(ws, "update:digest"))
    codes = [found.exit_code(), local.exit_code(), EXIT_FAILED if curation["failures"] else EXIT_OK]
    return max(codes)


def save_log(ws: Workspace, text: str) -> Path:
    """Keep what `update` said in `.frontier/logs/`, one file per run."""
    folder = ws.root / ".frontier" / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = folder / f"update-{stamp}.log"
    path.write_text(text, encoding="utf-8")
    return path
