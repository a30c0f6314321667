"""Declarations of the model commands: `llm status`, `llm ask`, `usage` and `cache clear`."""

from __future__ import annotations

from typing import Annotated

import typer

from frontier.cli import output
from frontier.cli.options import JsonOpt, ThinkOpt, done, options

app = typer.Typer()
llm_app = typer.Typer(help="The language model: status and direct questions.", no_args_is_help=True)
cache_app = typer.Typer(help="The LLM response cache.", no_args_is_help=True)
app.add_typer(llm_app, name="llm")
app.add_typer(cache_app, name="cache")


@llm_app.command("status")
def llm_status(ctx: typer.Context, json_out: JsonOpt = False) -> None:
    """Which model and endpoint are in use, and whether they answer."""
    from frontier.commands import llm

    opts = options(ctx)
    data = llm.llm_status(opts.workspace)
    output.print_data(opts.console, data, json_out, output.print_llm_status)
    done(0 if data["answers"] else 1)


@llm_app.command("ask")
def llm_ask(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="The question.")],
    think: ThinkOpt = False,
) -> None:
    """Ask the model directly (not the KB); prints the answer and a token summary."""
    from frontier.commands import llm
    from frontier.llm.records import LLMFailure

    opts = options(ctx)
    try:
        result, tag = llm.llm_ask(opts.workspace, question, think, opts.use_cache)
    except LLMFailure as failure:
        output.print_failure(opts.console, failure)
        raise typer.Exit(1) from None
    output.print_reply(opts.console, result, tag, think)


@app.command()
def usage(ctx: typer.Context, json_out: JsonOpt = False) -> None:
    """LLM usage: calls, cache hits, tokens and cost, per run and per purpose."""
    from frontier.commands import llm

    opts = options(ctx)
    data, priced = llm.usage(opts.workspace)
    if json_out:
        output.print_json(opts.console, data)
    else:
        output.print_usage(opts.console, data, priced)


@cache_app.command("clear")
def cache_clear(ctx: typer.Context) -> None:
    """Forget every cached LLM response."""
    from frontier.commands import llm

    opts = options(ctx)
    removed = llm.clear_cache(opts.workspace)
    opts.console.print(f"Removed {removed} cached LLM responses.")
