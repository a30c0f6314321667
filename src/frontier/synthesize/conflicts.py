"""Conflicts between verified claims, found by code: the same metric family and unit in a
comparable setting (size class, hardware, precision, read from the quotes), with values apart by
a large factor or stated in opposite directions. The model only labels each pair; a later paper
that measures the disputed setting is listed under the conflict."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from pydantic import BaseModel, Field

from frontier.llm.client import LLM
from frontier.llm.pool import gather_bounded
from frontier.llm.prompts import Prompt, load_prompt
from frontier.llm.records import LLMFailure
from frontier.store.conflicts import (
    add_conflict,
    flagged_conflict,
    flagged_pairs,
    mark_paired,
    set_later_measurements,
    unpaired_claims,
    verified_claims,
    withdraw_conflicts,
)
from frontier.synthesize.measurement import (
    Setting,
    comparable,
    is_setting_unit,
    metric_family,
    setting_of,
    stated_direction,
    unit_class,
)
from frontier.synthesize.names import name_key, undecorated

LARGE_FACTOR = 3.0


class ConflictVerdict(BaseModel):
    label: Literal["contradiction", "different conditions"]
    reason: str = Field(min_length=10, max_length=400)


@dataclass(frozen=True)
class ClaimFact:
    id: int
    paper_id: str
    date: str
    topic: str
    family: str
    unit: str
    unit_text: str
    value: float | None
    value_text: str
    setting: Setting
    direction: str
    page: int | None
    quote: str
    baseline: str = ""


@dataclass(frozen=True)
class Disagreement:
    a: ClaimFact
    b: ClaimFact
    why: str

    @property
    def key(self) -> str:
        parts = [self.a.paper_id, self.b.paper_id, self.a.family, self.a.setting.describe()]
        parts += [self.a.value_text, self.b.value_text]
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]

    def text(self) -> str:
        return (
            f"{self.a.family} ({self.a.setting.describe()}): {self.a.value_text}{_u(self.a)} "
            f"in {self.a.paper_id} vs {self.b.value_text}{_u(self.b)} in {self.b.paper_id}"
        )


def _u(fact: ClaimFact) -> str:
    unit = fact.unit_text.strip()
    return "" if not unit or unit in fact.value_text else f" {unit}"


def load_facts(conn: sqlite3.Connection) -> list[ClaimFact]:
    """Verified claims with a metric family and a value, oldest paper first."""
    facts = []
    for claim in verified_claims(conn):
        family = metric_family(claim.metric, claim.quote)
        if not family or claim.value is None or is_setting_unit(claim.unit):
            continue
        facts.append(
            ClaimFact(
                claim.id,
                claim.paper_id,
                claim.date,
                claim.topic,
                family,
                unit_class(claim.unit, claim.value_text),
                claim.unit,
                claim.value,
                claim.value_text,
                setting_of(claim.quote),
                stated_direction(claim.quote),
                claim.page,
                claim.quote,
                claim.baseline,
            )
        )
    return facts


def _same_measure(a: ClaimFact, b: ClaimFact) -> bool:
    return (
        a.family == b.family
        and a.unit == b.unit
        and comparable(a.setting, b.setting)
        and _same_reference(a, b)
    )


RELATIVE_UNITS = frozenset({"x", "%"})


def _same_reference(a: ClaimFact, b: ClaimFact) -> bool:
    """A relative value (2.0× over vLLM, 24× over a HuggingFace baseline) is only comparable
    with one measured against the same thing: two named, different baselines say nothing of
    each other. An unnamed baseline is not known to differ."""
    if a.unit not in RELATIVE_UNITS or not a.baseline or not b.baseline:
        return True
    return name_key(undecorated(a.baseline)) == name_key(undecorated(b.baseline))


Bounds = tuple[float | None, float | None]  # (low, high); None: no bound on that side


def factor_apart(a: Bounds, b: Bounds) -> float:
    """How many times apart two values are, each given by its bounds: the ratio of the nearer
    bounds; 1.0 when the values may meet or the nearer bound is not positive."""
    a_low, a_high = a
    b_low, b_high = b
    if a_high is not None and b_low is not None and a_high < b_low:
        return b_low / a_high if a_high > 0 else 1.0
    if b_high is not None and a_low is not None and b_high < a_low:
        return a_low / b_high if b_high > 0 else 1.0
    return 1.0


def why_apart(directions: tuple[str, str], a: Bounds, b: Bounds, factor: float) -> str | None:
    """Why two measures of one thing disagree: they state opposite directions, or their values
    are `factor` or more apart; None when they agree."""
    first, second = directions
    if first and second and first != second:
        return f"opposite directions: {first} vs {second}"
    apart = factor_apart(a, b)
    return f"values {apart:.1f}x apart" if apart >= factor else None


def disagreement(a: ClaimFact, b: ClaimFact) -> Disagreement | None:
    if a.paper_id == b.paper_id or not _same_measure(a, b):
        return None
    value_a, value_b = abs(a.value or 0.0), abs(b.value or 0.0)
    why = why_apart(
        (a.direction, b.direction), (value_a, value_a), (value_b, value_b), LARGE_FACTOR
    )
    return Disagreement(a, b, why) if why else None


def _buckets(facts: list[ClaimFact]) -> dict[tuple[str, ...], list[ClaimFact]]:
    """Claims by metric, unit and each pair of stated setting dimensions: comparable claims
    share at least one such bucket, so pairs are only formed inside buckets (not all n²)."""
    buckets: dict[tuple[str, ...], list[ClaimFact]] = {}
    for fact in facts:
        dims = (
            ("size", fact.setting.size),
            ("hw", fact.setting.hardware),
            ("prec", fact.setting.precision),
        )
        for (n1, v1), (n2, v2) in combinations(dims, 2):
            if v1 and v2:
                key = (fact.family, fact.unit, n1, v1, n2, v2)
                buckets.setdefault(key, []).append(fact)
    return buckets


def find_disagreements(facts: list[ClaimFact], fresh: set[int] | None = None) -> list[Disagreement]:
    """Disagreeing pairs, older claim first; with `fresh`, only pairs holding a fresh claim
    (the others were paired by an earlier run)."""
    order = {fact.id: i for i, fact in enumerate(facts)}
    found: dict[tuple[int, int], Disagreement] = {}
    for group in _buckets(facts).values():
        for a, b in _pairs(group, fresh, order):
            if (a.id, b.id) not in found and (d := disagreement(a, b)) is not None:
                found[(a.id, b.id)] = d
    return list(found.values())


def _pairs(
    group: list[ClaimFact], fresh: set[int] | None, order: dict[int, int]
) -> Iterator[tuple[ClaimFact, ClaimFact]]:
    if fresh is None:
        yield from combinations(group, 2)
        return
    for x in (f for f in group if f.id in fresh):
        for y in group:
            if y.id == x.id or (y.id in fresh and order[y.id] < order[x.id]):
                continue  # a pair of two fresh claims is formed once, from the older one
            yield (x, y) if order[x.id] < order[y.id] else (y, x)


def later_measurements(d: Disagreement, facts: list[ClaimFact]) -> list[dict[str, object]]:
    """Claims of papers dated after both sides that measure the disputed setting."""
    after = max(d.a.date, d.b.date)
    return [
        {
            "paper_id": f.paper_id,
            "date": f.date,
            "value": f.value_text,
            "page": f.page,
            "quote": f.quote,
        }
        for f in facts
        if f.date > after
        and f.paper_id not in (d.a.paper_id, d.b.paper_id)
        and _same_measure(f, d.a)
    ]


async def detect_conflicts(
    conn: sqlite3.Connection,
    llm: LLM,
    field_name: str,
    run_id: int,
    default_topic: str,
    everything: bool = False,
) -> dict[str, int]:
    """Flag new disagreements (labelled by the model) and refresh the later measurements of
    all; a pair already flagged is never flagged twice. Only claims not yet paired are paired
    with the others, unless `everything`; with no such claim there is nothing to do."""
    counts = {"pairs": 0, "new": 0, "labelled": 0, "label failures": 0, "withdrawn": 0}
    unseen = unpaired_claims(conn)
    if not unseen and not everything:
        return counts
    facts = [f for f in load_facts(conn) if f.setting.known() >= 2]  # others compare to none
    prompt = load_prompt("conflict")
    found = _with_flagged(conn, facts, find_disagreements(facts, None if everything else unseen))
    holding = {d.key for d in found}
    counts["withdrawn"] = withdraw_conflicts(
        conn, {key for key, _, _ in flagged_pairs(conn)} - holding
    )
    labels = await _labels(llm, prompt, field_name, found, conn)
    for d in found:
        counts["pairs"] += 1
        later = json.dumps(later_measurements(d, facts))
        known = flagged_conflict(conn, d.key)
        if known is not None:
            set_later_measurements(conn, known, later)
            continue
        verdict, model = labels[d.key]
        counts["labelled" if verdict else "label failures"] += 1
        _store(conn, d, later, verdict, model, prompt.tag if verdict else "", run_id, default_topic)
        counts["new"] += 1
    mark_paired(conn, unseen)
    return counts


def _with_flagged(
    conn: sqlite3.Connection, facts: list[ClaimFact], found: list[Disagreement]
) -> list[Disagreement]:
    """The pairs found plus those flagged before that still hold (their later measurements may
    have changed with the new claims)."""
    keys = {d.key for d in found}
    by_paper: dict[str, list[ClaimFact]] = {}
    for fact in facts:
        by_paper.setdefault(fact.paper_id, []).append(fact)
    out = list(found)
    for key, paper_a, paper_b in flagged_pairs(conn):
        if key in keys:
            continue
        for a in by_paper.get(paper_a, []):
            for b in by_paper.get(paper_b, []):
                d = disagreement(a, b)
                if d is not None and d.key == key:
                    out.append(d)
                    keys.add(key)
    return out


async def _labels(
    llm: LLM, prompt: Prompt, field_name: str, found: list[Disagreement], conn: sqlite3.Connection
) -> dict[str, tuple[ConflictVerdict | None, str]]:
    """The model's label of every pair not flagged before, asked all at once, by pair key."""
    new: dict[str, Disagreement] = {}
    for d in found:
        if d.key not in new and flagged_conflict(conn, d.key) is None:
            new[d.key] = d
    pairs = list(new.values())
    limit = llm.settings.max_in_flight
    labels = await gather_bounded(pairs, lambda d: _label(llm, prompt, field_name, d), limit)
    return {
        d.key: (None, "") if isinstance(label, LLMFailure) else label
        for d, label in zip(pairs, labels, strict=True)
    }


