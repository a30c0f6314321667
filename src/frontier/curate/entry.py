"""The entry: what the work is (phrased by the model), its headline verified numbers and why it
matters here (both assembled by code from verified claims and relations)."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from frontier.curate.claims import ClaimRow
from frontier.curate.relations import Relation
from frontier.llm.client import LLM
from frontier.llm.prompts import Prompt

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_DIGIT = re.compile(r"\d")


class EntryText(BaseModel):
    what_it_is: str = Field(min_length=20, max_length=420)


def _without_numbers(text: str) -> str:
    """Numbers in an entry come only from verified claims: drop model sentences that state any."""
    kept = [s for s in _SENTENCE.split(" ".join(text.split())) if not _DIGIT.search(s)]
    return " ".join(kept[:2]).strip()


def headline(claims: list[ClaimRow], limit: int = 3) -> str:
    """The verified numbers, as code writes them."""
    parts = []
    for claim in claims[:limit]:
        where = f"p. {claim.page}" if claim.page else "abstract"
        against = f" vs {claim.baseline}" if claim.baseline else ""
        direction = f" {claim.direction}" if claim.direction else ""
        parts.append(
            f"{claim.metric}{direction}: {claim.value_text}{claim.unit}{against} ({where})"
        )
    return "Verified: " + "; ".join(parts) + "." if parts else ""


def why_it_matters(relations: list[Relation], names: dict[str, str]) -> str:
    """Relations to the KB in one sentence, most specific first."""
    order = {"gap": 0, "conflict": 1, "thesis": 2, "first": 3, "coverage": 4, "entity": 5}
    bits = []
    for relation in sorted(relations, key=lambda r: (order.get(r.kind, 9), r.target)):
        label = names.get(f"{relation.kind}:{relation.target}", relation.target)
        if relation.kind == "gap":
            bits.append(f'bears on the open gap "{label}"')
        elif relation.kind == "conflict":
            bits.append(f'bears on the flagged conflict "{label}"')
        elif relation.kind == "thesis":
            bits.append(f'bears on the thesis "{label}" — {relation.detail}')
        elif relation.kind in ("first", "coverage"):
            bits.append(relation.detail)
    entities = sorted(
        {names.get(f"entity:{r.target}", r.target) for r in relations if r.kind == "entity"}
    )
    if entities:
        bits.append("concerns " + ", ".join(entities[:4]))
    if not bits:
        return ""
    text = "; ".join(bits[:4])
    return "Why it matters here: " + text[0].lower() + text[1:] + "."


async def write_entry(
    llm: LLM,
    prompt: Prompt,
    field: str,
    topic: str,
    title: str,
    abstract: str,
    claims: list[ClaimRow],
    relations: list[Relation],
    names: dict[str, str],
) -> tuple[str, str]:
    """(entry text, model that phrased it)."""
    messages = prompt.messages(field=field, topic=topic, title=title, abstract=abstract[:3000])
    answer = await llm.structured(
        EntryText, messages, purpose="entry", prompt_version=prompt.tag, max_tokens=320
    )
    what = _without_numbers(answer.value.what_it_is) or title
    parts = [what, headline([c for c in claims if c.verified]), why_it_matters(relations, names)]
    return " ".join(p for p in parts if p), answer.result.model
