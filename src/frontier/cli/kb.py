"""Declarations of the KB commands: papers, claims, results, entities, render, and the gaps and
conflicts groups."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from frontier.cli import output
from frontier.cli.options import JsonOpt, TopicArg, TopicOnlyOpt, options
from frontier.errors import OptionsError

app = typer.Typer()
gaps_app = typer.Typer(
    help="Open questions each topic tracks: add, list, close, and review proposals.",
    no_args_is_help=True,
)
conflicts_app = typer.Typer(
    help="Disagreements between papers that a topic flags.", no_args_is_help=True
)
app.add_typer(gaps_app, name="gaps")
app.add_typer(conflicts_app, name="conflicts")

CsvOpt = Annotated[bool, typer.Option("--csv", help="Print CSV with a header row.")]
GapId = Annotated[int, typer.Argument(help="Gap id, as shown by `frontier gaps list`.")]
GapText = Annotated[str, typer.Argument(help="The open question.")]
ConflictText = Annotated[str, typer.Argument(help="What the papers disagree on.")]


@app.command("papers")
def papers(
    ctx: typer.Context,
    topic: Annotated[
        str | None, typer.Option("--topic", "-t", help="Only papers in this topic.")
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Papers with their topics, the triage reason and the stage (embedding or llm) that decided."""
    from frontier.commands import kb

    _print_found(ctx, lambda workspace: kb.papers(workspace, topic), json_out, output.print_papers)


@app.command("claims")
def claims(
    ctx: typer.Context,
    metric: Annotated[str | None, typer.Option(help="Metric contains this text.")] = None,
    model: Annotated[str | None, typer.Option(help="Measured model contains this.")] = None,
    hardware: Annotated[str | None, typer.Option(help="Hardware contains this text.")] = None,
    paper: Annotated[str | None, typer.Option(help="Paper id contains this text.")] = None,
    include_all: Annotated[
        bool, typer.Option("--all", help="Include unverified claims (marked as such).")
    ] = False,
    json_out: JsonOpt = False,
    csv_out: CsvOpt = False,
) -> None:
    """Numbers the papers claim; verified ones only unless --all. Filters ignore case."""
    from frontier.commands import kb

    _one_format(json_out, csv_out)
    opts = options(ctx)
    filters = {"metric": metric, "model": model, "hardware": hardware, "paper": paper}
    rows = kb.claims(opts.workspace, filters, include_all)
    _print_rows(opts.console, rows, json_out, csv_out, output.print_claims_csv, output.print_claims)


@app.command("results")
def results(
    ctx: typer.Context,
    metric: Annotated[
        str | None,
        typer.Option(
            metavar="FAMILY",
            help="throughput, request-rate, latency, ttft, tbt, goodput, memory, accuracy, "
            "perplexity, energy, cost or speedup.",
        ),
    ] = None,
    baseline: Annotated[
        str | None, typer.Option(metavar="NAME", help="Compared with this system (any case).")
    ] = None,
    model: Annotated[
        str | None, typer.Option(metavar="NAME", help="Measured on this model (any case).")
    ] = None,
    hardware: Annotated[
        str | None, typer.Option(metavar="NAME", help="Measured on this hardware (any case).")
    ] = None,
    topic: Annotated[
        str | None, typer.Option("--topic", "-t", help="Only papers in this topic.")
    ] = None,
    include_all: Annotated[
        bool, typer.Option("--all", help="Include unverified claims (marked as such).")
    ] = False,
    graph: Annotated[
        bool,
        typer.Option(
            "--graph", help="Who reports results over whom, on which metric, in which claims."
        ),
    ] = False,
    json_out: JsonOpt = False,
    csv_out: CsvOpt = False,
) -> None:
    """Results across papers: claims by metric family and baseline, sorted by value."""
    from frontier.commands import kb

    _one_format(json_out, csv_out)
    if graph and csv_out:
        raise OptionsError("--graph prints a list of comparisons or --json, not --csv")
    opts = options(ctx)
    filters = {"metric": metric, "baseline": baseline, "model": model, "hardware": hardware}
    if graph:
        found = kb.results_graph(opts.workspace, filters, topic, include_all)
        output.print_data(opts.console, found, json_out, output.print_results_graph)
        return
    rows = kb.results(opts.workspace, filters, topic, include_all)
    _print_rows(
        opts.console, rows, json_out, csv_out, output.print_results_csv, output.print_results
    )


@app.command("entities")
def entities(ctx: typer.Context, json_out: JsonOpt = False) -> None:
    """Tracked entities (organisations, models, hardware, methods) and their paper counts."""
    from frontier.commands import kb

    _print_found(ctx, kb.entities, json_out, output.print_entities)


