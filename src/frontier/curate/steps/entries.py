"""Entries: rewritten only when the paper's verified claims, relations or prompt changed."""

from __future__ import annotations

import sqlite3
from dataclasses import asdict
from typing import Any

from frontier.config import Settings
from frontier.curate.context import CurationContext
from frontier.curate.earned import close_gate, open_gate
from frontier.curate.entry import (
    CHECK_VERSION,
    QUOTED,
    WhatItIs,
    contribution_sentences,
    entry_text,
    what_it_is,
)
from frontier.llm.prompts import load_prompt
from frontier.llm.records import LLMFailure
from frontier.model import Claim, Paper, Relation
from frontier.store import curation as store
from frontier.store.claims import claims_of

# a paper, a topic of it, its verified claims and relations there, and the entry's key
_Job = tuple[Paper, str, list[Claim], list[Relation], str]


def verified_claims(conn: sqlite3.Connection, paper_id: str) -> list[Claim]:
    return claims_of(conn, paper_id, verified_only=True)


def entity_names(conn: sqlite3.Connection) -> dict[str, str]:
    return store.tracked_names(conn)


def relations_for_entry(conn: sqlite3.Connection, paper_id: str, topic: str) -> list[Relation]:
    return store.relations_of(conn, paper_id, topic)


def _as_found(relation: Relation) -> dict[str, Any]:
    """A relation as curation found it: the paper and topic it is filed under are the entry's."""
    return {k: v for k, v in asdict(relation).items() if k not in ("paper_id", "topic")}


def entry_key(
    prompt_tag: str,
    paper: Paper,
    topic: str,
    claims: list[Claim],
    relations: list[Relation],
    names: dict[str, str],
    kinds: dict[str, str] | None = None,
) -> str:
    """What an entry depends on: the paper, its verified claims, its relations, their names and
    the kinds of the entities among them."""
    targets = {r.target for r in relations}
    return store.stable_hash(
        prompt_tag,
        CHECK_VERSION,
        paper.title,
        paper.abstract,
        topic,
        [c.__dict__ for c in claims],
        [_as_found(r) for r in relations],
        {k: v for k, v in names.items() if k.split(":", 1)[1] in targets},
        {k: v for k, v in (kinds or {}).items() if k.split(":", 1)[1] in targets},
    )


def entity_kinds(settings: Settings) -> dict[str, str]:
    """Each tracked entity's kind (system, model, hardware ...), keyed as relations name it."""
    return {f"entity:{e.slug}": e.kind for e in settings.entities}


UNANSWERED = ":model-failed"  # an entry's key when the model failed: not the key a rerun wants


async def entries_step(ctx: CurationContext, papers: list[Paper]) -> None:
    prompt = load_prompt("entry")
    names = entity_names(ctx.conn)
    kinds = entity_kinds(ctx.settings)
    jobs: list[_Job] = []
    for paper in papers:
        claims = verified_claims(ctx.conn, paper.id)
        for topic in store.topics_of(ctx.conn, paper.id):
            relations = relations_for_entry(ctx.conn, paper.id, topic)
            key = entry_key(prompt.tag, paper, topic, claims, relations, names, kinds)
            if store.entry_hash(ctx.conn, paper.id, topic) != key:
                jobs.append((paper, topic, claims, relations, key))

    gate = await open_gate(ctx, "entry", prompt.tag, "quoting the abstract")

    async def work(job: _Job) -> WhatItIs:
        paper, topic, *_ = job
        if not paper.abstract or not await gate.admits():
            return WhatItIs(contribution_sentences(paper.title, paper.abstract or ""), QUOTED)
        title = ctx.settings.topic(topic).title
        passed = None
        try:
            what = await what_it_is(ctx.llm, prompt, ctx.settings.field.name, title, paper)
            passed = what.by != QUOTED
        finally:
            await gate.settled(passed)
        return what

    results = await ctx.bounded(jobs, work, "entries") if jobs else []
    close_gate(ctx, gate)
    for (paper, topic, claims, relations, key), what in zip(jobs, results, strict=True):
        if isinstance(what, LLMFailure):
            # the reader still gets an entry: code's, keyed so that the next curate asks again
            ctx.failures.append((paper.id, "entry", str(what)))
            what = WhatItIs(contribution_sentences(paper.title, paper.abstract or ""), QUOTED)
            key = f"{key}{UNANSWERED}"
        text = entry_text(what, claims, relations, names, kinds)
        store.save_entry(
            ctx.conn, paper.id, topic, text, what.by, prompt.tag, ctx.run_id, key, what.text
        )
        ctx.bump("entries")


run = entries_step
