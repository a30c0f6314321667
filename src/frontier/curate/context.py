"""What every curation step is given: the store, the model, the vectors, the config, the report."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
from rich.console import Console

from frontier.config import Settings
from frontier.curate.scope import ScopeLine
from frontier.llm.client import LLM
from frontier.llm.embeddings import Embedder
from frontier.llm.pool import run_bounded
from frontier.llm.records import LLMFailure

I = TypeVar("I")  # noqa: E741
R = TypeVar("R")


# repr=False: asyncio.run formats the repr of the task's result (this context) when it restores
# the SIGINT handler, and the repr of every paper vector took seconds per 1k papers
@dataclass(repr=False)
class CurationContext:
    """What every step needs: the store, the model, the vectors, the config and the report."""

    conn: sqlite3.Connection
    settings: Settings
    llm: LLM
    run_id: int
    vectors: dict[str, np.ndarray]
    lines: list[ScopeLine]
    line_vectors: np.ndarray
    embed: Callable[[list[str]], np.ndarray]
    console: Console
    embedder: Embedder | None = None  # for the steps that embed chunks
    failures: list[tuple[str, str, str]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # one line each for the run summary
    seconds: dict[str, float] = field(default_factory=dict)  # wall time of each step
    # set when the run ends early (Ctrl-C, an error): a step running in a thread stops soon after
    stopping: threading.Event = field(default_factory=threading.Event)

    def bump(self, key: str, by: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + by

    async def bounded(
        self, items: Sequence[I], work: Callable[[I], Awaitable[R]], label: str
    ) -> list[R | LLMFailure]:
        return await run_bounded(items, work, self.settings.llm.max_in_flight, label, self.console)
