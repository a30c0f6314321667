"""A research map of a set of papers: themes by clustering, prose by the model, chronology by
dates, and every [n] checked against the bundle. Map-reduce when the bundle exceeds the context."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field, replace
from typing import Annotated, Any

import numpy as np
from pydantic import AfterValidator, BaseModel, Field

from frontier.curate.vectors import ensure_paper_vectors
from frontier.llm.client import LLM
from frontier.llm.embeddings import Embedder
from frontier.llm.pool import gather_bounded, warm_then_bounded
from frontier.llm.prompts import load_prompt
from frontier.llm.records import LLMFailure, Structured, Usage
from frontier.store.retrieval import paper_dates
from frontier.synthesize.ask import budget_for
from frontier.synthesize.bundle import Bundle
from frontier.synthesize.citations import check_citations, check_numbers, cited_numbers
from frontier.synthesize.grounding import Dropped, check_sentences
from frontier.synthesize.papers import DIGEST_TOKENS, batches, paper_bundle, title_list
from frontier.synthesize.themes import cluster, keyword_name, name_misfit

_WORD = re.compile(r"[^\W\d_]{3,}")
_PLACEHOLDER = re.compile(r"^\W*$|<[^>]*>|\.\.\.|…")


def _words(minimum: int) -> Any:
    """A validator: real words, not the reply format's placeholder echoed back."""

    def check(value: str) -> str:
        value = " ".join(value.split())
        if _PLACEHOLDER.search(value) or len(_WORD.findall(value)) < minimum:
            raise ValueError(f"needs at least {minimum} real words, not a placeholder")
        return value

    return AfterValidator(check)


Name = Annotated[str, Field(max_length=120), _words(1)]
Prose = Annotated[str, _words(5)]


class ThemeReply(BaseModel):
    name: Name
    summary: Prose


class OverviewReply(BaseModel):
    overview: Prose


class CitedItem(BaseModel):
    text: Prose
    papers: list[int] = Field(default_factory=list)


class ProblemItem(BaseModel):
    problem: Prose
    papers: list[int] = Field(default_factory=list)


class ProblemsReply(BaseModel):
    problems: list[ProblemItem] = Field(min_length=1, max_length=8)


class TakeawaysReply(BaseModel):
    takeaways: list[CitedItem] = Field(min_length=1, max_length=8)


class NotesReply(BaseModel):
    notes: list[CitedItem] = Field(min_length=1, max_length=12)


@dataclass
class Theme:
    name: str
    summary: str
    members: list[int]


@dataclass
class Item:
    text: str
    papers: list[int]


@dataclass
class ResearchMap:
    bundle: Bundle
    mode: str = "single pass"
    overview: str = ""
    themes: list[Theme] = field(default_factory=list)
    chronology: list[tuple[str, list[int]]] = field(default_factory=list)
    problems: list[Item] = field(default_factory=list)
    takeaways: list[Item] = field(default_factory=list)
    removed: list[tuple[str, int]] = field(default_factory=list)
    dropped: list[tuple[str, Dropped]] = field(default_factory=list)  # sentences taken out
    failures: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    prompt_tag: str = ""
    reasoning: list[str] = field(default_factory=list)

    def cited(self) -> list[int]:
        """Every paper number the map cites, after the check."""
        numbers: set[int] = set()
        texts = [self.overview] + [t.summary for t in self.themes]
        texts += [i.text for i in self.problems + self.takeaways]
        for text in texts:
            numbers.update(cited_numbers(text))
        for group in [t.members for t in self.themes] + [i.papers for i in self.problems]:
            numbers.update(group)
        return sorted(numbers)

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "overview": self.overview,
            "themes": [t.__dict__ for t in self.themes],
            "chronology": [{"period": p, "papers": n} for p, n in self.chronology],
            "open_problems": [i.__dict__ for i in self.problems],
            "takeaways": [i.__dict__ for i in self.takeaways],
            "removed_citations": [{"where": w, "n": n} for w, n in self.removed],
            "removed_sentences": [
                {"where": w, "sentence": d.sentence, "reason": d.reason} for w, d in self.dropped
            ],
            "failures": self.failures,
            "model": self.model,
            "prompt_version": self.prompt_tag,
            "usage": self.usage.__dict__,
        }


