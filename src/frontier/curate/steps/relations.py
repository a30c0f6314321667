"""Relations step: tracked entities, and the gaps, conflicts and theses a paper's own work
addresses, with the own-work sentence that shows it as evidence."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from frontier.config import Settings
from frontier.curate.addresses import (
    Coverage,
    ItemPart,
    acronym_expansions,
    item_parts,
    own_pages,
    own_work_sentences,
    stems_of,
)
from frontier.curate.addresses import coverage as parts_held
from frontier.curate.context import CurationContext
from frontier.curate.earned import close_gate, open_gate
from frontier.curate.relations import (
    Evidence,
    before_references,
    confirm_relation,
    entity_relations,
)
from frontier.curate.stamps import Stamps
from frontier.llm.prompts import load_prompt
from frontier.llm.records import LLMFailure
from frontier.model import Paper, Relation
from frontier.store import curation as store


def relation_items(conn: sqlite3.Connection, settings: Settings) -> list[tuple[str, str, str, str]]:
    """(kind, target, topic, text) of the open gaps, open conflicts and theses."""
    gaps, conflicts = store.open_gaps(conn), store.open_conflicts(conn)
    theses = [(t.slug, text) for t in settings.topics for text in t.theses]
    return (
        [("gap", str(g.id), g.topic, g.text) for g in gaps]
        + [("conflict", str(c.id), c.topic, c.text) for c in conflicts]
        + [("thesis", text, slug, text) for slug, text in theses]
    )


# part of every paper's relations key: a change in how code finds or checks evidence redoes it
EVIDENCE_VERSION = "evidence-14"


def relations_base_key(
    items: list[tuple[str, str, str, str]],
    settings: Settings,
    prompt_tag: str,
    measured: dict[int, list[dict[str, object]]] | None = None,
) -> str:
    return store.stable_hash(
        items,
        sorted((measured or {}).items()),
        [e.model_dump() for e in settings.entities],
        prompt_tag,
        EVIDENCE_VERSION,
        settings.field.name,
    )


def relations_key(base: str, paper: Paper, topics: list[str], pages: list[tuple[int, str]]) -> str:
    return store.stable_hash(base, paper.title, paper.abstract, topics, store.stable_hash(pages))


def relations_quick_key(base: str, paper: Paper, topics: list[str]) -> str:
    """The relations key with the paper's text version in place of its pages."""
    return store.stable_hash(base, paper.title, paper.abstract, topics, paper.text_version)


TrackedItem = tuple[str, str, str, str]  # kind, target, topic, text
# an item a paper addresses but for one part: the item, its evidence, the part code did not find
NearMiss = tuple[TrackedItem, Evidence, ItemPart]


@dataclass
class _PaperRelations:
    """One paper's relations before the model's word: found by code, and the near misses the
    model may confirm."""

    paper: Paper
    topics: list[str]
    key: str
    quick: str
    found: list[Relation]  # entities: every topic of the paper
    addressed: list[tuple[TrackedItem, Relation]]
    candidates: list[NearMiss]


def _addressed(
    paper: Paper,
    topics: list[str],
    own_text: list[tuple[int, str]],
    kinds: dict[int, set[str]],
    items: list[tuple[TrackedItem, tuple[ItemPart, ...]]],
    spelled: re.Pattern[str] | None,
) -> tuple[list[tuple[TrackedItem, Relation]], list[NearMiss]]:
    """The items the paper's own-work sentences address part by part (a relation by code), and
    those they address but for one part (for the model to confirm over the best sentence)."""
    units = own_work_sentences(
        paper.title,
        paper.abstract or "",
        own_pages(own_text, kinds),
        paper.title_provisional,
    )
    found, near = [], []
    for item, parts in items:
        if item[0] != "thesis" and item[2] not in topics:
            continue
        held = parts_held(parts, units, spelled)
        if held is None or not any(held.held):
            continue
        if held.complete():
            found.append((item, _code_relation(item, held)))
        elif len(held.missing()) == 1 and len(held.parts) > 1:
            near.append((item, Evidence(held.evidence, held.page), held.missing()[0]))
    return found, near


def measured_conflicts(
    paper_id: str, conflicts: dict[str, TrackedItem], measured: dict[int, list[dict[str, object]]]
) -> list[tuple[TrackedItem, Relation]]:
    """The open conflicts whose disputed setting this paper measured later, each with the
    paper's claim that measures it as evidence."""
    found = []
    for conflict_id, later in measured.items():
        item = conflicts.get(str(conflict_id))
        claim = next((m for m in later if m.get("paper_id") == paper_id), None)
        if item is None or claim is None:
            continue
        page = claim.get("page")
        relation = Relation(
            "conflict",
            item[1],
            "",
            str(claim.get("quote", "")),
            "code",
            page if isinstance(page, int) else None,
        )
        found.append((item, relation))
    return found


