"""Relations step: tracked entities, and gaps, conflicts and theses with the paper's own sentence as evidence."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
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


Item = tuple[str, str, str, str]  # kind, target, topic, text
Candidate = tuple[Item, Evidence]


@dataclass
class _PaperRelations:
    """One paper's relations before the model's word: found by code, and the candidates the
    model confirms or vetoes."""

    paper: sqlite3.Row
    topics: list[str]
    key: str
    quick: str
    found: list[Relation]
    candidates: list[Candidate]


def _candidates(
    ctx: Context,
    paper: sqlite3.Row,
    topics: list[str],
    pages: list[tuple[int, str]],
    own_text: list[tuple[int, str]],
    items: list[Item],
    item_vectors: np.ndarray,
) -> list[Candidate]:
    """The gaps, conflicts and theses near the paper that have a sentence of its own text (before
    its reference list) as evidence, found on its page."""
    abstract = paper["abstract"] or ""
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
    return candidates


def _todo(
    ctx: Context, papers: list[sqlite3.Row], items: list[Item], base: str
) -> list[_PaperRelations]:
    """The papers whose relations must be redone, each with what code finds for it."""
    item_vectors = ctx.embed([text for *_, text in items])
    stamps = Stamps(ctx.conn, "relations")
    todo = []
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
        own_text = before_references(pages, store.references_start(ctx.conn, paper["id"]))
        found = entity_relations(
            ctx.settings.entities, paper["title"], paper["abstract"] or "", own_text
        )
        candidates = _candidates(ctx, paper, topics, pages, own_text, items, item_vectors)
        todo.append(_PaperRelations(paper, topics, key, quick, found, candidates))
    stamps.flush()
    return todo


async def relations_step(ctx: Context, papers: list[sqlite3.Row]) -> None:
    prompt = load_prompt("relate")
    items = relation_items(ctx.conn, ctx.settings)
    todo = _todo(ctx, papers, items, relations_base_key(items, ctx.settings, prompt.tag))
    # the candidates of every paper go to the model together, so its slots stay busy
    jobs = [(item.paper, candidate) for item in todo for candidate in item.candidates]

    async def confirm(job: tuple[sqlite3.Row, Candidate]) -> Relation | None:
        paper, ((kind, target, _, text), evidence) = job
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

    results = await ctx.bounded(jobs, confirm, "relations") if jobs else []
    start = 0
    for item in todo:
        confirmed = results[start : start + len(item.candidates)]
        start += len(item.candidates)
        _save(ctx, item, confirmed)


def _save(
    ctx: Context, item: _PaperRelations, confirmed: list[Relation | LLMFailure | None]
) -> None:
    """A paper's relations, stored only when the model answered for every candidate."""
    paper_id = item.paper["id"]
    failures = [r for r in confirmed if isinstance(r, LLMFailure)]
    if failures:
        ctx.failures += [(paper_id, "relations", str(r)) for r in failures]
        return
    by_topic: dict[str, list[Relation]] = {topic: list(item.found) for topic in item.topics}
    for ((kind, _, owner, _), _), relation in zip(item.candidates, confirmed, strict=True):
        if not isinstance(relation, Relation):
            continue
        for topic in item.topics:
            if kind == "thesis" or owner == topic:
                by_topic[topic].append(relation)
    store.save_relations(ctx.conn, paper_id, by_topic, item.key, item.quick)
    ctx.bump("relations", sum(len(v) for v in by_topic.values()))


run = relations_step
