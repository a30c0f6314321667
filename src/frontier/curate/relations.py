"""How a paper relates to what the KB tracks: entities (matched by code), gaps, conflicts and
theses (embedding candidates, each with a sentence of the paper found by code as evidence, the
model confirming or vetoing), firsts and coverage (counted by code). The evidence is always the
paper's own sentence with its page; the model's "how" is kept only when that sentence and the
abstract bear it out."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from frontier.config import Entity
from frontier.curate.support import content_stems, is_prose, sentences_of, support
from frontier.curate.verify import quote_on_page
from frontier.llm.client import LLM
from frontier.llm.prompts import Prompt

EVIDENCE_SHORTLIST = 8  # sentences ranked by shared words, then by embedding similarity


@dataclass(frozen=True)
class Relation:
    kind: str  # entity | gap | conflict | thesis | first | coverage
    target: str
    detail: str
    evidence: str = ""  # a sentence of the paper, verified on its page (or in the abstract)
    stage: str = "code"
    page: int | None = None  # the evidence's page; None for the abstract or the title
    how: str = ""  # the model's one sentence, kept only when checked against the evidence


@dataclass(frozen=True)
class Evidence:
    sentence: str
    page: int | None
    similarity: float


class RelateVerdict(BaseModel):
    bears_on_it: bool
    stance: Literal["supports", "challenges", "neither"]
    how: str = Field(max_length=240)


@cache
def _alias_pattern(alias: str) -> re.Pattern[str]:
    flags = 0 if len(alias) <= 4 or any(c.isupper() for c in alias[1:]) else re.IGNORECASE
    return re.compile(rf"(?<![\w-]){re.escape(alias)}(?![\w])", flags)


def before_references(
    pages: list[tuple[int, str]], references: tuple[int, str] | None
) -> list[tuple[int, str]]:
    """The pages up to the reference list: a cited title is not the paper's own sentence."""
    if references is None:
        return pages
    page, heading = references
    kept = [(n, text) for n, text in pages if n < page]
    for n, text in pages:
        if n == page:
            found = re.search(rf"^\s*(?:\d+\.?\s*)?{re.escape(heading)}\s*$", text, re.M)
            if found:
                kept.append((n, text[: found.start()]))
    return kept


def paper_sentences(abstract: str, pages: list[tuple[int, str]]) -> list[tuple[str, int | None]]:
    """The abstract's sentences (page None), then every page's, as quotable units."""
    found = [(s, None) for s in sentences_of(abstract)]
    found += [(s, number) for number, text in pages for s in sentences_of(text)]
    return [(s, p) for s, p in found if is_prose(s)]


def entity_relations(
    entities: list[Entity], title: str, abstract: str, pages: list[tuple[int, str]]
) -> list[Relation]:
    """Every tracked entity named in the paper, with the sentence that first names it."""
    found = []
    units = [(title, None), *paper_sentences(abstract, pages)]
    for entity in entities:
        aliases = [entity.name, *entity.aliases]
        for sentence, page in units:
            named = next((a for a in aliases if _alias_pattern(a).search(sentence)), None)
            if named is not None:
                detail = f"names {naming(entity.name, named)}"
                found.append(Relation("entity", entity.slug, detail, sentence, "code", page))
                break
    return found


def naming(name: str, alias: str) -> str:
    """How a paper that writes `alias` names the entity tracked as `name`: an alias that is not
    part of the name (a sibling product, a former name) is shown as the paper wrote it."""
    if alias.casefold() in name.casefold():
        return name
    return f"{alias} (tracked as {name})"


def entity_as_named(detail: str, name: str) -> str:
    """The entity as an entity relation's detail ("names ...") says the paper names it; `name`
    for a relation stored without one."""
    return detail.removeprefix("names ") if detail.startswith("names ") else name


def find_evidence(
    item: str,
    item_vector: np.ndarray,
    units: list[tuple[str, int | None]],
    embed: Callable[[list[str]], np.ndarray],
) -> Evidence | None:
    """The paper's sentence nearest to a gap, conflict or thesis: shortlisted by shared words,
    chosen by embedding similarity."""
    wanted = content_stems(item)
    if not units or not wanted:
        return None
    overlap = [len(wanted & content_stems(sentence)) for sentence, _ in units]
    order = sorted(range(len(units)), key=lambda i: (-overlap[i], units[i][1] or 0))
    shortlist = [units[i] for i in order[:EVIDENCE_SHORTLIST] if overlap[i] > 0]
    if not shortlist:
        return None
    sims = embed([sentence for sentence, _ in shortlist]) @ item_vector
    best = int(np.argmax(sims))
    return Evidence(shortlist[best][0], shortlist[best][1], float(sims[best]))


def evidence_on_page(evidence: Evidence, abstract: str, pages: dict[int, str]) -> bool:
    source = abstract if evidence.page is None else pages.get(evidence.page, "")
    return quote_on_page(evidence.sentence, source)


def checked_how(how: str, evidence: str, abstract: str) -> str:
    """The model's sentence, when it is one whole sentence with no number (numbers come from
    typed claims) and the evidence and the abstract bear it out; else nothing."""
    how = " ".join(how.split()).strip()
    whole = len(how) >= 20 and how[0].isupper() and how[-1] in ".!?"
    if not whole or re.search(r"\d", how):
        return ""
    return how if support(how, f"{evidence} {abstract}").supported else ""


async def confirm_relation(
    llm: LLM,
    prompt: Prompt,
    field: str,
    kind: str,
    target: str,
    item: str,
    title: str,
    abstract: str,
    evidence: Evidence,
) -> Relation | None:
    """The model's verdict on one candidate; the evidence is code's, the "how" checked."""
    messages = prompt.messages(
        field=field,
        kind=kind,
        item=item,
        title=title,
        abstract=abstract[:3000],
        evidence=evidence.sentence,
    )
    answer = await llm.structured(
        RelateVerdict, messages, purpose=f"relate:{kind}", prompt_version=prompt.tag, max_tokens=320
    )
    verdict = answer.value
    if not verdict.bears_on_it:
        return None
    how = checked_how(verdict.how, evidence.sentence, abstract)
    stance = verdict.stance if kind == "thesis" and verdict.stance != "neither" else ""
    return Relation(
        kind,
        target,
        stance,
        evidence.sentence,
        "llm",
        evidence.page,
        how,
    )
