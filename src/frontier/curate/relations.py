"""How a paper relates to what the KB tracks: entities (matched by code), gaps, conflicts and
theses (addressed part by part by the paper's own-work sentences, see `curate.addresses`; the
model confirms only a near miss, and only with a reason that the evidence and the abstract bear
out and that speaks of the part code did not find), firsts and coverage (counted by code). The
evidence is always the paper's own sentence with its page."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field

from frontier.config import Entity
from frontier.curate.addresses import ItemPart, holds, stems_of
from frontier.curate.spans import names_hardware_from
from frontier.curate.support import CITES_OTHERS, is_prose, plain_math, support
from frontier.llm.client import LLM
from frontier.llm.prompts import Prompt
from frontier.model import Relation
from frontier.text import prose_sentences


@dataclass(frozen=True)
class Evidence:
    sentence: str
    page: int | None


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


OTHERS_KINDS = frozenset({"related work", "background"})
_OPENS_OWN = re.compile(r"^\W*(?:[\w-]+,?\s+){0,3}(?:we|our)\b", re.IGNORECASE)


def paper_sentences(
    abstract: str, pages: list[tuple[int, str]], kinds_by_page: dict[int, set[str]] | None = None
) -> list[tuple[str, int | None]]:
    """The abstract's sentences (page None), then those of every page that are the paper's own:
    not on a page of related work or background alone, and not citing other work unless the
    paper is their subject ("We evaluate LLaMA [52] ...", not "X [7] is orthogonal to our
    work")."""
    kinds_by_page = kinds_by_page or {}
    found: list[tuple[str, int | None]] = [(s, None) for s in prose_sentences(plain_math(abstract))]
    found += [
        (s, number)
        for number, text in pages
        if not (kinds_by_page.get(number) and kinds_by_page[number] <= OTHERS_KINDS)
        for s in prose_sentences(plain_math(text))
        if not CITES_OTHERS.search(s) or _OPENS_OWN.match(s)
    ]
    return [(s, p) for s, p in found if is_prose(s)]


def entity_relations(
    entities: list[Entity],
    title: str,
    abstract: str,
    pages: list[tuple[int, str]],
    kinds_by_page: dict[int, set[str]] | None = None,
) -> list[Relation]:
    """Every tracked entity the paper's own sentences name, with the first that names it."""
    found = []
    units = [(title, None), *paper_sentences(abstract, pages, kinds_by_page)]
    for entity in entities:
        aliases = [entity.name, *entity.aliases]
        for sentence, page in units:
            named = next(filter(None, (_named_as(entity, a, sentence) for a in aliases)), None)
            if named is not None:
                detail = f"names {naming(entity.name, named)}"
                found.append(Relation("entity", entity.slug, detail, sentence, "code", page))
                break
    return found


def _named_as(entity: Entity, alias: str, sentence: str) -> str | None:
    """How the sentence names the entity by `alias`, or None: an organisation written only as
    the maker of a piece of hardware ("on NVIDIA A800 clusters") is the hardware's name, not
    the paper's concern; one written before its product is named with it ("NVIDIA
    FasterTransformer")."""
    for found in _alias_pattern(alias).finditer(sentence):
        if entity.kind != "organisation":
            return alias
        if names_hardware_from(sentence, found.start(), found.end()):
            continue
        product = _PRODUCT_AFTER.match(sentence, found.end())
        return f"{alias} {product.group('name')}" if product else alias
    return None


# a product written after its maker's name ("NVIDIA FasterTransformer", "NVIDIA TensorRT-LLM"):
# one word with a capital inside it
_PRODUCT_AFTER = re.compile(r"['’]?s?\s+(?P<name>[A-Za-z][a-z0-9]*[A-Z][\w-]*)")


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


# how a paper's sentence names an entity, read from the words before it
_ROLES = (
    (
        "builds on",
        r"(?:on top of|built (?:up)?on|builds (?:up)?on|based on|extends?|extending"
        r"|integrated? (?:in|into|with)|implemented (?:in|on|atop))",
    ),
    (
        "compared against",
        r"(?:than|over|versus|vs\.?|compared (?:to|with)|relative to|against"
        r"|outperforms?|outperforming|beats?)",
    ),
    ("measured on", r"(?:on|with|using|for|of|evaluat(?:e|es|ed|ing)|running|runs?)"),
)
ROLE_ORDER = (*(role for role, _ in _ROLES), "concerns")
ROLE_WORDS = 3  # words between the cue and the entity's name ("than the original vLLM")
_PREPOSITIONS = r"(?:on|with|using|for|of|in|at|by|to|from|than|over|against)"  # a new phrase


def entity_role(shown: str, evidence: str) -> str:
    """What the paper's sentence does with the entity it names as `shown`: builds on it,
    compares against it, or measures on it (a number in the sentence); else it concerns it."""
    alias = written_as(shown.split(" (tracked as ")[0], evidence)
    for role, cue in _ROLES:
        between = rf"(?:(?!{_PREPOSITIONS}\b)[\w.-]+\s+){{0,{ROLE_WORDS}}}?"
        before = rf"\b{cue}\s+{between}\(?{re.escape(alias)}(?![\w])"
        measured = role != "measured on" or bool(re.search(r"\d", evidence.replace(alias, "")))
        found = re.search(before, evidence, re.IGNORECASE) if measured else None
        if found and (role != "builds on" or _OWN_SUBJECT.search(evidence, 0, found.start())):
            return role
    return "concerns"


# what a sentence's work is before "built on" / "implemented in" for the paper to build on it:
# we, our, or a coined name ("vAttention is implemented on top of vLLM"), not a third party
# ("the CUDA VMM APIs are implemented in the NVIDIA drivers")
_OWN_SUBJECT = re.compile(r"\b(?:[Ww]e|[Oo]ur|us)\b|\b\w*[a-z][A-Z][\w-]*")


def written_as(name: str, evidence: str) -> str:
    """The name as the sentence writes it: the name, or its shortest tail the sentence holds
    ("NVIDIA A100" in "on single A100 GPUs" is written "A100")."""
    words = name.split()
    for start in range(len(words)):
        tail = " ".join(words[start:])
        if re.search(rf"(?<![\w]){re.escape(tail)}(?![a-z])", evidence, re.IGNORECASE):
            return tail
    return name


def checked_how(how: str, evidence: str, abstract: str) -> str:
    """The model's sentence, when it is one whole sentence with no number (numbers come from
    typed claims) and the evidence and the abstract bear it out; else nothing."""
    how = " ".join(how.split()).strip()
    whole = len(how) >= 20 and how[0].isupper() and how[-1] in ".!?"
    if not whole or re.search(r"\d", how):
        return ""
    return how if support(how, f"{evidence} {abstract}").supported else ""


def speaks_of(part: ItemPart, how: str) -> bool:
    """The model's reason holds the part code did not find in the paper's own-work sentences."""
    return holds(part, stems_of(how))


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
    missing: ItemPart,
) -> tuple[Relation | None, bool]:
    """The model's verdict on a near miss (the paper's own work holds every part of the item
    but `missing`): kept only when its reason is borne out by the evidence and the abstract and
    speaks of the missing part; with whether the reply passed that check."""
    messages = prompt.messages(
        field=field,
        kind=kind,
        item=item,
        missing=missing.text,
        title=title,
        abstract=abstract[:3000],
        evidence=evidence.sentence,
    )
    answer = await llm.structured(
        RelateVerdict, messages, purpose=f"relate:{kind}", prompt_version=prompt.tag, max_tokens=320
    )
    verdict = answer.value
    if not verdict.bears_on_it:
        return None, True
    how = checked_how(verdict.how, evidence.sentence, abstract)
    if not how or not speaks_of(missing, how):
        return None, False  # a yes whose reason the paper does not bear out: the check failed
    stance = verdict.stance if kind == "thesis" and verdict.stance != "neither" else ""
    return Relation(kind, target, stance, evidence.sentence, "llm", evidence.page, how), True