def _code_relation(item: TrackedItem, held: Coverage) -> Relation:
    kind, target, _, _ = item
    return Relation(kind, target, "", held.evidence, "code", held.page)


def _todo(
    ctx: CurationContext,
    papers: list[Paper],
    items: list[TrackedItem],
    base: str,
    measured: dict[int, list[dict[str, object]]],
) -> list[_PaperRelations]:
    """The papers whose relations must be redone, each with what code finds for it."""
    stamps = Stamps(ctx.conn, "relations")
    field_words = stems_of(ctx.settings.field.name)
    spelled = acronym_expansions(ctx.settings.field.name)
    # a conflict's text is a label of two claims, not a question a sentence can answer: a
    # paper bears on it when it measures the disputed setting (`measured_conflicts`)
    parted = [(item, item_parts(item[3], field_words)) for item in items if item[0] != "conflict"]
    conflicts = {item[1]: item for item in items if item[0] == "conflict"}
    todo = []
    for paper in papers:
        topics = store.topics_of(ctx.conn, paper.id)
        if not topics:
            continue
        quick = relations_quick_key(base, paper, topics)
        if stamps.quick_match(paper.id, quick):
            continue
        pages = store.pages_of(ctx.conn, paper.id)
        key = relations_key(base, paper, topics, pages)
        if not stamps.changed(paper.id, quick, key):
            continue
        own_text = before_references(pages, store.references_start(ctx.conn, paper.id))
        kinds = store.section_kinds_by_page(ctx.conn, paper.id)
        found = entity_relations(
            ctx.settings.entities, paper.title, paper.abstract or "", own_text, kinds
        )
        addressed, near = _addressed(paper, topics, own_text, kinds, parted, spelled)
        addressed += measured_conflicts(paper.id, conflicts, measured)
        todo.append(_PaperRelations(paper, topics, key, quick, found, addressed, near))
    stamps.flush()
    return todo


async def relations_step(ctx: CurationContext, papers: list[Paper]) -> None:
    prompt = load_prompt("relate")
    items = relation_items(ctx.conn, ctx.settings)
    measured = store.conflict_measurements(ctx.conn)
    base = relations_base_key(items, ctx.settings, prompt.tag, measured)
    todo = _todo(ctx, papers, items, base, measured)
    # the candidates of every paper go to the model together, so its slots stay busy
    jobs = [(item.paper, candidate) for item in todo for candidate in item.candidates]

    gate = await open_gate(ctx, "relate", prompt.tag, "no relation for a near miss")

    async def confirm(job: tuple[Paper, NearMiss]) -> Relation | None:
        paper, ((kind, target, _, text), evidence, missing) = job
        if not await gate.admits():
            return None
        passed = None
        try:
            relation, passed = await confirm_relation(
                ctx.llm,
                prompt,
                ctx.settings.field.name,
                kind,
                target,
                text,
                paper.title,
                paper.abstract or "",
                evidence,
                missing,
            )
        finally:
            await gate.settled(passed)
        return relation

    results = await ctx.bounded(jobs, confirm, "relations") if jobs else []
    close_gate(ctx, gate)
    start = 0
    for item in todo:
        confirmed = results[start : start + len(item.candidates)]
        start += len(item.candidates)
        _save(ctx, item, confirmed)


def _save(
    ctx: CurationContext, item: _PaperRelations, confirmed: list[Relation | LLMFailure | None]
) -> None:
    """A paper's relations, stored only when the model answered for every candidate."""
    paper_id = item.paper.id
    failures = [r for r in confirmed if isinstance(r, LLMFailure)]
    if failures:
        ctx.failures += [(paper_id, "relations", str(r)) for r in failures]
        return
    by_topic: dict[str, list[Relation]] = {topic: list(item.found) for topic in item.topics}
    decided = item.addressed + [
        (candidate[0], relation)
        for candidate, relation in zip(item.candidates, confirmed, strict=True)
        if isinstance(relation, Relation)
    ]
    for (kind, _, owner, _), relation in decided:
        for topic in item.topics:
            if kind == "thesis" or owner == topic:
                by_topic[topic].append(relation)
    store.save_relations(ctx.conn, paper_id, by_topic, item.key, item.quick)
    ctx.bump("relations", sum(len(v) for v in by_topic.values()))


run = relations_step
