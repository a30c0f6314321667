"""Claims: code finds the sentences and their numbers, the LLM types them, code verifies them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field, create_model

from frontier.curate.candidates import Candidate
from frontier.curate.verify import normalize, verify_claim
from frontier.llm.client import LLM
from frontier.llm.prompts import Prompt


@dataclass
class ClaimRow:
    metric: str
    value: float | None
    value_text: str
    unit: str
    direction: str
    baseline: str
    model_name: str
    hardware: str
    condition: str
    page: int | None
    quote: str
    verified: bool
    verify_note: str
    model: str
    prompt_version: str


def claim_schema(candidate: Candidate) -> type[BaseModel]:
    """The value can only be one of the numbers code found in the sentence."""
    return create_model(
        "Claim",
        metric=(str, Field(min_length=2, max_length=40)),
        value=(Literal[candidate.values], ...),  # type: ignore[valid-type]
        unit=(Literal[tuple([*candidate.units, ""])], ...),  # type: ignore[valid-type]
        direction=(Literal["higher", "lower", ""], ...),
        baseline=(str, Field(max_length=80)),
        model=(str, Field(max_length=60)),
        hardware=(str, Field(max_length=40)),
        condition=(str, Field(max_length=80)),
    )


_METRIC_BY_UNIT = {
    "×": "speedup",
    "x": "speedup",
    "X": "speedup",
    "%": "relative change",
    "percent": "relative change",
    "tokens/s": "throughput",
    "tok/s": "throughput",
    "tokens per second": "throughput",
    "ms": "latency",
    "s": "latency",
    "seconds": "latency",
    "GB": "memory",
    "MB": "memory",
    "$": "cost",
    "USD": "cost",
    "bit": "bit width",
    "bits": "bit width",
    "-bit": "bit width",
    "W": "power",
    "J": "energy",
}
_METRIC_SHAPE = re.compile(r"[a-z][a-z0-9 /()+-]{1,39}")


def clean_metric(metric: str, unit: str) -> str:
    """The model names the metric; a name that is not words falls back to one the unit implies."""
    metric = " ".join(metric.lower().split())
    letters = sum(ch.isalpha() for ch in metric)
    if _METRIC_SHAPE.fullmatch(metric) and letters >= 3:
        return metric
    return _METRIC_BY_UNIT.get(unit, "measured value")


def grounded(field: str, quote: str) -> str:
    """Baseline, model, hardware and condition are facts: kept only when the quote says them."""
    field = " ".join(field.split()).strip(" .,;:")
    return field if len(field) >= 2 and normalize(field) in normalize(quote) else ""


def first_number(text: str) -> float | None:
    match = re.search(r"\d+(?:\.\d+)?", text.replace(",", ""))
    return float(match.group(0)) if match else None


async def type_claim(
    llm: LLM, prompt: Prompt, title: str, candidate: Candidate, page_text: str | None
) -> ClaimRow:
    schema = claim_schema(candidate)
    messages = prompt.messages(
        title=title, page=candidate.page or "abstract", sentence=candidate.sentence
    )
    answer = await llm.structured(
        schema, messages, purpose="claims", prompt_version=prompt.tag, max_tokens=300
    )
    typed = answer.value
    value_text = str(typed.value)  # type: ignore[attr-defined]
    verified, note = verify_claim(candidate.sentence, value_text, page_text)
    quote = candidate.sentence
    return ClaimRow(
        metric=clean_metric(typed.metric, typed.unit),  # type: ignore[attr-defined]
        value=first_number(value_text),
        value_text=value_text,
        unit=typed.unit,
        direction=typed.direction,  # type: ignore[attr-defined]
        baseline=grounded(typed.baseline, quote),  # type: ignore[attr-defined]
        model_name=grounded(typed.model, quote),  # type: ignore[attr-defined]
        hardware=grounded(typed.hardware, quote),  # type: ignore[attr-defined]
        condition=grounded(typed.condition, quote),  # type: ignore[attr-defined]
        page=candidate.page,
        quote=candidate.sentence,
        verified=verified,
        verify_note=note,
        model=answer.result.model,
        prompt_version=prompt.tag,
    )
