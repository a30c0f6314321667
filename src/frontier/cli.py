"""The `frontier` command line: parse arguments, call one function per command, print."""

from __future__ import annotations

import errno
import os
import sqlite3
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from frontier import (
    cli_kb,
    cli_synth,
    cli_web,
    commands,
    commands_curate,
    commands_llm,
    commands_pipeline,
)
from frontier.config import ConfigError
from frontier.workspace import WorkspaceError

app = typer.Typer(
    help="frontier keeps a living knowledge base of a research field.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err = Console(stderr=True, soft_wrap=True)
_state: dict[str, object] = {"workspace": None, "use_cache": True}
llm_app = typer.Typer(help="The language model: status and direct questions.", no_args_is_help=True)
cache_app = typer.Typer(help="The LLM response cache.", no_args_is_help=True)
app.add_typer(llm_app, name="llm")
app.add_typer(cache_app, name="cache")

WorkspaceOpt = Annotated[
    Path | None,
    typer.Option(
        "-w", "--workspace", help="Workspace folder (default: found from the current folder up)."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
PasswordOpt = Annotated[
    str | None, typer.Option("--password", help="User password for encrypted PDFs.")
]


@app.callback()
def main_options(
    workspace: WorkspaceOpt = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the LLM cache.")
    ] = False,
) -> None:
    _state["workspace"] = workspace
    _state["use_cache"] = not no_cache


def _ws() -> Path | None:
    return _state["workspace"]  # type: ignore[return-value]


cli_kb.register(app, _ws, console, lambda: bool(_state["use_cache"]))
cli_web.register(app, _ws, console)
cli_synth.register(app, _ws, lambda: bool(_state["use_cache"]), console)


def _exit(code: int) -> None:
    raise typer.Exit(code)


@app.command()
def init(
    directory: Annotated[Path, typer.Argument(help="Folder to create the workspace in.")] = Path(
        "."
    ),
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite an existing frontier.toml.")
    ] = False,
) -> None:
    """Create a workspace: a commented frontier.toml and an empty KB."""
    ws = commands.init(directory, force)
    console.print(
        f"Created workspace {ws.root}\n  config: {ws.config_path}\n  database: {ws.db_path}"
    )


@app.command()
def discover(
    topic: Annotated[
        list[str] | None, typer.Option("--topic", "-t", help="Only these topic slugs.")
    ] = None,
    days: Annotated[
        int | None, typer.Option(help="Window in days (default: each topic's window).")
    ] = None,
    max_results: Annotated[
        int | None, typer.Option("--max", help="At most this many per topic.")
    ] = None,
    metadata_only: Annotated[
        bool, typer.Option("--metadata-only", help="Do not download PDFs.")
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Find new papers on arXiv for each topic's query and window; read them in full."""
    report = commands.discover(_ws(), topic or [], days, max_results, not metadata_only, console)
    _exit(commands.show_report(console, report, json_out))


@app.command()
def add(
    items: Annotated[
        list[str], typer.Argument(help="arXiv ids, PDF files, URLs, or saved .html/.md/.txt.")
    ],
    password: PasswordOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Add single items: an arXiv id, a PDF (file or URL), a web page or a saved article."""
    report = commands.add(_ws(), items, password, console)
    _exit(commands.show_report(console, report, json_out))


@app.command()
def ingest(
    paths: Annotated[
        list[Path], typer.Argument(help="PDF folders or files, .jsonl, .bib, or .txt of abstracts.")
    ],
    password: PasswordOpt = None,
    fetch: Annotated[
        bool, typer.Option("--fetch/--no-fetch", help="Download PDFs that records link to.")
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Ingest local sources: PDFs are read in full on all cores; records are stored as metadata."""
    report = commands.ingest(_ws(), paths, password, fetch, console)
    _exit(commands.show_report(console, report, json_out))


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="Words to look for.")],
    limit: Annotated[int, typer.Option("--limit", "-n", help="Number of papers.")] = 10,
    json_out: JsonOpt = False,
) -> None:
    """Search titles, abstracts and full text (BM25 and dense, fused); best papers first."""
    commands.search(_ws(), query, limit, json_out, console)


@app.command()
def show(
    paper_id: Annotated[str, typer.Argument(help="Paper id, e.g. 2309.06180.")],
    page: Annotated[int | None, typer.Option(help="Print the text of this page.")] = None,
    json_out: JsonOpt = False,
) -> None:
    """Show one paper: metadata, sections, warnings, or one page of its text."""
    _exit(commands.show(_ws(), paper_id, page, json_out, console))


@app.command()
def status(json_out: JsonOpt = False) -> None:
    """Counts (papers, pages, chunks, rejected files), problems and the last runs."""
    commands.status(_ws(), json_out, console)


@app.command()
def demo(
    directory: Annotated[Path, typer.Argument(help="Where to build the demo workspace.")] = Path(
        "frontier-demo"
    ),
    curate: Annotated[
        bool, typer.Option("--curate/--no-curate", help="Also curate and render.")
    ] = True,
    json_out: JsonOpt = False,
) -> None:
    """Build a demo KB from the sample shipped with frontier: ingest, curate, render (offline)."""
    _exit(commands_pipeline.demo(directory, json_out, curate, console))


@app.command()
def update(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Local sources to ingest as well.")
    ] = None,
) -> None:
    """The daily pipeline: discover every topic within its window, ingest, curate, render."""
    _exit(commands_pipeline.update(_ws(), paths or [], console))


