"""Model work bounded by a wall-clock deadline (a `time.monotonic()` value): a call or a stream
that runs past it is cancelled, which closes its request, so the server stops generating. The
work runs in a task of its own, which records why it was cancelled (`cancel_reason`)."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import AsyncIterator, Awaitable
from typing import Any, Literal, TypeVar

T = TypeVar("T")
# what the task reading a stream hands its reader: an item, the error it ended with, or its end
_Next = tuple[Literal["item"], T] | tuple[Literal["error"], Exception] | tuple[Literal["end"], None]
DEADLINE_REASON = "the answer's deadline passed"
READER_GONE = "the reader went away"

# why the work of a task was cancelled: a box the task shares with the code that cancels it
# (an exception's message does not survive the HTTP client's own cancellation handling)
_reason: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "frontier_cancel_reason", default=None
)


class DeadlinePassed(Exception):
    """The deadline came before the work ended."""


def cancel_reason() -> str:
    """Why the work running now is being cancelled: its deadline, or its reader left."""
    box = _reason.get()
    return box[0] if box else READER_GONE


def _started(work: Awaitable[T]) -> tuple[asyncio.Future[T], list[str]]:
    """The work in a task of its own (which runs in a copy of the context as it is now), and
    the box that says why it was cancelled."""
    box = [READER_GONE]
    token = _reason.set(box)
    try:
        task = asyncio.ensure_future(work)
    finally:
        _reason.reset(token)  # the task keeps the box; this task does not
    return task, box


async def before(deadline: float | None, work: Awaitable[T]) -> T:
    """What `work` gives, or DeadlinePassed when the deadline comes first (the work cancelled)."""
    if deadline is None:
        return await work
    task, box = _started(work)
    try:
        done, _ = await asyncio.wait({task}, timeout=max(deadline - time.monotonic(), 0.0))
        if not done:
            box[0] = DEADLINE_REASON
            raise DeadlinePassed
        return task.result()
    finally:
        await _cancelled(task)


async def stream_before(deadline: float | None, stream: AsyncIterator[T]) -> AsyncIterator[T]:
    """The stream's items until the deadline, then DeadlinePassed. The stream is read in a task
    of its own, so cancelling it (at the deadline, or when the reader goes) always reaches the
    request it is waiting on, whatever the reader is doing at that moment."""
    if deadline is None:
        async for item in stream:
            yield item
        return
    items: asyncio.Queue[_Next[T]] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for item in stream:
                items.put_nowait(("item", item))
        except Exception as exc:  # handed to the reader, raised there
            items.put_nowait(("error", exc))
        else:
            items.put_nowait(("end", None))

    task, box = _started(pump())
    try:
        while True:
            left = deadline - time.monotonic()
            try:
                got = await asyncio.wait_for(items.get(), max(left, 0.0))
            except TimeoutError:
                box[0] = DEADLINE_REASON
                raise DeadlinePassed from None
            if got[0] == "end":
                return
            if got[0] == "error":
                raise got[1]
            yield got[1]
    finally:
        await _cancelled(task)


async def _cancelled(task: asyncio.Future[Any]) -> None:
    """Cancel the task and wait until it has ended (recorded its call, closed its request),
    even while the waiting task is itself being cancelled: its caller closes what the call
    records into as soon as this returns."""
    if task.done():
        return
    task.cancel()
    while not task.done():
        # a cancel scope cancels every await of a cancelled task again: wait on regardless
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait({task})