UNKNOWN_DATE = "date unknown"


def chronology(bundle: Bundle) -> list[tuple[str, list[int]]]:
    """Papers by half-year of their date, oldest first (computed, not written by the model);
    papers whose date is unknown are placed in no period, only listed last as such."""
    periods: dict[str, list[int]] = {}
    unknown: list[int] = []
    for source in bundle.sources:
        year, month = source.date[:4], source.date[5:7]
        if not year.isdigit():
            unknown.append(source.number)
            continue
        period = f"{year} H{1 if int(month) <= 6 else 2}" if month.isdigit() else year
        periods.setdefault(period, []).append(source.number)
    return sorted(periods.items()) + ([(UNKNOWN_DATE, unknown)] if unknown else [])


def with_published_dates(conn: sqlite3.Connection, bundle: Bundle) -> Bundle:
    """The bundle with each paper's publication date, empty when unknown (the papers selected
    for a map may carry their ingest date in its place)."""
    dates = paper_dates(conn, {source.paper_id for source in bundle.sources})
    return Bundle([replace(s, date=dates.get(s.paper_id, "")) for s in bundle.sources])


# room for each part's JSON; a small model that loops stops here instead of at the server limit
_MAX_TOKENS = {"theme": 200, "overview": 320, "problems": 480, "takeaways": 420, "notes": 640}


@dataclass(frozen=True)
class Part:
    """One call of a map: the reply's schema, the context it reads and the part it writes."""

    schema: type[BaseModel]
    context: str
    part: str
    members: str = ""


class MapWriter:
    """Runs the calls of one map over a shared context, so a prefix cache reuses it."""

    def __init__(self, llm: LLM, field_name: str, think: bool) -> None:
        self.llm = llm
        self.field = field_name
        self.think = think
        self.prompt = load_prompt("map")

    async def reply(self, part: Part) -> Structured[BaseModel]:
        messages = self.prompt.messages(
            field=self.field, bundle=part.context, part=part.part, members=part.members
        )
        return await self.llm.structured(
            part.schema,
            messages,
            max_tokens=_MAX_TOKENS[part.part],
            purpose=f"map:{part.part}",
            prompt_version=self.prompt.tag,
            think=self.think,
        )

    async def replies(self, rmap: ResearchMap, parts: list[Part], shared: bool) -> list[Any]:
        """Each part's reply (None where the model failed), asked concurrently; with a `shared`
        context the first goes alone, so the server has that context cached for the others.
        What the replies add to the map is added in the order of `parts`."""
        limit = self.llm.settings.max_in_flight
        ask = warm_then_bounded if shared else gather_bounded
        outcomes = await ask(parts, self.reply, limit)
        return [self._take(rmap, p.part, o) for p, o in zip(parts, outcomes, strict=True)]

    def _take(
        self, rmap: ResearchMap, part: str, outcome: Structured[BaseModel] | LLMFailure
    ) -> Any:
        if isinstance(outcome, LLMFailure):
            rmap.failures.append(f"{part}: {outcome.message}")
            return None
        rmap.usage.add(outcome.result.usage)
        rmap.model = outcome.result.model
        if outcome.result.reasoning:
            rmap.reasoning.append(f"{part}: {outcome.result.reasoning}")
        return outcome.value


def _checked(
    rmap: ResearchMap, where: str, text: str, valid: set[int], bundle: Bundle | None = None
) -> str:
    """Each sentence held against the papers, then citations outside `valid` removed."""
    grounded = check_sentences(text.strip(), bundle or rmap.bundle, valid=valid)
    rmap.dropped.extend((where, dropped) for dropped in grounded.dropped)
    check = check_citations(grounded.text, valid)
    rmap.removed.extend((where, n) for n in check.removed)
    return check.text


def _checked_numbers(
    rmap: ResearchMap, where: str, numbers: list[int], valid: set[int]
) -> list[int]:
    kept, removed = check_numbers(numbers, valid)
    rmap.removed.extend((where, n) for n in removed)
    return kept