@app.command("relations")
def relations(
    ctx: typer.Context,
    paper: Annotated[str | None, typer.Option(help="Paper id contains this text.")] = None,
    kind: Annotated[
        str | None, typer.Option(help="entity, gap, conflict, thesis, first or coverage.")
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """How papers relate to the KB, each with its evidence sentence and page, for auditing."""
    from frontier.commands import kb

    _print_found(
        ctx,
        lambda workspace: kb.relations(workspace, paper, kind),
        json_out,
        output.print_relations,
    )


@app.command("render")
def render(ctx: typer.Context, json_out: JsonOpt = False) -> None:
    """Write the markdown vault (kb/) from the store; files change only when their content does."""
    from frontier.commands import kb

    opts = options(ctx)
    counts = kb.render(opts.workspace)
    output.print_data(opts.console, counts, json_out, output.print_rendered)


@gaps_app.command("add")
def gaps_add(ctx: typer.Context, topic: TopicArg, text: GapText) -> None:
    """Add an open gap to a topic; adding the same text again changes nothing."""
    from frontier.commands import kb

    opts = options(ctx)
    output.print_added(opts.console, kb.gaps_add(opts.workspace, topic, text))


def _list_gaps(ctx: typer.Context, topic: str | None, status: str | None, json_out: bool) -> None:
    from frontier.commands import kb

    _print_found(
        ctx, lambda workspace: kb.gaps_list(workspace, topic, status), json_out, output.print_gaps
    )


@gaps_app.command("list")
def gaps_list(
    ctx: typer.Context,
    topic: TopicOnlyOpt = None,
    status: Annotated[str | None, typer.Option(help="open, closed, proposed or rejected.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Gaps with their status and the number of papers that bear on them."""
    _list_gaps(ctx, topic, status, json_out)


@gaps_app.command("proposed")
def gaps_proposed(
    ctx: typer.Context, topic: TopicOnlyOpt = None, json_out: JsonOpt = False
) -> None:
    """Gaps proposed from research maps' open problems, waiting for accept or reject."""
    _list_gaps(ctx, topic, "proposed", json_out)


def _move_gap(ctx: typer.Context, gap_id: int, action: str) -> None:
    from frontier.commands import kb

    opts = options(ctx)
    output.print_moved(opts.console, "Gap", kb.gaps_move(opts.workspace, gap_id, action))


@gaps_app.command("close")
def gaps_close(ctx: typer.Context, gap_id: GapId) -> None:
    """Close an open gap."""
    _move_gap(ctx, gap_id, "close")


@gaps_app.command("accept")
def gaps_accept(ctx: typer.Context, gap_id: GapId) -> None:
    """Accept a proposed gap: it becomes open and is tracked from now on."""
    _move_gap(ctx, gap_id, "accept")


@gaps_app.command("reject")
def gaps_reject(ctx: typer.Context, gap_id: GapId) -> None:
    """Reject a proposed gap."""
    _move_gap(ctx, gap_id, "reject")


@conflicts_app.command("add")
def conflicts_add(ctx: typer.Context, topic: TopicArg, text: ConflictText) -> None:
    """Flag a conflict in a topic; adding the same text again changes nothing."""
    from frontier.commands import kb

    opts = options(ctx)
    output.print_added(opts.console, kb.conflicts_add(opts.workspace, topic, text))


@conflicts_app.command("list")
def conflicts_list(ctx: typer.Context, json_out: JsonOpt = False) -> None:
    """Conflicts with their status and the papers that bear on them."""
    from frontier.commands import kb

    _print_found(ctx, kb.conflicts_list, json_out, output.print_conflicts)


@conflicts_app.command("detect")
def conflicts_detect(ctx: typer.Context, json_out: JsonOpt = False) -> None:
    """Flag verified claims that disagree in a comparable setting (curate does this too)."""
    from frontier.commands import curate

    opts = options(ctx)
    counts = curate.conflicts_detect(opts.workspace, opts.use_cache)
    output.print_data(opts.console, counts, json_out, output.print_conflicts_found)


@conflicts_app.command("close")
def conflicts_close(
    ctx: typer.Context,
    conflict_id: Annotated[int, typer.Argument(help="Conflict id, from `conflicts list`.")],
) -> None:
    """Close a conflict."""
    from frontier.commands import kb

    opts = options(ctx)
    output.print_moved(opts.console, "Conflict", kb.conflicts_close(opts.workspace, conflict_id))


def _one_format(json_out: bool, csv_out: bool) -> None:
    if json_out and csv_out:
        raise OptionsError("choose one of --json and --csv")


def _print_found(
    ctx: typer.Context,
    find: Callable[[Path | None], Any],
    json_out: bool,
    as_text: Callable[[Console, Any], None],
) -> None:
    """What `find` finds in the invocation's workspace, as JSON or as `as_text` prints it."""
    opts = options(ctx)
    output.print_data(opts.console, find(opts.workspace), json_out, as_text)


def _print_rows(
    console: Console,
    rows: list[dict[str, Any]],
    json_out: bool,
    csv_out: bool,
    as_csv: Callable[[list[dict[str, Any]]], None],
    as_text: Callable[[Console, list[dict[str, Any]]], None],
) -> None:
    """Rows as JSON, as CSV the way `as_csv` writes them, or as text the way `as_text` prints
    them."""
    if csv_out:
        as_csv(rows)
    else:
        output.print_data(console, rows, json_out, as_text)
