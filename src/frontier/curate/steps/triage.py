"""Triage step: each paper into the topic whose scope fits it, or out of the field."""

from __future__ import annotations

import datetime as dt

import numpy as np

from frontier.config import Settings
from frontier.curate.context import CurationContext
from frontier.curate.scope import OUT_OF_FIELD, ScopeLine
from frontier.curate.triage import (
    RULES_VERSION,
    Decision,
    decide_by_embedding,
    decide_by_llm,
    filed_under,
    hinted_topic,
    nearest_line_decision,
    shortlist,
)
from frontier.llm.prompts import load_prompt
from frontier.llm.records import LLMFailure
from frontier.model import Gap, Paper
from frontier.store import curation as store


def _gap_vectors(ctx: CurationContext, gaps: list[Gap]) -> np.ndarray:
    return ctx.embed([gap.text for gap in gaps])


UNDECIDED = ":model-timed-out"  # ends the key of a decision the model is to make next run


def triage_scope_key(settings: Settings, prompt_tag: str) -> str:
    """What every triage decision depends on besides the paper: topics, thresholds, prompt, rules."""
    return store.stable_hash(
        [t.model_dump() for t in settings.topics],
        settings.curate.model_dump(),
        prompt_tag,
        RULES_VERSION,
    )


def triage_key(scope_key: str, paper: Paper, hint: Decision | None = None) -> str:
    """What one decision depends on; the topic the user filed the paper under (`hint`) only
    when there is one, so that no other paper's decision is redone."""
    return store.stable_hash(
        scope_key,
        paper.title,
        paper.abstract,
        paper.source,
        paper.published,
        *([hint.destination, hint.reason] if hint else []),
    )


async def triage_step(ctx: CurationContext, papers: list[Paper]) -> None:
    prompt = load_prompt("triage")
    scope_key = triage_scope_key(ctx.settings, prompt.tag)
    todo = []
    for paper in papers:
        hint = hinted_topic(filed_under(paper.collection, paper.categories), ctx.settings.topics)
        key = triage_key(scope_key, paper, hint)
        if store.step_hash(ctx.conn, paper.id, "triage") != key:
            todo.append((paper, key, hint))
    gaps = store.open_gaps(ctx.conn)
    gap_vectors = _gap_vectors(ctx, gaps)
    ambiguous = []
    for paper, key, hint in todo:
        sims = ctx.line_vectors @ ctx.vectors[paper.id]
        text = f"{paper.title}. {paper.abstract or ''}"
        decision = hint or decide_by_embedding(sims, ctx.lines, ctx.settings.curate, text)
        if decision is None:
            ambiguous.append((paper, key, *shortlist(sims, ctx.lines, ctx.settings.curate)))
        else:
            _save_decision(ctx, paper, key, decision, gaps, gap_vectors)

    async def judge(item: tuple[Paper, str, list[ScopeLine], list[str]]) -> Decision:
        paper, _, near, destinations = item
        return await decide_by_llm(
            ctx.llm,
            prompt,
            ctx.settings.field.name,
            near,
            destinations,
            paper.title,
            paper.abstract or "",
        )

    results = await ctx.bounded(ambiguous, judge, "triage")
    for (paper, key, near, _), result in zip(ambiguous, results, strict=True):
        if isinstance(result, LLMFailure) and result.kind == "timeout":
            # a model too loaded to answer in time: the nearest scope line decides for now, and
            # the key marks the decision for the model to make on the next run
            ctx.bump("triage:nearest line, the model timed out")
            fallback = nearest_line_decision(ctx.line_vectors @ ctx.vectors[paper.id], near)
            _save_decision(ctx, paper, f"{key}{UNDECIDED}", fallback, gaps, gap_vectors)
        elif isinstance(result, LLMFailure):
            ctx.failures.append((paper.id, "triage", str(result)))
        else:
            _save_decision(ctx, paper, key, result, gaps, gap_vectors)


def _save_decision(
    ctx: CurationContext,
    paper: Paper,
    key: str,
    decision: Decision,
    gaps: list[Gap],
    gap_vectors: np.ndarray,
) -> None:
    boundary = False
    if decision.destination != OUT_OF_FIELD and _outside_window(ctx, paper, decision.destination):
        boundary, decision = _boundary(ctx, paper, decision, gaps, gap_vectors)
    ctx.bump(f"triage:{decision.stage}")
    row = {
        "topic": decision.destination,
        "stage": decision.stage,
        "reason": decision.reason,
        "scope_line": decision.scope_line,
        "score": round(decision.score, 4),
        "boundary": boundary,
        "model": decision.model,
        "prompt_version": decision.prompt_version,
    }
    store.save_triage(ctx.conn, paper.id, [row], key, ctx.run_id)


def _outside_window(ctx: CurationContext, paper: Paper, topic: str) -> bool:
    """The window bounds automatic intake (arXiv discovery), not what a user adds by hand."""
    if paper.source != "arxiv" or not paper.published:
        return False
    window = ctx.settings.topic(topic).window_days
    return dt.date.fromisoformat(paper.published[:10]) < dt.date.today() - dt.timedelta(days=window)


def _boundary(
    ctx: CurationContext,
    paper: Paper,
    decision: Decision,
    gaps: list[Gap],
    gap_vectors: np.ndarray,
) -> tuple[bool, Decision]:
    """Outside the window: kept only when it strongly matches an open gap of the topic."""
    window = ctx.settings.topic(decision.destination).window_days
    own = [i for i, gap in enumerate(gaps) if gap.topic == decision.destination]
    if own:
        sims = gap_vectors[own] @ ctx.vectors[paper.id]
        best = int(np.argmax(sims))
        if float(sims[best]) >= ctx.settings.curate.gap_similarity + 0.1:
            gap = gaps[own[best]]
            decision.reason += (
                f"; outside the {window}-day window, taken as a boundary case for "
                f'the open gap "{gap.text}"'
            )
            return True, decision
    return False, Decision(
        OUT_OF_FIELD,
        decision.stage,
        f"outside the {window}-day discovery window of {decision.destination}",
        decision.scope_line,
        decision.score,
        decision.model,
        decision.prompt_version,
    )


run = triage_step
