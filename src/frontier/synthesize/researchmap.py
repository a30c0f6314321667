"""A research map of a set of papers, found by code: themes by clustering what the papers
contribute, each theme's systems and reported gains, the papers' own statements of what is
left open, their typed headline results by the part of the stack they change, and a chronology
by dates. The model's prose goes on top only where the papers bear it out."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel, Field

from frontier.curate.earned import ModelGate, failed_words, stored_gate
from frontier.extract.chunk import estimate_tokens
from frontier.llm.client import LLM
from frontier.llm.embeddings import Embedder
from frontier.llm.prompts import Prompt, load_prompt
from frontier.llm.records import LLMFailure, Usage
from frontier.model import Claim, Paper
from frontier.store.claim_text import phrase_claim
from frontier.store.model_checks import record_checks
from frontier.store.retrieval import paper_dates
from frontier.synthesize.ask import budget_for
from frontier.synthesize.bundle import Bundle
from frontier.synthesize.citations import check_citations, check_numbers, cited_numbers
from frontier.synthesize.extracts import LEVERS, OTHER_LEVER, PaperFacts, lever, paper_facts
from frontier.synthesize.grounding import Dropped, check_sentences
from frontier.synthesize.papers import SUMMARY_TOKENS as DIGEST_TOKENS
from frontier.synthesize.papers import paper_bundle
from frontier.synthesize.themes import contains_phrase, group, key_phrase, name_misfit
from frontier.text import WordStyle, fold_space, split_words

_PLACEHOLDER = re.compile(r"^\W*$|<[^>]*>|\.\.\.|…")


def _says_words(value: str, minimum: int) -> bool:
    """Real words, not the reply format's placeholder echoed back."""
    value = fold_space(value)
    real = split_words(value, WordStyle.LETTERS, min_length=3)
    return not _PLACEHOLDER.search(value) and len(real) >= minimum


class CitedItem(BaseModel):
    text: str  # one item without real words is dropped, not a reason to refuse the reply
    papers: list[int] = Field(default_factory=list)


class ThemeName(BaseModel):
    theme: int
    name: str  # held to the theme's papers after the reply is read, not a reason to refuse it


class ProseReply(BaseModel):
    """The model's part of a map: prose over the extracts, each sentence checked after."""

    overview: str = ""
    problems: list[CitedItem] = Field(default_factory=list)
    takeaways: list[CitedItem] = Field(default_factory=list)
    names: list[ThemeName] = Field(default_factory=list)


@dataclass
class Theme:
    name: str
    summary: str  # what code found: the theme's systems in order and the gains they report
    members: list[int]
    named_by: str = "code"  # or the model whose name the theme's papers bear out


@dataclass
class Item:
    """An open problem or a takeaway: a quoted sentence or a typed claim of a cited paper
    (by code), or a sentence of the model's that the papers bear out."""

    text: str
    papers: list[int]
    page: int | None = None  # where the quoted sentence or the claim stands; None: abstract
    quote: str = ""  # a claim's source sentence
    group: str = ""  # a takeaway's part of the stack
    by: str = "code"


@dataclass
class ResearchMap:
    bundle: Bundle
    mode: str = "extracts by code"
    overview: str = ""  # the model's prose, as the check kept it
    themes: list[Theme] = field(default_factory=list)
    apart: list[int] = field(default_factory=list)  # papers that fit no theme
    papers: list[dict[str, Any]] = field(default_factory=list)  # number, system, contribution
    chronology: list[tuple[str, list[int]]] = field(default_factory=list)
    problems: list[Item] = field(default_factory=list)
    takeaways: list[Item] = field(default_factory=list)
    removed: list[tuple[str, int]] = field(default_factory=list)
    dropped: list[tuple[str, Dropped]] = field(default_factory=list)  # sentences taken out
    notes: list[str] = field(default_factory=list)  # why the model's prose is missing
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
        for numbered in [t.members for t in self.themes] + [i.papers for i in self.problems]:
            numbers.update(numbered)
        return sorted(numbers)

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "overview": self.overview,
            "themes": [t.__dict__ for t in self.themes],
            "apart": self.apart,
            "papers": self.papers,
            "chronology": [{"period": p, "papers": n} for p, n in self.chronology],
            "open_problems": [i.__dict__ for i in self.problems],
            "takeaways": [i.__dict__ for i in self.takeaways],
            "removed_citations": [{"where": w, "n": n} for w, n in self.removed],
            "removed_sentences": [
                {"where": w, "sentence": d.sentence, "reason": d.reason} for w, d in self.dropped
            ],
            "notes": self.notes,
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


