"""Declarations of the pipeline commands: demo, update and curate."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from frontier.cli import output
from frontier.cli.options import ClusterOpt, JsonOpt, TopicOnlyOpt, done, options

app = typer.Typer()


@app.command()
def demo(
    ctx: typer.Context,
    directory: Annotated[Path, typer.Argument(help="Where to build the demo workspace.")] = Path(
        "frontier-demo"
    ),
    curate: Annotated[
        bool, typer.Option("--curate/--no-curate", help="Also curate and render.")
    ] = True,
    json_out: JsonOpt = False,
) -> None:
    """Build a demo KB from the sample shipped with frontier: ingest, curate, render (offline)."""
    from frontier.commands import pipeline

    opts = options(ctx)
    console = opts.console
    result = pipeline.demo(directory, curate, opts.progress)
    root = result.ws.root
    if json_out:
        output.print_json(
            console,
            {
                "report": result.report.to_dict(),
                "status": result.status,
                "curation": result.curation,
                "render": result.rendered,
                "topic_page": str(result.topic_page) if result.topic_page else None,
                "seconds": result.seconds,
            },
        )
    else:
        console.print(output.summary_line(result.report))
        if result.curation is not None:
            output.print_curation(console, result.curation)
        counts: Any = result.status["counts"]
        console.print(
            f"Demo workspace: {root}\n  papers {counts['papers']}, chunks {counts['chunks']}, "
            f"pages {counts['pages']}"
        )
        if result.topic_page:
            console.print(f"Topic page: {result.topic_page}")
        console.print("Stages: " + output.seconds_line(result.seconds))
        console.print(f'  try: frontier -w {root} search "paged attention"')
    if result.curation and result.curation["failures"]:
        # the showcase still stands; `frontier curate` retries these and exits 1 while any remain
        console.print(
            f"{len(result.curation['failures'])} model calls failed; "
            f"run `frontier -w {root} curate` to retry them."
        )
    done(result.exit_code())


@app.command()
def update(
    ctx: typer.Context,
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Local sources to ingest as well.")
    ] = None,
    cluster: ClusterOpt = None,
) -> None:
    """The daily pipeline: discover every topic within its window, ingest, curate, render."""
    from frontier.commands import pipeline

    opts = options(ctx)
    said: list[str] = []
    workspace: list[Any] = []

    def on_step(step: str, data: Any) -> None:
        if step == "start":
            workspace.append(data)
        for line in output.update_lines(step, data):
            opts.console.print(line)
            said.append(line)

    try:
        code = pipeline.update(
            opts.workspace, paths or [], opts.progress, on_step, cluster and cluster.value
        )
    finally:
        if workspace:
            pipeline.save_log(workspace[0], output.markup_to_text(said))
    done(code)


@app.command()
def digest(
    ctx: typer.Context,
    since: Annotated[
        str | None,
        typer.Option("--since", help="What changed from this date on (YYYY-MM-DD, UTC)."),
    ] = None,
    runs: Annotated[
        int | None, typer.Option("--runs", help="What the last N `frontier update` runs changed.")
    ] = None,
    topic: TopicOnlyOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """What changed in the KB since the last digest: new entries, gaps, conflicts, cost."""
    from frontier.commands import digest as digests

    opts = options(ctx)
    result = digests.digest(opts.workspace, since, runs, topic)
    output.print_data(
        opts.console, result.to_dict(), json_out, lambda c, _: output.print_digest(c, result)
    )


@app.command()
def curate(ctx: typer.Context, cluster: ClusterOpt = None, json_out: JsonOpt = False) -> None:
    """Triage new papers into topics, extract and verify claims, relate them to the KB, write entries."""
    from frontier.commands import curate as curation

    opts = options(ctx)
    result = curation.curate(
        opts.workspace, opts.use_cache, opts.progress, cluster and cluster.value
    )
    output.print_data(opts.console, result, json_out, output.print_curation)
    done(1 if result["failures"] else 0)
