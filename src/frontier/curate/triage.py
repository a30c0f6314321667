"""Triage: the embedding prefilter decides the clear cases; the LLM judges the ambiguous band."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field, create_model

from frontier.config import CurateSettings
from frontier.curate.scope import OUT_OF_FIELD, ScopeLine
from frontier.llm.client import LLM
from frontier.llm.prompts import Prompt

OUT_LABEL = "out-of-field"


@dataclass
class Decision:
    destination: str  # topic slug or OUT_OF_FIELD
    stage: str  # embedding | llm
    reason: str
    scope_line: str
    score: float
    model: str = ""
    prompt_version: str = ""


def decide_by_embedding(
    sims: np.ndarray, lines: list[ScopeLine], cfg: CurateSettings
) -> Decision | None:
    """A decision when the nearest scope line is clear; None for the ambiguous band."""
    order = np.argsort(-sims)
    best = lines[int(order[0])]
    best_sim = float(sims[order[0]])
    if best_sim < cfg.triage_floor:
        return Decision(
            OUT_OF_FIELD,
            "embedding",
            f"nothing in any topic's scope is close (best: {best.describe()}, {best_sim:.2f})",
            best.text,
            best_sim,
        )
    rival = next((int(i) for i in order[1:] if lines[int(i)].destination != best.destination), None)
    lead = best_sim - float(sims[rival]) if rival is not None else 1.0
    if best_sim >= cfg.triage_accept and lead >= cfg.triage_margin:
        return Decision(
            best.destination,
            "embedding",
            f"closest to {best.describe()} ({best_sim:.2f}, lead {lead:.2f})",
            best.text,
            best_sim,
        )
    return None


SHORTLIST = 6


def shortlist(
    sims: np.ndarray, lines: list[ScopeLine], cfg: CurateSettings
) -> tuple[list[ScopeLine], list[str]]:
    """The scope lines nearest the paper and the destinations they lead to: what the LLM may
    choose from. Out of field is offered only when the paper is not clearly inside the field."""
    order = [int(i) for i in np.argsort(-sims)[:SHORTLIST]]
    near = [lines[i] for i in order]
    destinations = list(dict.fromkeys(line.destination or OUT_LABEL for line in near))
    if float(sims[order[0]]) < cfg.triage_accept and OUT_LABEL not in destinations:
        destinations.append(OUT_LABEL)
    return near, destinations


def triage_schema(lines: list[ScopeLine], destinations: list[str]) -> type[BaseModel]:
    return create_model(
        "TriageVerdict",
        destination=(Literal[tuple(destinations)], ...),  # type: ignore[valid-type]
        scope_line=(Literal[tuple(range(1, len(lines) + 1))], ...),  # type: ignore[valid-type]
        reason=(str, Field(max_length=240)),
    )


async def decide_by_llm(
    llm: LLM,
    prompt: Prompt,
    field: str,
    near: list[ScopeLine],
    destinations: list[str],
    title: str,
    abstract: str,
) -> Decision:
    schema = triage_schema(near, destinations)
    messages = prompt.messages(
        field=field, lines=near, destinations=destinations, title=title, abstract=abstract[:3000]
    )
    answer = await llm.structured(
        schema, messages, purpose="triage", prompt_version=prompt.tag, max_tokens=320
    )
    verdict = answer.value
    line = near[verdict.scope_line - 1]  # type: ignore[attr-defined]
    destination = OUT_OF_FIELD if verdict.destination == OUT_LABEL else verdict.destination  # type: ignore[attr-defined]
    reason = f"{verdict.reason.strip()} (scope line: {line.describe()})"  # type: ignore[attr-defined]
    return Decision(destination, "llm", reason, line.text, 0.0, answer.result.model, prompt.tag)
