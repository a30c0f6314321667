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
    # no later step reads what it writes: it runs in a thread of its own (own connection, own
    # single-threaded embedder) beside the steps after it, and curate waits for it at the end
    alongside: bool = False


STEPS = [
    Step("triage", triage.run),
    Step("chunk vectors", vectors.run, alongside=True),
    Step("claims", claims.run),
    Step("relations", relations.run),
    Step("firsts and coverage", firsts.run),
    Step("entries", entries.run),
]
