"""Many calls at once, at most max_in_flight in the air, with a progress bar. A failed call
yields its LLMFailure in place; Ctrl-C cancels what is pending and keeps what finished."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from frontier.llm.records import LLMFailure

I = TypeVar("I")  # noqa: E741
R = TypeVar("R")


async def run_bounded(
    items: Sequence[I],
    work: Callable[[I], Awaitable[R]],
    limit: int,
    description: str = "llm",
    console: Console | None = None,
) -> list[R | LLMFailure]:
    """Results in input order; each item is either its result or the failure it ended with."""
    gate = asyncio.Semaphore(limit)
    not_run = LLMFailure("cancelled", "not run")
    # a sentinel, not None: a call may legitimately return None (a candidate the model rejects)
    results: list[R | LLMFailure] = [not_run] * len(items)
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console or Console(stderr=True),
        transient=True,
    )

    async def one(index: int, item: I, task: TaskID) -> None:
        async with gate:
            try:
                results[index] = await work(item)
            except LLMFailure as failure:
                results[index] = failure
            progress.advance(task)

    with progress:
        task = progress.add_task(description, total=len(items))
        jobs = [asyncio.create_task(one(i, item, task)) for i, item in enumerate(items)]
        try:
            await asyncio.gather(*jobs)
        except BaseException:
            for job in jobs:
                job.cancel()
            await asyncio.gather(*jobs, return_exceptions=True)
            raise
    return results


async def gather_bounded(
    items: Sequence[I], work: Callable[[I], Awaitable[R]], limit: int
) -> list[R | LLMFailure]:
    """`run_bounded` without a progress bar, for the few calls of one answer, map or pass."""
    return await run_bounded(items, work, limit, console=Console(stderr=True, quiet=True))


async def warm_then_bounded(
    items: Sequence[I], work: Callable[[I], Awaitable[R]], limit: int
) -> list[R | LLMFailure]:
    """Calls whose prompts share a long prefix: the first alone, so the server has the prefix
    cached when the rest go out together."""
    first = await gather_bounded(items[:1], work, 1)
    return first + await gather_bounded(items[1:], work, limit)