async def _label(
    llm: LLM, prompt: Prompt, field_name: str, d: Disagreement
) -> tuple[ConflictVerdict | None, str]:
    messages = prompt.messages(
        field=field_name,
        metric=d.a.family,
        setting=d.a.setting.describe(),
        why=d.why,
        date_a=d.a.date,
        page_a=d.a.page,
        quote_a=d.a.quote,
        date_b=d.b.date,
        page_b=d.b.page,
        quote_b=d.b.quote,
    )
    try:
        reply = await llm.structured(
            ConflictVerdict,
            messages,
            purpose="conflict",
            prompt_version=prompt.tag,
            max_tokens=200,
        )
    except LLMFailure:
        return None, ""
    return reply.value, reply.result.model


def _store(
    conn: sqlite3.Connection,
    d: Disagreement,
    later: str,
    verdict: ConflictVerdict | None,
    model: str,
    prompt_tag: str,
    run_id: int,
    default_topic: str,
) -> None:
    topic = d.b.topic or d.a.topic or default_topic
    evidence = {
        "paper_a": d.a.paper_id,
        "paper_b": d.b.paper_id,
        "metric": d.a.family,
        "setting": d.a.setting.describe(),
        "quote_a": d.a.quote,
        "quote_b": d.b.quote,
        "page_a": d.a.page,
        "page_b": d.b.page,
        "value_a": d.a.value_text,
        "value_b": d.b.value_text,
        "why": d.why,
        "label": verdict.label if verdict else "",
        "reason": verdict.reason if verdict else "",
        "later": later,
        "model": model,
        "prompt_version": prompt_tag,
        "run_id": run_id,
    }
    add_conflict(conn, topic, d.text(), d.key, evidence)
