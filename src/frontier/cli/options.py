"""What every command shares: the global options (workspace, cache) and the option types."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from frontier.cli import output


@dataclass
class Options:
    """The global options of one invocation, the console its results go to and the one its
    progress bars go to."""

    workspace: Path | None = None
    use_cache: bool = True
    console: Console = field(default_factory=output.stdout_console)
    progress: Console = field(default_factory=output.progress_console)


def options(ctx: typer.Context) -> Options:
    """The invocation's options, as the main callback set them."""
    found = ctx.find_object(Options)
    if found is None:
        found = ctx.ensure_object(Options)
    return found


def done(code: int) -> None:
    """End the command with `code` (nothing to do for 0)."""
    if code:
        raise typer.Exit(code)


WorkspaceOpt = Annotated[
    Path | None,
    typer.Option(
        "-w", "--workspace", help="Workspace folder (default: found from the current folder up)."
    ),
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the LLM cache.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
JsonTextOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
PasswordOpt = Annotated[
    str | None, typer.Option("--password", help="User password for encrypted PDFs.")
]


class EngineName(StrEnum):
    local = "local"
    ray = "ray"


ClusterOpt = Annotated[
    EngineName | None,
    typer.Option(
        "--cluster",
        help="Where the CPU work (reading PDFs, embedding chunks) runs: local or ray; "
        "overrides cluster.engine.",
    ),
]
TopicArg = Annotated[str, typer.Argument(help="Topic slug, as in frontier.toml.")]
TopicOnlyOpt = Annotated[str | None, typer.Option("--topic", "-t", help="Only this topic.")]
ThinkOpt = Annotated[
    bool, typer.Option("--think", help="Switch the model's reasoning on and print it apart.")
]