async def _notes_context(writer: MapWriter, rmap: ResearchMap, budget: int) -> str:
    """Map step: notes per batch of papers; the reduce context is the title list plus notes."""
    groups = batches(rmap.bundle, budget)
    rmap.mode = f"map-reduce over {len(groups)} batches"
    parts = [Part(NotesReply, group.render(), "notes") for group in groups]
    lines = []
    for group, reply in zip(groups, await writer.replies(rmap, parts, shared=False), strict=True):
        valid = group.numbers()
        for note in reply.notes if reply else []:
            if text := _checked(rmap, "notes", note.text, valid, group):
                lines.append("- " + text)
    return f"{title_list(rmap.bundle)}\n\nNotes on these papers:\n" + "\n".join(lines)


async def write_map(
    conn: sqlite3.Connection,
    llm: LLM,
    embedder: Embedder,
    field_name: str,
    papers: list[sqlite3.Row],
    *,
    think: bool = False,
) -> ResearchMap:
    budget = budget_for(llm)
    rmap = ResearchMap(with_published_dates(conn, paper_bundle(conn, papers, DIGEST_TOKENS)))
    writer = MapWriter(llm, field_name, think)
    rmap.prompt_tag = writer.prompt.tag
    if not papers:
        return rmap
    context = rmap.bundle.render()
    if rmap.bundle.tokens() > budget:
        context = await _notes_context(writer, rmap, budget)
    vectors = ensure_paper_vectors(conn, embedder, papers)
    groups = [
        [i + 1 for i in group] for group in cluster(np.stack([vectors[p["id"]] for p in papers]))
    ]
    themes = [Part(ThemeReply, context, "theme", ", ".join(f"[{n}]" for n in g)) for g in groups]
    rest = [Part(s, context, name) for s, name in _WHOLE_MAP_PARTS]
    replies = await writer.replies(rmap, [*themes, *rest], shared=True)
    _add_themes(rmap, groups, replies[: len(themes)])
    rmap.chronology = chronology(rmap.bundle)
    _add_whole_map_parts(rmap, *replies[len(themes) :])
    return rmap


_WHOLE_MAP_PARTS = (
    (OverviewReply, "overview"),
    (ProblemsReply, "problems"),
    (TakeawaysReply, "takeaways"),
)


def _add_themes(rmap: ResearchMap, groups: list[list[int]], replies: list[Any]) -> None:
    for members, reply in zip(groups, replies, strict=True):
        name = _theme_name(rmap, reply.name if reply else "", members)
        # a theme's summary says what its own papers share: citing others is an error
        summary = _checked(rmap, "theme", reply.summary, set(members)) if reply else ""
        rmap.themes.append(Theme(name, summary, members))


def _add_whole_map_parts(rmap: ResearchMap, overview: Any, problems: Any, takeaways: Any) -> None:
    valid = rmap.bundle.numbers()
    rmap.overview = _checked(rmap, "overview", overview.overview, valid) if overview else ""
    for item in problems.problems if problems else []:
        if text := _checked(rmap, "open problems", item.problem, valid):
            rmap.problems.append(
                Item(text, _checked_numbers(rmap, "open problems", item.papers, valid))
            )
    for item in takeaways.takeaways if takeaways else []:
        if text := _checked(rmap, "takeaways", item.text, valid):
            rmap.takeaways.append(
                Item(text, _checked_numbers(rmap, "takeaways", item.papers, valid))
            )


def _theme_name(rmap: ResearchMap, proposed: str, members: list[int]) -> str:
    """The model's name when it fits its papers, else one made from their titles."""
    titles = {source.number: source.title for source in rmap.bundle.sources}
    member_titles = [titles[n] for n in members]
    if proposed:
        taken = {theme.name.lower() for theme in rmap.themes}
        misfit = name_misfit(proposed, member_titles, taken)
        if not misfit:
            return proposed
        reason = f"{misfit}; named from the titles instead"
        rmap.dropped.append(("theme name", Dropped(proposed, reason)))
    return keyword_name(member_titles, list(titles.values()))