async def write_map(
    conn: sqlite3.Connection,
    llm: LLM,
    embedder: Embedder,
    field_name: str,
    papers: list[Paper],
    *,
    think: bool = False,
    model_mode: str = "auto",
) -> ResearchMap:
    """The map by code from the papers' own sentences and typed results; then, when the model
    is trusted with it, its prose over those extracts, kept sentence by sentence."""
    rmap = ResearchMap(with_published_dates(conn, paper_bundle(conn, papers, DIGEST_TOKENS)))
    prompt = load_prompt("map")
    rmap.prompt_tag = prompt.tag
    if not papers:
        return rmap
    facts = paper_facts(conn, rmap.bundle, {p.id: p.abstract or "" for p in papers})
    rmap.papers = [_paper_line(f) for f in facts]
    _add_themes(rmap, facts, embedder)
    rmap.chronology = chronology(rmap.bundle)
    rmap.problems = problems_by_code(facts, embedder)
    rmap.takeaways = takeaways_by_code(facts)
    model = await llm.model_name()
    gate = stored_gate(conn, "map", model, prompt.tag, model_mode)
    if gate.asks():
        reply = await _ask_prose(llm, prompt, rmap, facts, field_name, think)
        gate.checked(_add_prose(rmap, facts, reply) if reply else False)
        record_checks(conn, "map", gate.model, gate.prompt_version, gate.outcomes, llm.run_id)
    else:
        rmap.notes.append(_not_asked(gate))
    return rmap


def _not_asked(gate: ModelGate) -> str:
    if gate.mode == "never":
        return "the model was not asked for prose: [curate] model_steps sets map to never"
    return f"the model was not asked for prose: its replies to maps {failed_words(*gate.stopped)}"


def _paper_line(facts: PaperFacts) -> dict[str, Any]:
    return {
        "number": facts.number,
        "system": facts.system,
        "contribution": facts.contribution,
        "part": lever(facts),
    }


def _add_themes(rmap: ResearchMap, facts: list[PaperFacts], embedder: Embedder) -> None:
    """Themes over the papers' titles and abstracts; each named by the phrase its papers'
    titles and abstracts share that one of its titles or contribution sentences says."""
    said = [f"{f.title}. {f.contribution}" for f in facts]
    whole = [f"{f.title}. {f.abstract or f.contribution}" for f in facts]
    grouping = group(embedder.embed(whole))
    taken: set[str] = set()
    for members in grouping.themes:
        others = [whole[i] for i in range(len(whole)) if i not in members]
        name = key_phrase([whole[i] for i in members], others, taken, [said[i] for i in members])
        name = name or f"Theme {len(rmap.themes) + 1}"
        taken.add(name.lower())
        chosen = [facts[i] for i in members]
        rmap.themes.append(Theme(name, theme_line(chosen), [f.number for f in chosen]))
    rmap.apart = [facts[i].number for i in grouping.apart]


def theme_line(members: list[PaperFacts]) -> str:
    """The theme's systems oldest first with their citations, then the range of gains they
    report, each end with its baseline, setting and page."""
    ordered = sorted(members, key=lambda f: (f.date or "9999", f.number))
    years = sorted({f.date[:4] for f in members if f.date[:4].isdigit()})
    span = f"{years[0]}–{years[-1]}" if len(years) > 1 else (years[0] if years else "")
    systems = ", ".join(f"{f.system} [{f.number}]" for f in ordered)
    line = f"{len(members)} papers{', ' + span if span else ''}: {systems}."
    gains = [(c, f.number) for f in members for c in f.headlines[:1] if _a_gain(c)]
    if len(gains) == 1:
        claim, number = gains[0]
        line += f" Reported: {phrase_claim(claim)} [{number}]."
    elif gains:
        low = min(gains, key=lambda g: (g[0].value or 0.0, g[1]))
        high = max(gains, key=lambda g: (g[0].value or 0.0, -g[1]))
        line += (
            f" Reported gains run from {phrase_claim(low[0])} [{low[1]}] to "
            f"{phrase_claim(high[0])} [{high[1]}]."
        )
    return line


def _a_gain(claim: Claim) -> bool:
    """A headline that says how many times better: a ratio with a direction."""
    return claim.value is not None and claim.unit in ("×", "x") and bool(claim.direction)


PROBLEM_SIMILARITY = 0.8  # two open problems this close are one, raised by both papers


def problems_by_code(facts: list[PaperFacts], embedder: Embedder) -> list[Item]:
    """The papers' own statements of what is left open, near-duplicates merged."""
    quotes = [q for f in facts for q in f.problems]
    if not quotes:
        return []
    vectors = embedder.embed([q.text for q in quotes])
    items: list[Item] = []
    kept: list[int] = []
    for i, quote in enumerate(quotes):
        same = next(
            (k for k, j in enumerate(kept) if vectors[i] @ vectors[j] >= PROBLEM_SIMILARITY), None
        )
        if same is not None:
            papers = items[same].papers
            items[same].papers = papers if quote.number in papers else [*papers, quote.number]
            continue
        kept.append(i)
        items.append(Item(quote.text, [quote.number], quote.page))
    return items


