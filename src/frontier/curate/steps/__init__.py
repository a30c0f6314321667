"""The curation steps, in the order `frontier curate` runs them. Each is incremental (a paper is
redone only when what the step depends on changed) and is a module with `run(ctx, papers)`: a new
step is a module here and a row in STEPS."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from frontier.curate.context import CurationContext
from frontier.curate.steps import claims, entries, firsts, relations, triage, vectors
from frontier.model import Paper


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[CurationContext, list[Paper]], Coroutine[Any, Any, None]]
    # CPU work of its own for long stretches: it runs in a thread (own connection), awaited
    in_thread: bool = False


STEPS = [
    Step("triage", triage.run),
    Step("claims", claims.run),
    Step("relations", relations.run),
    Step("firsts and coverage", firsts.run),
    Step("entries", entries.run),
    # last, with every core, after the model's steps: no step reads its vectors, and beside
    # them its thread held the interpreter so long that the model's replies waited (a cold
    # curate of the 38 shared PDFs took 263 s beside, 184 s after; BENCHMARKS.md)
    Step("chunk vectors", vectors.run, in_thread=True),
]
