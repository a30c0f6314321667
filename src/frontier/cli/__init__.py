"""The `frontier` command line: parse arguments, call one function of `frontier.commands` per
command, print the result. Errors end as one line on stderr with the documented exit code."""

from __future__ import annotations

import errno
import os
import sqlite3
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup

from frontier.cli import intake, kb, llm, output, pipeline, synth, web
from frontier.cli.options import NoCacheOpt, Options, WorkspaceOpt
from frontier.errors import (
    EXIT_CODES,
    EXIT_FAILED,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    FrontierError,
)

if TYPE_CHECKING:
    # typer carries its own copy of click, whose Context its groups are invoked with
    from typer._click import Context as ClickContext

GROUPS = (intake, pipeline, kb, synth, web, llm)


class FrontierGroup(TyperGroup):
    """The main command group; the one place a command's failure becomes its exit code."""

    def invoke(self, ctx: ClickContext) -> Any:
        try:
            return super().invoke(ctx)
        except FrontierError as exc:
            output.error(str(exc))
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            output.interrupted()
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except (sqlite3.OperationalError, OSError) as exc:
            if not _out_of_space(exc):
                _internal_error(exc)
            output.out_of_space(exc)
            raise typer.Exit(EXIT_FAILED) from None
        except Exception as exc:  # the last line of defence: one clear line, details on request
            if _from_the_parser(exc):
                raise  # --help, a bad option, an explicit exit: the parser ends those itself
            _internal_error(exc)


def _from_the_parser(exc: BaseException) -> bool:
    return type(exc).__module__.split(".")[0] in ("typer", "click")


def _out_of_space(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return True
    return isinstance(exc, sqlite3.OperationalError) and "disk is full" in str(exc)


def _internal_error(exc: BaseException) -> None:
    if os.environ.get("FRONTIER_DEBUG"):
        raise exc
    output.internal_error(exc)
    raise typer.Exit(EXIT_INTERNAL) from None


def exit_codes_epilog() -> str:
    """The exit code table for `--help`; typer keeps paragraphs, so one code a paragraph."""
    rows = [f"{code:>3}  {meaning}" for code, meaning in EXIT_CODES.items()]
    return "\n\n".join(["Exit codes, the same for every command:", *rows])


app = typer.Typer(
    cls=FrontierGroup,
    help="frontier keeps a living knowledge base of a research field.",
    epilog=exit_codes_epilog(),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
for group in GROUPS:
    app.add_typer(group.app)


@app.callback()
def main_options(
    ctx: typer.Context, workspace: WorkspaceOpt = None, no_cache: NoCacheOpt = False
) -> None:
    ctx.obj = Options(workspace=workspace, use_cache=not no_cache)


def main() -> None:
    app()


__all__ = ["app", "main"]
