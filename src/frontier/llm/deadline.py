"""Model work bounded by a wall-clock deadline (a `time.monotonic()` value): a call or a stream
that runs past it is cancelled, which closes its request, so the server stops generating."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable
from typing import TypeVar

T = TypeVar("T")
DEADLINE_REASON = "the answer's deadline passed"
READER_GONE = "the reader went away"


class DeadlinePassed(Exception):
    """The deadline came before the work ended."""


def seconds_left(deadline: float | None) -> float | None:
    return None if deadline is None else deadline - time.monotonic()


async def before(deadline: float | None, work: Awaitable[T]) -> T:
    """What `work` gives, or DeadlinePassed when the deadline comes first (the work cancelled)."""
    left = seconds_left(deadline)
    if left is None:
        return await work
    task = asyncio.ensure_future(work)
    why = READER_GONE
    try:
        done, _ = await asyncio.wait({task}, timeout=max(left, 0.0))
        if not done:
            why = DEADLINE_REASON
            raise DeadlinePassed
        return task.result()
    finally:
        await _cancelled(task, why)


async def stream_before(deadline: float | None, stream: AsyncIterator[T]) -> AsyncIterator[T]:
    """The stream's items until the deadline, then DeadlinePassed. The stream is read in a task
    of its own, so cancelling it (at the deadline, or when the reader goes) always reaches the
    request it is waiting on, whatever the reader is doing at that moment."""
    if deadline is None:
        async for item in stream:
            yield item
        return
    items: asyncio.Queue[tuple[str, object]] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for item in stream:
                items.put_nowait(("item", item))
        except Exception as exc:  # handed to the reader, raised there
            items.put_nowait(("error", exc))
        else:
            items.put_nowait(("end", None))

    task = asyncio.create_task(pump())
    why = READER_GONE
    try:
        while True:
            left = deadline - time.monotonic()
            try:
                kind, value = await asyncio.wait_for(items.get(), max(left, 0.0))
            except TimeoutError:
                why = DEADLINE_REASON
                raise DeadlinePassed from None
            if kind == "end":
                return
            if kind == "error":
                raise value  # type: ignore[misc]
            yield value  # type: ignore[misc]
    finally:
        await _cancelled(task, why)


async def _cancelled(task: asyncio.Task[T], why: str) -> None:
    """Cancel the task and wait until it has ended (recorded its call, closed its request),
    even while the waiting task is itself being cancelled: its caller closes what the call
    records into as soon as this returns."""
    if task.done():
        return
    task.cancel(why)
    while not task.done():
        # a cancel scope cancels every await of a cancelled task again: wait on regardless
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait({task})
