"""Command-line declarations of the synthesis commands; `register` adds them to the main app."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from frontier import commands_synth
from frontier.cli_kb import run_command
from frontier.commands_synth import AskError
from frontier.synthesize.ask import PRESETS

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
ThinkOpt = Annotated[
    bool, typer.Option("--think", help="Switch the model's reasoning on and print it apart.")
]
TopicOpt = Annotated[
    str | None, typer.Option("--topic", "-t", help="Only papers triaged into this topic.")
]
_PRESET_HELP = "Deep-dive preset: " + "; ".join(f"{k} ({v})" for k, v in PRESETS.items())


def _run(call: Callable[[], int]) -> None:
    run_command(call, (AskError,))


def register(
    app: typer.Typer,
    ws_getter: Callable[[], Path | None],
    cache_getter: Callable[[], bool],
    console: Console,
) -> None:
    """Add `ask` and `map` to `app`."""

    @app.command()
    def ask(
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
        json_out: JsonOpt = False,
    ) -> None:
        """Answer from the KB with [n] citations to paper and page (hybrid retrieval)."""
        _run(
            lambda: commands_synth.ask(
                ws_getter(),
                questions or [],
                topic=topic,
                preset=preset,
                follow_up=follow_up,
                think=think,
                use_cache=cache_getter(),
                json_out=json_out,
                console=console,
            )
        )

    @app.command("map")
    def research_map(
        topic: TopicOpt = None,
        since: Annotated[
            str | None, typer.Option("--since", help="Only papers dated on or after YYYY-MM-DD.")
        ] = None,
        limit: Annotated[
            int, typer.Option("--limit", "-n", help="At most this many papers, the newest.")
        ] = 40,
        think: ThinkOpt = False,
        json_out: JsonOpt = False,
    ) -> None:
        """Write a research map (overview, themes, chronology, open problems, takeaways) with
        checked citations to kb/maps/; open problems become proposed gaps."""
        _run(
            lambda: commands_synth.research_map(
                ws_getter(),
                topic=topic,
                since=since,
                limit=limit,
                think=think,
                use_cache=cache_getter(),
                json_out=json_out,
                console=console,
            )
        )
