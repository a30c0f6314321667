"""What a deep-dive preset of `frontier ask` leads with, found by code in the same extracts a
research map is made of: `compare` the papers' contribution sentences by the part of the stack
they change, `roadmap` their headline results by reported gain, `benchmarks` what they say
they leave open, `versus` the results that name both sides. The model writes over these."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable

from frontier.store.claims import claims_of
from frontier.store.synthesis import paper_abstracts
from frontier.synthesize.answering import Answering
from frontier.synthesize.bundle import Bundle
from frontier.synthesize.extracts import LEVERS, OTHER_LEVER, PaperFacts, lever, paper_facts

MAX_LEADING = 8  # sentences a preset leads with: one screen


def preset_leading(
    conn: sqlite3.Connection, bundle: Bundle, preset: str, focus: str = ""
) -> list[Answering]:
    """The sentences the preset's answer leads with, each a quoted sentence of a cited paper."""
    ids = [s.paper_id for s in bundle.sources]
    facts = paper_facts(conn, bundle, paper_abstracts(conn, ids))
    ids_by_number = {s.number: s.paper_id for s in bundle.sources}
    if preset == "versus":
        return _versus(conn, facts, ids_by_number, focus)[:MAX_LEADING]
    return _LEADS[preset](facts, ids_by_number)[:MAX_LEADING]


def _compare(facts: list[PaperFacts], ids: dict[int, str]) -> list[Answering]:
    order = [name for name, _ in LEVERS] + [OTHER_LEVER]
    chosen = sorted((f for f in facts if f.contribution), key=lambda f: order.index(lever(f)))
    return [Answering(f.number, ids[f.number], None, f.contribution, 1.0) for f in chosen]


def _roadmap(facts: list[PaperFacts], ids: dict[int, str]) -> list[Answering]:
    """Headline results, the largest reported gain first; then, for papers not curated yet,
    the result sentence of their abstract."""
    results = [(c, f) for f in facts for c in f.headlines[:1] if c.value is not None]
    results.sort(key=lambda pair: -(pair[0].value or 0.0))
    typed = [
        Answering(f.number, ids[f.number], c.page, c.quote, c.value or 0.0) for c, f in results
    ]
    said = [
        Answering(q.number, ids[q.number], None, q.text, 0.0)
        for f in facts
        if not f.headlines
        for q in f.results[:1]
    ]
    return typed + said


def _benchmarks(facts: list[PaperFacts], ids: dict[int, str]) -> list[Answering]:
    return [
        Answering(q.number, ids[q.number], q.page, q.text, 1.0)
        for f in facts
        for q in f.problems[:1]
    ]


def _versus(
    conn: sqlite3.Connection, facts: list[PaperFacts], ids: dict[int, str], focus: str
) -> list[Answering]:
    """Verified results whose sentence names both sides of "X vs Y" (then either side)."""
    sides = [
        s.strip().lower()
        for s in re.split(r"\s+(?:vs\.?|versus)\s+", focus, flags=re.I)
        if s.strip()
    ]
    if len(sides) < 2:
        return _roadmap(facts, ids)
    found: list[tuple[int, Answering]] = []
    for f in facts:
        for claim in claims_of(conn, ids[f.number], verified_only=True):
            named = sum(side in claim.quote.lower() for side in sides)
            if named:
                found.append(
                    (
                        named,
                        Answering(f.number, ids[f.number], claim.page, claim.quote, float(named)),
                    )
                )
    found.sort(key=lambda pair: -pair[0])
    unique: dict[str, Answering] = {}
    for _, answering in found:
        unique.setdefault(answering.text, answering)
    return list(unique.values())


_LEADS: dict[str, Callable[[list[PaperFacts], dict[int, str]], list[Answering]]] = {
    "compare": _compare,
    "roadmap": _roadmap,
    "benchmarks": _benchmarks,
}
