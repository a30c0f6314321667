"""Command-line declarations of serve, site and export; `register` adds them to the main app."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from frontier import commands_web
from frontier.cli_kb import run_command


class Format(StrEnum):
    bibtex = "bibtex"
    csv = "csv"
    jsonl = "jsonl"


class What(StrEnum):
    papers = "papers"
    claims = "claims"
    entries = "entries"


def register(app: typer.Typer, ws_getter: Callable[[], Path | None], console: Console) -> None:
    """Add serve, site and export to `app`."""

    @app.command("serve")
    def serve(
        port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
        host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")] = (
            "127.0.0.1"
        ),
        public: Annotated[
            bool, typer.Option("--public", help="Allow a non-loopback --host (prints a warning).")
        ] = False,
        allow_edits: Annotated[
            bool,
            typer.Option("--allow-edits", help="Allow accepting or rejecting proposed gaps."),
        ] = False,
    ) -> None:
        """Browse the KB in a local web UI: topics, papers, claims, search, maps, ask, usage."""
        run_command(
            lambda: commands_web.serve(ws_getter(), host, port, public, allow_edits, console)
        )

    @app.command("site")
    def site(
        out: Annotated[Path, typer.Argument(help="Folder to write the site into.")],
    ) -> None:
        """Write the web UI's pages as a static site that opens from disk (search in the page)."""
        run_command(lambda: commands_web.site(ws_getter(), out, console))

    @app.command("export")
    def export(
        fmt: Annotated[Format, typer.Argument(help="bibtex, csv or jsonl.")],
        what: Annotated[
            What, typer.Option("--what", help="papers, claims or entries (bibtex: papers).")
        ] = What.papers,
        output: Annotated[
            Path | None, typer.Option("-o", "--output", help="File to write (default: stdout).")
        ] = None,
    ) -> None:
        """Export papers, verified claims or entries as BibTeX, CSV or JSON lines."""
        run_command(
            lambda: commands_web.export(ws_getter(), fmt.value, what.value, output, console)
        )
