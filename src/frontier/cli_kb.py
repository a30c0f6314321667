"""Command-line declarations of the KB commands; `register` adds them to the main app."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from frontier import commands_curate, commands_kb
from frontier.commands_kb import KBError

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
TopicArg = Annotated[str, typer.Argument(help="Topic slug, as in frontier.toml.")]
GapId = Annotated[int, typer.Argument(help="Gap id, as shown by `frontier gaps list`.")]
_err = Console(stderr=True, soft_wrap=True)


def run_command(call: Callable[[], int], errors: tuple[type[Exception], ...] = (KBError,)) -> None:
    """Run one command; an error of `errors` becomes one red line on stderr and exit code 1."""
    try:
        code = call()
    except errors as exc:
        _err.print(f"[red]error:[/] {escape(str(exc))}")
        raise typer.Exit(1) from None
    if code:
        raise typer.Exit(code)


def register(
    app: typer.Typer,
    ws_getter: Callable[[], Path | None],
    console: Console,
    cache_getter: Callable[[], bool] = lambda: True,
) -> None:
    """Add papers, claims, gaps, conflicts, entities and render to `app`."""
    _register_listings(app, ws_getter, console)
    _register_gaps(app, ws_getter, console)
    _register_conflicts(app, ws_getter, console, cache_getter)


def _register_listings(
    app: typer.Typer, ws_getter: Callable[[], Path | None], console: Console
) -> None:
    @app.command("papers")
    def papers(
        topic: Annotated[
            str | None, typer.Option("--topic", "-t", help="Only papers in this topic.")
        ] = None,
        json_out: JsonOpt = False,
    ) -> None:
        """Papers with their topics, the triage reason and the stage (embedding or llm) that decided."""
        run_command(lambda: commands_kb.papers(ws_getter(), topic, json_out, console))

    @app.command("claims")
    def claims(
        metric: Annotated[str | None, typer.Option(help="Metric contains this text.")] = None,
        model: Annotated[str | None, typer.Option(help="Measured model contains this.")] = None,
        hardware: Annotated[str | None, typer.Option(help="Hardware contains this text.")] = None,
        paper: Annotated[str | None, typer.Option(help="Paper id contains this text.")] = None,
        include_all: Annotated[
            bool, typer.Option("--all", help="Include unverified claims (marked as such).")
        ] = False,
        json_out: JsonOpt = False,
        csv_out: Annotated[
            bool, typer.Option("--csv", help="Print CSV with a header row.")
        ] = False,
    ) -> None:
        """Numbers the papers claim; verified ones only unless --all. Filters ignore case."""
        if json_out and csv_out:
            _err.print("[red]error:[/] choose one of --json and --csv")
            raise typer.Exit(2)
        output = "json" if json_out else "csv" if csv_out else "table"
        filters = {"metric": metric, "model": model, "hardware": hardware, "paper": paper}
        run_command(lambda: commands_kb.claims(ws_getter(), filters, include_all, output, console))

    @app.command("entities")
    def entities(json_out: JsonOpt = False) -> None:
        """Tracked entities (organisations, models, hardware, methods) and their paper counts."""
        run_command(lambda: commands_kb.entities(ws_getter(), json_out, console))

    @app.command("render")
    def render(json_out: JsonOpt = False) -> None:
        """Write the markdown vault (kb/) from the store; files change only when their content does."""
        run_command(lambda: commands_kb.render(ws_getter(), json_out, console))


def _register_gaps(
    app: typer.Typer, ws_getter: Callable[[], Path | None], console: Console
) -> None:
    gaps_app = typer.Typer(
        help="Open questions each topic tracks: add, list, close, and review proposals.",
        no_args_is_help=True,
    )
    app.add_typer(gaps_app, name="gaps")

    @gaps_app.command("add")
    def add(
        topic: TopicArg, text: Annotated[str, typer.Argument(help="The open question.")]
    ) -> None:
        """Add an open gap to a topic; adding the same text again changes nothing."""
        run_command(lambda: commands_kb.gaps_add(ws_getter(), topic, text, console))

    @gaps_app.command("list")
    def list_(
        topic: Annotated[str | None, typer.Option("--topic", "-t", help="Only this topic.")] = None,
        status: Annotated[
            str | None, typer.Option(help="open, closed, proposed or rejected.")
        ] = None,
        json_out: JsonOpt = False,
    ) -> None:
        """Gaps with their status and the number of papers that bear on them."""
        run_command(lambda: commands_kb.gaps_list(ws_getter(), topic, status, json_out, console))

    @gaps_app.command("proposed")
    def proposed(
        topic: Annotated[str | None, typer.Option("--topic", "-t", help="Only this topic.")] = None,
        json_out: JsonOpt = False,
    ) -> None:
        """Gaps proposed from research maps' open problems, waiting for accept or reject."""
        run_command(
            lambda: commands_kb.gaps_list(ws_getter(), topic, "proposed", json_out, console)
        )

    @gaps_app.command("close")
    def close(gap_id: GapId) -> None:
        """Close an open gap."""
        run_command(lambda: commands_kb.gaps_close(ws_getter(), gap_id, console))

    @gaps_app.command("accept")
    def accept(gap_id: GapId) -> None:
        """Accept a proposed gap: it becomes open and is tracked from now on."""
        run_command(lambda: commands_kb.gaps_accept(ws_getter(), gap_id, console))

    @gaps_app.command("reject")
    def reject(gap_id: GapId) -> None:
        """Reject a proposed gap."""
        run_command(lambda: commands_kb.gaps_reject(ws_getter(), gap_id, console))


def _register_conflicts(
    app: typer.Typer,
    ws_getter: Callable[[], Path | None],
    console: Console,
    cache_getter: Callable[[], bool],
) -> None:
    conflicts_app = typer.Typer(
        help="Disagreements between papers that a topic flags.", no_args_is_help=True
    )
    app.add_typer(conflicts_app, name="conflicts")

    @conflicts_app.command("add")
    def add(
        topic: TopicArg, text: Annotated[str, typer.Argument(help="What the papers disagree on.")]
    ) -> None:
        """Flag a conflict in a topic; adding the same text again changes nothing."""
        run_command(lambda: commands_kb.conflicts_add(ws_getter(), topic, text, console))

    @conflicts_app.command("list")
    def list_(json_out: JsonOpt = False) -> None:
        """Conflicts with their status and the papers that bear on them."""
        run_command(lambda: commands_kb.conflicts_list(ws_getter(), json_out, console))

    @conflicts_app.command("detect")
    def detect(json_out: JsonOpt = False) -> None:
        """Flag verified claims that disagree in a comparable setting (curate does this too)."""
        run_command(
            lambda: commands_curate.conflicts_detect(ws_getter(), json_out, cache_getter(), console)
        )

    @conflicts_app.command("close")
    def close(
        conflict_id: Annotated[int, typer.Argument(help="Conflict id, from `conflicts list`.")],
    ) -> None:
        """Close a conflict."""
        run_command(lambda: commands_kb.conflicts_close(ws_getter(), conflict_id, console))
