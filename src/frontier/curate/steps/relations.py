"""Relations step: tracked entities, and gaps, conflicts and theses with the paper's own sentence as evidence."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

import numpy as np

from frontier.config import Settings
from frontier.curate.context import Context
from frontier.curate.relations import (
    Evidence,
    Relation,
    before_references,
    confirm_relation,
    entity_relations,
    evidence_on_page,
    find_evidence,
    paper_sentences,
)
from frontier.curate.stamps import Stamps
from frontier.llm.prompts import load_prompt
from frontier.llm.records import LLMFailure
from frontier.store import curation as store


def relation_items(conn: sqlite3.Connection, settings: Settings) -> list[tuple[str, str, str, str]]:
    """(kind, target, topic, text) of the open gaps, open conflicts and theses."""
    gaps, conflicts = store.open_items(conn, "gaps"), store.open_items(conn, "conflicts")
    theses = [(t.slug, text) for t in settings.topics for text in t.theses]
    return (
        [("gap", str(g["id"]), g["topic"], g["text"]) for g in gaps]
        + [("conflict", str(c["id"]), c["topic"], c["text"]) for c in conflicts]
        + [("thesis", text, slug, text) for slug, text in theses]
    )


# part of every paper's relations key: a change in how code finds or checks evidence redoes it
EVIDENCE_VERSION = "evidence-5"


def relations_base_key(
    items: list[tuple[str, str, str, str]], settings: Settings, prompt_tag: str
) -> str:
    return store.digest(
        items,
        [e.model_dump() for e in settings.entities],
        prompt_tag,
        EVIDENCE_VERSION,
        settings.curate.gap_similarity,
    )


def relations_key(
    base: str, paper: Mapping[str, Any], topics: list[str], pages: list[tuple[int, str]]
) -> str:
    return store.digest(base, paper["title"], paper["abstract"], topics, store.digest(pages))


def relations_quick_key(base: str, paper: Mapping[str, Any], topics: list[str]) -> str:
    """The relations key with the paper's text version in place of its pages."""
    return store.digest(base, paper["title"], paper["abstract"], topics, paper["text_version"])


async def relations_step(ctx: Context, papers: list[sqlite3.Row]) -> None:
    prompt = load_prompt("relate")
    items = relation_items(ctx.conn, ctx.settings)
    item_vectors = ctx.embed([text for *_, text in items])
    entities = ctx.settings.entities
    base = relations_base_key(items, ctx.settings, prompt.tag)
    stamps = Stamps(ctx.conn, "relations")
    for paper in papers:
        topics = store.topics_of(ctx.conn, paper["id"])
        if not topics:
            continue
        quick = relations_quick_key(base, paper, topics)
        if stamps.quick_match(paper["id"], quick):
            continue
        pages = store.pages_of(ctx.conn, paper["id"])
        key = relations_key(base, paper, topics, pages)
        if not stamps.changed(paper["id"], quick, key):
            continue
        abstract = paper["abstract"] or ""
        own_text = before_references(pages, store.references_start(ctx.conn, paper["id"]))
        found = entity_relations(entities, paper["title"], abstract, own_text)
        sims = item_vectors @ ctx.vectors[paper["id"]] if items else np.zeros(0)
        units = paper_sentences(abstract, own_text)
        page_texts = dict(pages)
        candidates = []
        for i, item in enumerate(items):
            if sims[i] < ctx.settings.curate.gap_similarity:
                continue
            if item[0] != "thesis" and item[2] not in topics:
                continue
            evidence = find_evidence(item[3], item_vectors[i], units, ctx.embed)
            if evidence and evidence_on_page(evidence, abstract, page_texts):
                candidates.append((item, evidence))

        async def confirm(
            candidate: tuple[tuple[str, str, str, str], Evidence], paper: sqlite3.Row = paper
        ) -> Relation | None:
            (kind, target, _, text), evidence = candidate
            return await confirm_relation(
                ctx.llm,
                prompt,
                ctx.settings.field.name,
                kind,
                target,
                text,
                paper["title"],
                paper["abstract"] or "",
                evidence,
            )

        confirmed = await ctx.bounded(candidates, confirm, "relations") if candidates else []
        if any(isinstance(r, LLMFailure) for r in confirmed):
            ctx.failures += [
                (paper["id"], "relations", str(r)) for r in confirmed if isinstance(r, LLMFailure)
            ]
            continue
        by_topic: dict[str, list[Relation]] = {topic: list(found) for topic in topics}
        for (item, _), relation in zip(candidates, confirmed, strict=True):
            if relation is None:
                continue
            for topic in topics:
                if item[0] == "thesis" or item[2] == topic:
                    by_topic[topic].append(relation)
        store.save_relations(ctx.conn, paper["id"], by_topic, key, quick)
        ctx.bump("relations", sum(len(v) for v in by_topic.values()))
    stamps.flush()


run = relations_step
