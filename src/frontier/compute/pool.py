"""Work on all cores, results handed back in input order, so runs are deterministic."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import TypeVar

from frontier.process.children import die_with_parent

T = TypeVar("T")
R = TypeVar("R")

# items queued ahead per worker: enough that one long item at the head does not idle the others
_WINDOW_PER_WORKER = 16


def worker_count(configured: int) -> int:
    return configured if configured > 0 else max(1, os.cpu_count() or 1)


def _pool(workers: int) -> ProcessPoolExecutor:
    """Worker processes that die with this one, even when it is killed outright; the
    resource tracker then sees its last client gone and ends too."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=get_context("spawn"),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )


def map_in_order(work: Callable[[T], R], items: list[T], workers: int) -> Iterator[R | None]:
    """`work` over each item, one result per item in the order given; None for an item whose
    worker crashed, which fails alone (the items queued behind it go to a new pool)."""
    if workers <= 1 or len(items) <= 1:
        for item in items:
            yield work(item)
        return
    pending = deque(items)
    while pending:
        with _pool(workers) as pool:
            window: deque[tuple[T, Future[R]]] = deque()
            broken = False
            while (pending or window) and not broken:
                while pending and len(window) < workers * _WINDOW_PER_WORKER:
                    item = pending.popleft()
                    window.append((item, pool.submit(work, item)))
                item, future = window.popleft()
                try:
                    yield future.result()
                except BrokenProcessPool:
                    yield None
                    pending.extendleft(reversed([queued for queued, _ in window]))
                    broken = True
