"""Declarations of the synthesis commands: ask and map."""

from __future__ import annotations

from typing import Annotated

import typer

from frontier.cli import output
from frontier.cli.options import JsonTextOpt, ThinkOpt, done, options
from frontier.synthesize.presets import PRESETS

app = typer.Typer()

TopicOpt = Annotated[
    str | None, typer.Option("--topic", "-t", help="Only papers triaged into this topic.")
]
_PRESET_HELP = "Deep-dive preset: " + "; ".join(f"{k} ({v})" for k, v in PRESETS.items())


@app.command()
def ask(
    ctx: typer.Context,
    questions: Annotated[
        list[str] | None,
        typer.Argument(help="The question; more questions follow up on the same sources."),
    ] = None,
    topic: TopicOpt = None,
    preset: Annotated[str, typer.Option("--preset", help=_PRESET_HELP)] = "",
    follow_up: Annotated[
        bool,
        typer.Option("--follow-up", help="Ask over the sources of the previous answer."),
    ] = False,
    think: ThinkOpt = False,
    compare_thinking: Annotated[
        bool,
        typer.Option(
            "--compare-thinking",
            help="Answer the question with reasoning off and on, side by side, with the tokens, "
            "time and cost of each.",
        ),
    ] = False,
    json_out: JsonTextOpt = False,
) -> None:
    """Answer from the KB with [n] citations to paper and page (hybrid retrieval)."""
    from frontier.commands import synth
    from frontier.llm.records import LLMFailure

    opts = options(ctx)
    try:
        request = synth.AskRequest(
            questions or [],
            topic,
            preset,
            follow_up,
            think,
            use_cache=opts.use_cache,
            compare_thinking=compare_thinking,
        )
        answers = synth.ask(opts.workspace, request)
    except LLMFailure as failure:
        output.print_failure(opts.console, failure)
        raise typer.Exit(1) from None
    if json_out:
        output.print_json(opts.console, [a.to_dict() for a in answers])
    elif compare_thinking:
        output.print_thinking_compared(opts.console, answers)
    else:
        for answer in answers:
            output.print_answer(opts.console, answer, think, many=len(answers) > 1)


@app.command("map")
def research_map(
    ctx: typer.Context,
    topic: TopicOpt = None,
    since: Annotated[
        str | None, typer.Option("--since", help="Only papers dated on or after YYYY-MM-DD.")
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", "-n", help="At most this many papers, the newest.")
    ] = 40,
    think: ThinkOpt = False,
    json_out: JsonTextOpt = False,
) -> None:
    """Write a research map (overview, themes, chronology, open problems, takeaways) with
    checked citations to kb/maps/; open problems become proposed gaps."""
    from frontier.commands import synth

    opts = options(ctx)
    written = synth.research_map(
        opts.workspace, topic=topic, since=since, limit=limit, think=think, use_cache=opts.use_cache
    )
    if written is None:
        opts.console.print(
            "No papers to map (check --topic and --since, or run `frontier curate`)."
        )
        raise typer.Exit(1)
    if json_out:
        output.print_json(opts.console, written.report)
    else:
        output.print_map_summary(opts.console, written.rmap, written.report, think)
    done(0)
