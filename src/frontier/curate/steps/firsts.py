"""Firsts and coverage, computed from the KB's own counts in date order — never guessed."""

from __future__ import annotations

import sqlite3

import numpy as np

from frontier.curate.context import CurationContext
from frontier.curate.relations import entity_as_named, entity_role
from frontier.model import Paper, Relation
from frontier.store import curation as store

# what a paper does with an entity that does not make it a source on that entity
NOT_ITS_SUBJECT = frozenset({"compared against", "measured on"})
# unit families whose first verified figure in the KB is worth saying
_FAMILIES = {
    "$": "cost",
    "USD": "cost",
    "J": "energy",
    "W": "power",
    "tokens/s": "tokens-per-second",
    "tok/s": "tokens-per-second",
    "tokens per second": "tokens-per-second",
}


def counted_relations(ctx: CurationContext, papers: list[Paper]) -> None:
    """Recompute every first and coverage relation; papers are walked oldest first."""
    rows: list[tuple[str, str, Relation]] = []
    seen_entities: set[str] = set()
    seen_families: set[str] = set()
    covered: dict[str, set[str]] = {}
    names = {e.slug: e.name for e in ctx.settings.entities}
    for paper in papers:  # already ordered by date, then id
        topics = store.topics_of(ctx.conn, paper.id)
        if not topics:
            continue
        found = _firsts(ctx.conn, paper.id, seen_entities, seen_families, names)
        for topic in topics:
            rows += [(paper.id, topic, r) for r in found]
            line = _nearest_in_scope(ctx, paper.id, topic)
            if line and line not in covered.setdefault(topic, set()):
                covered[topic].add(line)
                rows.append(
                    (
                        paper.id,
                        topic,
                        Relation("coverage", line, f"the first entry in {topic} on {line}"),
                    )
                )
    store.replace_counted_relations(ctx.conn, rows)
    ctx.bump("counted relations", len(rows))


def _firsts(
    conn: sqlite3.Connection,
    paper_id: str,
    seen_entities: set[str],
    seen_families: set[str],
    names: dict[str, str],
) -> list[Relation]:
    found = first_naming(store.entity_targets(conn, paper_id), seen_entities, names)
    for unit in store.verified_units(conn, paper_id):
        family = _FAMILIES.get(unit)
        if family and family not in seen_families:
            seen_families.add(family)
            found.append(
                Relation(
                    "first", f"metric:{family}", f"the first verified {family} figure in this KB"
                )
            )
    return found


def first_naming(
    entities: dict[str, tuple[str, str]], seen: set[str], names: dict[str, str]
) -> list[Relation]:
    """The entities a paper is the first in the KB to name (`seen` holds those named by the
    papers before it, whatever they did with them), where its sentence naming one is about it;
    `seen` gains every entity it names."""
    found = []
    for slug, (detail, evidence) in entities.items():
        named = entity_as_named(detail, names.get(slug, slug))
        if slug not in seen and is_about(named, evidence):
            found.append(
                Relation("first", f"entity:{slug}", f"the first source in this KB naming {named}")
            )
        seen.add(slug)
    return found


def is_about(named: str, evidence: str) -> bool:
    """The paper's sentence naming the entity is about it (or builds on it): the first paper
    beating X, or running on X, is not the first source on X."""
    return entity_role(named, evidence) not in NOT_ITS_SUBJECT


def _nearest_in_scope(ctx: CurationContext, paper_id: str, topic: str) -> str | None:
    indices = [i for i, line in enumerate(ctx.lines) if line.owner == topic and line.kind == "in"]
    if not indices or paper_id not in ctx.vectors:
        return None
    sims = ctx.line_vectors[indices] @ ctx.vectors[paper_id]
    return ctx.lines[indices[int(np.argmax(sims))]].text


async def run(ctx: CurationContext, papers: list[Paper]) -> None:
    counted_relations(ctx, papers)
