"""The curation steps, each incremental: a paper is redone only when what it depends on changed."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from rich.console import Console

from frontier.config import Settings
from frontier.curate.candidates import find_candidates
from frontier.curate.claims import (
    TYPING_VERSION,
    choose_spans,
    code_claims,
    gate,
    headline_score,
    mark_headlines,
    needs_choice,
    system_names,
    with_setup,
)
from frontier.curate.relations import (
    Evidence,
    Relation,
    confirm_relation,
    entity_relations,
    evidence_on_page,
    find_evidence,
    paper_sentences,
)
from frontier.curate.scope import OUT_OF_FIELD, ScopeLine
from frontier.curate.spans import Proposal, setup_names
from frontier.curate.stamps import Stamps
from frontier.curate.triage import Decision, decide_by_embedding, decide_by_llm, shortlist
from frontier.llm.client import LLM
from frontier.llm.pool import run_bounded
from frontier.llm.prompts import load_prompt
from frontier.llm.records import LLMFailure
from frontier.store import curation as store
from frontier.store.claims import Claim


# repr=False: asyncio.run formats the repr of the task's result (this context) when it restores
# the SIGINT handler, and the repr of every paper vector took seconds per 1k papers
@dataclass(repr=False)
class Context:
    """What every step needs: the store, the model, the vectors, the config and the report."""

    conn: sqlite3.Connection
    settings: Settings
    llm: LLM
    run_id: int
    vectors: dict[str, np.ndarray]
    lines: list[ScopeLine]
    line_vectors: np.ndarray
    embed: Callable[[list[str]], np.ndarray]
    console: Console
    failures: list[tuple[str, str, str]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def bump(self, key: str, by: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + by

    async def bounded(
        self, items: list[Any], work: Callable[[Any], Awaitable[Any]], label: str
    ) -> list[Any]:
        return await run_bounded(items, work, self.settings.llm.max_in_flight, label, self.console)


def _gap_vectors(ctx: Context, rows: list[sqlite3.Row]) -> np.ndarray:
    return ctx.embed([row["text"] for row in rows])


def triage_scope_key(settings: Settings, prompt_tag: str) -> str:
    """What every triage decision depends on besides the paper: topics, thresholds, prompt."""
    return store.digest(
        [t.model_dump() for t in settings.topics], settings.curate.model_dump(), prompt_tag
    )


def triage_key(scope_key: str, paper: Mapping[str, Any]) -> str:
    return store.digest(
        scope_key, paper["title"], paper["abstract"], paper["source"], paper["published"]
    )


def claims_key(
    chunks: list[tuple[int | None, str, str]],
    prompt_tag: str,
    limit: int,
    aliases: dict[str, list[str]],
) -> str:
    return store.digest(chunks, prompt_tag, limit, TYPING_VERSION, aliases)


def relation_items(conn: sqlite3.Connection, settings: Settings) -> list[tuple[str, str, str, str]]:
    """(kind, target, topic, text) of the open gaps, open conflicts and theses."""
    gaps, conflicts = store.open_items(conn, "gaps"), store.open_items(conn, "conflicts")
    theses = [(t.slug, text) for t in settings.topics for text in t.theses]
    return (
        [("gap", str(g["id"]), g["topic"], g["text"]) for g in gaps]
        + [("conflict", str(c["id"]), c["topic"], c["text"]) for c in conflicts]
        + [("thesis", text, slug, text) for slug, text in theses]
    )


def relations_base_key(
    items: list[tuple[str, str, str, str]], settings: Settings, prompt_tag: str
) -> str:
    return store.digest(
        items,
        [e.model_dump() for e in settings.entities],
        prompt_tag,
        settings.curate.gap_similarity,
    )


def relations_key(
    base: str, paper: Mapping[str, Any], topics: list[str], pages: list[tuple[int, str]]
) -> str:
    return store.digest(base, paper["title"], paper["abstract"], topics, store.digest(pages))


def claims_quick_key(
    text_version: int, prompt_tag: str, limit: int, aliases: dict[str, list[str]]
) -> str:
    """The claims key with the paper's text version in place of its chunks."""
    return store.digest("claims", text_version, prompt_tag, limit, TYPING_VERSION, aliases)


