"""How a paper relates to what the KB tracks: entities (matched by code), gaps, conflicts and
theses (embedding candidates confirmed by the LLM), firsts and coverage (counted by code)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field

from frontier.config import Entity
from frontier.llm.client import LLM
from frontier.llm.prompts import Prompt


@dataclass(frozen=True)
class Relation:
    kind: str  # entity | gap | conflict | thesis | first | coverage
    target: str
    detail: str
    evidence: str = ""
    stage: str = "code"


class RelateVerdict(BaseModel):
    bears_on_it: bool
    stance: Literal["supports", "challenges", "neither"]
    how: str = Field(max_length=240)


@cache
def _alias_pattern(alias: str) -> re.Pattern[str]:
    flags = 0 if len(alias) <= 4 or any(c.isupper() for c in alias[1:]) else re.IGNORECASE
    return re.compile(rf"(?<![\w-]){re.escape(alias)}(?![\w])", flags)


def entity_relations(
    entities: list[Entity], title: str, abstract: str, pages: list[tuple[int, str]]
) -> list[Relation]:
    """Every tracked entity named in the paper, with where it was first seen."""
    found = []
    for entity in entities:
        where = _first_mention(entity, title, abstract, pages)
        if where:
            found.append(Relation("entity", entity.slug, f"names {entity.name}", where))
    return found


def _first_mention(entity: Entity, title: str, abstract: str, pages: list[tuple[int, str]]) -> str:
    aliases = [entity.name, *entity.aliases]
    for label, text in (("title", title), ("abstract", abstract)):
        if any(_alias_pattern(a).search(text) for a in aliases):
            return label
    for number, text in pages:
        if any(_alias_pattern(a).search(text) for a in aliases):
            return f"page {number}"
    return ""


async def confirm_relation(
    llm: LLM,
    prompt: Prompt,
    field: str,
    kind: str,
    target: str,
    item: str,
    title: str,
    abstract: str,
    similarity: float,
) -> Relation | None:
    """The LLM's verdict on one candidate found by embedding similarity."""
    messages = prompt.messages(
        field=field, kind=kind, item=item, title=title, abstract=abstract[:3000]
    )
    answer = await llm.structured(
        RelateVerdict, messages, purpose=f"relate:{kind}", prompt_version=prompt.tag, max_tokens=320
    )
    verdict = answer.value
    if not verdict.bears_on_it:
        return None
    stance = f" ({verdict.stance})" if kind == "thesis" and verdict.stance != "neither" else ""
    return Relation(
        kind, target, f"{verdict.how.strip()}{stance}", f"similarity {similarity:.2f}", "llm"
    )
