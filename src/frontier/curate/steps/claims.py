"""Claims step: every number sentence typed by code, the model choosing among equally plausible spans, headline results marked."""

from __future__ import annotations

from dataclasses import dataclass

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
from frontier.curate.context import CurationContext
from frontier.curate.spans import Proposal, setup_names
from frontier.curate.stamps import Stamps
from frontier.curate.support import plain_math
from frontier.llm.prompts import load_prompt
from frontier.llm.records import LLMFailure
from frontier.model import Claim, Paper
from frontier.store import curation as store


def claims_key(
    chunks: list[tuple[int | None, str, str]],
    prompt_tag: str,
    limit: int,
    aliases: dict[str, list[str]],
) -> str:
    return store.stable_hash(chunks, prompt_tag, limit, TYPING_VERSION, aliases)


def claims_quick_key(
    text_version: int, prompt_tag: str, limit: int, aliases: dict[str, list[str]]
) -> str:
    """The claims key with the paper's text version in place of its chunks."""
    return store.stable_hash("claims", text_version, prompt_tag, limit, TYPING_VERSION, aliases)


def entity_aliases(settings: Settings) -> dict[str, list[str]]:
    """The tracked names of models and hardware, by kind, for claim typing."""
    aliases: dict[str, list[str]] = {}
    for entity in settings.entities:
        if entity.kind in ("model", "hardware"):
            aliases.setdefault(entity.kind, []).extend([entity.name, *entity.aliases])
    return aliases


@dataclass
class _PaperClaims:
    paper: Paper
    key: str
    quick: str
    typed: list[tuple[Claim, Proposal]]
    setup: dict[str, tuple[str, int]]  # model and hardware the setup section names


def _type_paper(
    ctx: CurationContext, paper: Paper, chunks: list[tuple[int | None, str, str]]
) -> list[tuple[Claim, Proposal]]:
    """Every number sentence of the paper, typed by code."""
    aliases = entity_aliases(ctx.settings)
    pages = {n: plain_math(text) for n, text in store.pages_of(ctx.conn, paper.id)}
    abstract = plain_math(paper.abstract or "")
    typed = []
    for candidate in find_candidates([(p, s, plain_math(t)) for p, s, t in chunks]):
        text = pages.get(candidate.page, "") if candidate.page else abstract
        if candidate.continued and candidate.page:
            text = f"{text}\n{pages.get(candidate.page + 1, '')}"  # its quote runs on there
        typed += code_claims(candidate, text, aliases)
    return typed


def _choice_jobs(todo: list[_PaperClaims], limit: int) -> list[tuple[_PaperClaims, int]]:
    """The model chooses spans for at most `limit` claims a paper: the likeliest headlines
    among those where code proposes more than one span for a field."""
    jobs = []
    for item in todo:
        names = system_names(item.paper.title, item.paper.abstract or "")
        order = sorted(
            range(len(item.typed)), key=lambda i: -headline_score(item.typed[i][0], names)
        )
        picked = [i for i in order if item.typed[i][0].verified and needs_choice(item.typed[i][1])]
        jobs += [(item, i) for i in picked[:limit]]
    return jobs


async def claims_step(ctx: CurationContext, papers: list[Paper]) -> None:
    prompt = load_prompt("claim")
    limit = ctx.settings.curate.max_claims_per_paper
    aliases = entity_aliases(ctx.settings)
    stamps = Stamps(ctx.conn, "claims")
    todo: list[_PaperClaims] = []
    for paper in papers:
        if not store.topics_of(ctx.conn, paper.id):
            continue
        quick = claims_quick_key(paper.text_version, prompt.tag, limit, aliases)
        if stamps.quick_match(paper.id, quick):
            continue
        chunks = store.chunks_of(ctx.conn, paper.id)
        key = claims_key(chunks, prompt.tag, limit, aliases)
        if stamps.changed(paper.id, quick, key):
            typed = _type_paper(ctx, paper, chunks)
            setup = setup_names(chunks, aliases)
            todo.append(_PaperClaims(paper, key, quick, typed, setup))
    stamps.flush()

    async def choose(job: tuple[_PaperClaims, int]) -> Claim:
        item, i = job
        claim, proposal = item.typed[i]
        return await choose_spans(ctx.llm, prompt, item.paper.title, claim, proposal)

    jobs = _choice_jobs(todo, limit)
    results = await ctx.bounded(jobs, choose, "claims") if jobs else []
    failed: set[str] = set()
    for (item, i), result in zip(jobs, results, strict=True):
        if isinstance(result, LLMFailure):
            failed.add(item.paper.id)
            ctx.failures.append((item.paper.id, "claims", str(result)))
        else:
            item.typed[i] = (result, item.typed[i][1])
    for item in todo:
        if item.paper.id in failed:
            continue
        paper = item.paper
        own = system_names(paper.title, paper.abstract or "")
        gated = [gate(c, own) for c, _ in item.typed]
        claims = mark_headlines(gated, paper.title, paper.abstract or "")
        claims = [with_setup(c, item.setup) for c in claims]
        store.save_claims(ctx.conn, item.paper.id, claims, item.key, ctx.run_id, item.quick)
        ctx.bump("claims", len(claims))
        ctx.bump("claims:verified", sum(c.verified for c in claims))
        ctx.bump("claims:headline", sum(c.headline for c in claims))


run = claims_step