def takeaways_by_code(facts: list[PaperFacts]) -> list[Item]:
    """Each paper's first headline result (or, uncurated, its abstract's result sentence),
    grouped by the part of the stack a practitioner would change."""
    items: list[Item] = []
    parts = {f.number: lever(f) for f in facts}
    for part in [*(name for name, _ in LEVERS), OTHER_LEVER]:
        for f in (f for f in facts if parts[f.number] == part):
            if f.headlines:
                claim = f.headlines[0]
                text = f"{f.system}: {phrase_claim(claim)} [{f.number}]"
                items.append(Item(text, [f.number], claim.page, claim.quote, part))
            elif f.results:
                quote = f.results[0]
                items.append(Item(f"{quote.text} [{f.number}]", [f.number], None, quote.text, part))
    return items


def extracts_text(rmap: ResearchMap, facts: list[PaperFacts], budget: int) -> str:
    """What code found, as the model reads it, cut to `budget` tokens (contributions first
    shortened, then whole papers left out from the end)."""
    themes = "\n".join(
        f"Theme {i}: {t.name}: papers {' '.join(f'[{n}]' for n in t.members)}"
        for i, t in enumerate(rmap.themes, start=1)
    )
    lines = []
    for f in facts:
        results = "; ".join(phrase_claim(c) for c in f.headlines[:2]) or " ".join(
            q.text for q in f.results[:1]
        )
        open_ = " ".join(q.text for q in f.problems[:1])
        lines.append(
            f"[{f.number}] {f.system} ({f.date[:7] or 'date unknown'}): {f.contribution}"
            + (f" Results: {results}." if results else "")
            + (f" Leaves open: {open_}" if open_ else "")
        )
    text = f"Themes:\n{themes}\n\nPapers:\n" + "\n".join(lines)
    while lines and estimate_tokens(text) > budget:
        lines.pop()
        text = f"Themes:\n{themes}\n\nPapers:\n" + "\n".join(lines)
    return text


_MAX_ITEMS = 3  # of the model's problems and takeaways each: what the prompt asks for
_MAX_PROSE_TOKENS = 420  # the reply's JSON: an overview and six one-sentence items at most


async def _ask_prose(
    llm: LLM,
    prompt: Prompt,
    rmap: ResearchMap,
    facts: list[PaperFacts],
    field_name: str,
    think: bool,
) -> ProseReply | None:
    extracts = extracts_text(rmap, facts, budget_for(llm) - _MAX_PROSE_TOKENS)
    try:
        outcome = await llm.structured(
            ProseReply,
            prompt.messages(field=field_name, extracts=extracts),
            max_tokens=_MAX_PROSE_TOKENS,
            purpose="map:prose",
            prompt_version=prompt.tag,
            think=think,
        )
    except LLMFailure as failure:
        rmap.notes.append(f"the model's prose: {failure.message}")
        return None
    rmap.usage.add(outcome.result.usage)
    rmap.model = outcome.result.model
    if outcome.result.reasoning:
        rmap.reasoning.append(outcome.result.reasoning)
    return outcome.value


def _add_prose(rmap: ResearchMap, facts: list[PaperFacts], reply: ProseReply) -> bool:
    """The model's sentences the papers bear out, and its theme names its papers use; whether
    any of it was kept."""
    valid = rmap.bundle.numbers()
    said = _says_words(reply.overview, 5)
    rmap.overview = _checked(rmap, "overview", reply.overview, valid) if said else ""
    kept = bool(rmap.overview)
    for where, items, target in (
        ("open problems", reply.problems, rmap.problems),
        ("takeaways", reply.takeaways, rmap.takeaways),
    ):
        for item in items[:_MAX_ITEMS]:
            if not _says_words(item.text, 5):
                continue
            if text := _checked(rmap, where, item.text, valid):
                papers = _checked_numbers(rmap, where, item.papers, valid)
                target.append(Item(text, papers, by=rmap.model or "model"))
                kept = True
    for proposed in reply.names[: len(rmap.themes)]:
        kept = _renamed(rmap, facts, proposed) or kept
    return kept


def _renamed(rmap: ResearchMap, facts: list[PaperFacts], proposed: ThemeName) -> bool:
    """The model's name for a theme, kept only when it is a phrase its papers use and fits."""
    if not 1 <= proposed.theme <= len(rmap.themes):
        return False
    theme = rmap.themes[proposed.theme - 1]
    by_number = {f.number: f for f in facts}
    texts = [f"{by_number[n].title}. {by_number[n].abstract}" for n in theme.members]
    taken = {t.name.lower() for t in rmap.themes if t is not theme}
    misfit = name_misfit(proposed.name, [by_number[n].title for n in theme.members], taken)
    if not misfit and not contains_phrase(proposed.name, texts):
        misfit = "not a phrase its papers use"
    if misfit:
        rmap.dropped.append(
            ("theme name", Dropped(proposed.name, f"{misfit}; the code's name stays"))
        )
        return False
    theme.name, theme.named_by = proposed.name, rmap.model or "model"
    return True


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