@app.command()
def curate(json_out: JsonOpt = False) -> None:
    """Triage new papers into topics, extract and verify claims, relate them to the KB, write entries."""
    _exit(commands_curate.curate(_ws(), json_out, bool(_state["use_cache"]), console))


@llm_app.command("status")
def llm_status(json_out: JsonOpt = False) -> None:
    """Which model and endpoint are in use, and whether they answer."""
    _exit(commands_llm.llm_status(_ws(), json_out, console))


@llm_app.command("ask")
def llm_ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    think: Annotated[
        bool, typer.Option("--think", help="Switch the model's reasoning on.")
    ] = False,
) -> None:
    """Ask the model directly (not the KB); prints the answer and a token summary."""
    _exit(commands_llm.llm_ask(_ws(), question, think, bool(_state["use_cache"]), console))


@app.command()
def usage(json_out: JsonOpt = False) -> None:
    """LLM usage: calls, cache hits, tokens and cost, per run and per purpose."""
    commands_llm.usage_report(_ws(), json_out, console)


@cache_app.command("clear")
def cache_clear() -> None:
    """Forget every cached LLM response."""
    commands_llm.clear_cache(_ws(), console)


def main() -> None:
    try:
        app()
    except (WorkspaceError, ConfigError) as exc:
        err.print(f"[red]error:[/] {exc}")
        sys.exit(1)
    except (sqlite3.OperationalError, OSError) as exc:
        if not _out_of_space(exc):
            _internal_error(exc)
        err.print(
            f"[red]error:[/] no space left where the KB lives ({exc}); what was stored before is "
            "intact. Free some space and run the command again to resume."
        )
        sys.exit(1)
    except KeyboardInterrupt:
        err.print(
            "[yellow]interrupted[/] — everything stored so far is kept; run the command again to resume"
        )
        sys.exit(130)
    except Exception as exc:  # the last line of defence: one clear line, details on request
        _internal_error(exc)


def _out_of_space(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return True
    return isinstance(exc, sqlite3.OperationalError) and "disk is full" in str(exc)


def _internal_error(exc: BaseException) -> NoReturn:
    if os.environ.get("FRONTIER_DEBUG"):
        raise exc
    err.print(
        f"[red]internal error:[/] {type(exc).__name__}: {exc} (set FRONTIER_DEBUG=1 for details)"
    )
    sys.exit(3)