def relations_quick_key(base: str, paper: Mapping[str, Any], topics: list[str]) -> str:
    """The relations key with the paper's text version in place of its pages."""
    return store.digest(base, paper["title"], paper["abstract"], topics, paper["text_version"])


async def triage_step(ctx: Context, papers: list[sqlite3.Row]) -> None:
    prompt = load_prompt("triage")
    scope_key = triage_scope_key(ctx.settings, prompt.tag)
    todo = []
    for paper in papers:
        key = triage_key(scope_key, paper)
        if store.step_hash(ctx.conn, paper["id"], "triage") != key:
            todo.append((paper, key))
    gaps = store.open_items(ctx.conn, "gaps")
    gap_vectors = _gap_vectors(ctx, gaps)
    ambiguous = []
    for paper, key in todo:
        sims = ctx.line_vectors @ ctx.vectors[paper["id"]]
        text = f"{paper['title']}. {paper['abstract'] or ''}"
        decision = decide_by_embedding(sims, ctx.lines, ctx.settings.curate, text)
        if decision is None:
            ambiguous.append((paper, key, *shortlist(sims, ctx.lines, ctx.settings.curate)))
        else:
            _save_decision(ctx, paper, key, decision, gaps, gap_vectors)

    async def judge(item: tuple[sqlite3.Row, str, list[ScopeLine], list[str]]) -> Decision:
        paper, _, near, destinations = item
        return await decide_by_llm(
            ctx.llm,
            prompt,
            ctx.settings.field.name,
            near,
            destinations,
            paper["title"],
            paper["abstract"] or "",
        )

    results = await ctx.bounded(ambiguous, judge, "triage")
    for (paper, key, _, _), result in zip(ambiguous, results, strict=True):
        if isinstance(result, LLMFailure):
            ctx.failures.append((paper["id"], "triage", str(result)))
        else:
            _save_decision(ctx, paper, key, result, gaps, gap_vectors)


def _save_decision(
    ctx: Context,
    paper: sqlite3.Row,
    key: str,
    decision: Decision,
    gaps: list[sqlite3.Row],
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
    store.save_triage(ctx.conn, paper["id"], [row], key, ctx.run_id)


def _outside_window(ctx: Context, paper: sqlite3.Row, topic: str) -> bool:
    """The window bounds automatic intake (arXiv discovery), not what a user adds by hand."""
    if paper["source"] != "arxiv" or not paper["published"]:
        return False
    window = ctx.settings.topic(topic).window_days
    return dt.date.fromisoformat(paper["published"][:10]) < dt.date.today() - dt.timedelta(
        days=window
    )


def _boundary(
    ctx: Context,
    paper: sqlite3.Row,
    decision: Decision,
    gaps: list[sqlite3.Row],
    gap_vectors: np.ndarray,
) -> tuple[bool, Decision]:
    """Outside the window: kept only when it strongly matches an open gap of the topic."""
    window = ctx.settings.topic(decision.destination).window_days
    own = [i for i, gap in enumerate(gaps) if gap["topic"] == decision.destination]
    if own:
        sims = gap_vectors[own] @ ctx.vectors[paper["id"]]
        best = int(np.argmax(sims))
        if float(sims[best]) >= ctx.settings.curate.gap_similarity + 0.1:
            gap = gaps[own[best]]
            decision.reason += (
                f"; outside the {window}-day window, taken as a boundary case for "
                f'the open gap "{gap["text"]}"'
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


def entity_aliases(settings: Settings) -> dict[str, list[str]]:
    """The tracked names of models and hardware, by kind, for claim typing."""
    aliases: dict[str, list[str]] = {}
    for entity in settings.entities:
        if entity.kind in ("model", "hardware"):
            aliases.setdefault(entity.kind, []).extend([entity.name, *entity.aliases])
    return aliases


@dataclass
class _PaperClaims:
    paper: sqlite3.Row
    key: str
    quick: str
    typed: list[tuple[Claim, Proposal]]


def _type_paper(
    ctx: Context, paper: sqlite3.Row, chunks: list[tuple[int | None, str, str]]
) -> list[tuple[Claim, Proposal]]:
    """Every number sentence of the paper, typed by code."""
    aliases = entity_aliases(ctx.settings)
    pages = dict(store.pages_of(ctx.conn, paper["id"]))
    typed = []
    for candidate in find_candidates(chunks):
        text = pages.get(candidate.page) if candidate.page else paper["abstract"]
        typed += code_claims(candidate, text, aliases)
    return typed


def _choice_jobs(todo: list[_PaperClaims], limit: int) -> list[tuple[_PaperClaims, int]]:
    """The model chooses spans for at most `limit` claims a paper: the likeliest headlines
    among those where code proposes more than one span for a field."""
    jobs = []
    for item in todo:
        names = system_names(item.paper["title"], item.paper["abstract"] or "")
        order = sorted(
            range(len(item.typed)), key=lambda i: -headline_score(item.typed[i][0], names)
        )
        picked = [i for i in order if item.typed[i][0].verified and needs_choice(item.typed[i][1])]
        jobs += [(item, i) for i in picked[:limit]]
    return jobs


async def claims_step(ctx: Context, papers: list[sqlite3.Row]) -> None:
    prompt = load_prompt("claim")
    limit = ctx.settings.curate.max_claims_per_paper
    aliases = entity_aliases(ctx.settings)
    stamps = Stamps(ctx.conn, "claims")
    todo: list[_PaperClaims] = []
    for paper in papers:
        if not store.topics_of(ctx.conn, paper["id"]):
            continue
        quick = claims_quick_key(paper["text_version"], prompt.tag, limit, aliases)
        if stamps.quick_match(paper["id"], quick):
            continue
        chunks = store.chunks_of(ctx.conn, paper["id"])
        key = claims_key(chunks, prompt.tag, limit, aliases)
        if stamps.changed(paper["id"], quick, key):
            todo.append(_PaperClaims(paper, key, quick, _type_paper(ctx, paper, chunks)))
    stamps.flush()

    async def choose(job: tuple[_PaperClaims, int]) -> Claim:
        item, i = job
        claim, proposal = item.typed[i]
        return await choose_spans(ctx.llm, prompt, item.paper["title"], claim, proposal)

    jobs = _choice_jobs(todo, limit)
    results = await ctx.bounded(jobs, choose, "claims") if jobs else []
    failed: set[str] = set()
    for (item, i), result in zip(jobs, results, strict=True):
        if isinstance(result, LLMFailure):
            failed.add(item.paper["id"])
            ctx.failures.append((item.paper["id"], "claims", str(result)))
        else:
            item.typed[i] = (result, item.typed[i][1])
    for item in todo:
        if item.paper["id"] in failed:
            continue
        paper = item.paper
        own = system_names(paper["title"], paper["abstract"] or "")
        gated = [gate(c, own) for c, _ in item.typed]
        claims = mark_headlines(gated, paper["title"], paper["abstract"] or "")
        setup = setup_names(store.chunks_of(ctx.conn, paper["id"]), aliases)
        claims = [with_setup(c, setup) for c in claims]
        store.save_claims(ctx.conn, item.paper["id"], claims, item.key, ctx.run_id, item.quick)
        ctx.bump("claims", len(claims))
        ctx.bump("claims:verified", sum(c.verified for c in claims))
        ctx.bump("claims:headline", sum(c.headline for c in claims))


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
        found = entity_relations(entities, paper["title"], abstract, pages)
        sims = item_vectors @ ctx.vectors[paper["id"]] if items else np.zeros(0)
        units = paper_sentences(abstract, pages)
        candidates = []
        for i, item in enumerate(items):
            if sims[i] < ctx.settings.curate.gap_similarity:
                continue
            if item[0] != "thesis" and item[2] not in topics:
                continue
            evidence = find_evidence(item[3], item_vectors[i], units, ctx.embed)
            if evidence and evidence_on_page(evidence, abstract, dict(pages)):
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
