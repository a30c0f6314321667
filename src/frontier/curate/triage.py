"""Triage: the embedding prefilter decides the clear cases; the LLM judges the ambiguous band.

Before the nearest line decides, two general rules apply. A paper is in the field only when its
few nearest scope lines are close on average, not one line through a shared word. And the wording
of the abstract separates work that changes the model itself (a new architecture, pre-training,
distillation) from work that changes how a given model is run: when the embedding picks the topic
that run-time lines lead to but the abstract speaks only of changing the model, the paper goes
where the configured lines about architectures and training lead. Before both, a paper the user
filed under a topic's name (a Zotero collection or tag) goes to that topic."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field, create_model

from frontier.config import CurateSettings, Topic
from frontier.curate.scope import OUT_OF_FIELD, ScopeLine
from frontier.curate.support import support
from frontier.llm.client import LLM
from frontier.llm.prompts import Prompt
from frontier.text import WordStyle, prose_sentences, split_words

OUT_LABEL = "out-of-field"
# Part of every triage key: a change to the rules below redoes the decisions they made.
RULES_VERSION = "triage-rules-4"


@dataclass
class Decision:
    destination: str  # topic slug or OUT_OF_FIELD
    stage: str  # hint | embedding | llm
    reason: str
    scope_line: str
    score: float
    model: str = ""
    prompt_version: str = ""


# Relevance: the triage floor applies to the mean of this many nearest lines as well as to the
# nearest one, so a paper that shares one phrase with one line is not taken into the field.
RELEVANCE_LINES = 5

# Wording that says the work changes the model itself.
MODEL_CUES = re.compile(
    r"\b(?:pre-?)?train(?:ed|ing)? on (?:\w+ ){0,2}[\d.,]+ ?(?:[bt]rillion|billion|[bmt]) tokens\b"
    r"|\b(?:pre-?)?train(?:ed|ing)? from scratch\b"
    r"|\bwe (?:propose|introduce|present|describe) (?:[\w-]+ ){0,4}"
    r"(?:architecture|transformer|language model)s?\b"
    r"|\b(?:decoder|transformer|model|network|hybrid) architectures?\b"
    r"|\barchitectural (?:choices?|changes?|modifications?)\b"
    r"|\breplac(?:e|es|ed|ing) (?:[\w-]+ ){0,5}(?:attention|feed-?forward|layers?|blocks?)\b"
    r"|\bdrops? (?:the )?attention\b|\bvariant of (?:[\w-]+ )?attention\b"
    r"|\bknowledge distillation\b|\bdistill(?:ed|ing|s)? (?:from|into)\b"
    r"|\b(?:small|smaller|student) (?:[\w-]+ )?models? (?:are |is )?trained\b"
    r"|\buptrain(?:ed|ing)?\b|\bcontinued[- ]train(?:ing|ed)\b|\bfurther trained\b"
    r"|\bpost-training\b(?! (?:[\w-]+ )?(?:quantization|sparsity|sparse|pruning|compression))"
    r"|\b(?:release|releases|released|releasing) (?:the |our |all )?(?:[\w-]+ ){0,3}"
    r"(?:weights|checkpoints|models)\b|\bopen-weights?\b|\btechnical report\b"
    r"|\bwe (?:scale|train|pre-?train) (?:the|our|a|an) (?:[\w-]+ ){0,2}"
    r"(?:architecture|language model|LLM)s?\b",
    re.IGNORECASE,
)
# Wording that says the work changes how a given model is run.
RUN_CUES = re.compile(
    r"\btraining-free\b|\bwithout (?:any )?(?:re-?training|fine-?tuning|modif\w+)\b"
    r"|\bplug-and-play\b|\bdrop-in\b|\bfrozen\b"
    r"|\bpost-training (?:[\w-]+ )?(?:quantization|sparsity|sparse|pruning|compression)\b"
    r"|\b(?:existing|off-the-shelf|given|unmodified) (?:[\w-]+ ){0,2}"
    r"(?:models?|LLMs?|checkpoints?)\b"
    r"|\b(?:serving|inference) (?:system|engine|framework|runtime)s?\b"
    r"|\bschedul(?:er|ers|ing)\b|\bkernels?\b|\bruntime\b|\bevict(?:ion|s|ing)?\b"
    r"|\bspeculative decoding\b|\bbatching\b|\bquantization\b|\bpruning\b",
    re.IGNORECASE,
)
# The same two senses in the short wording of scope lines, to find which topic each leads to.
MODEL_LINE_WORDS = re.compile(r"\barchitect|\btrain|\bdistil|\brelease", re.IGNORECASE)
RUN_LINE_WORDS = re.compile(
    r"\brun time\b|\bruntime\b|\bbatch|\bschedul|\bkernel|\bdecoding\b|\bevict|\bserving\b",
    re.IGNORECASE,
)


def relevance(sims: np.ndarray) -> float:
    """How close the paper is to the field as a whole: the mean of its nearest scope lines."""
    return float(np.sort(sims)[-RELEVANCE_LINES:].mean())


def led_to_by(lines: list[ScopeLine], words: re.Pattern[str]) -> str | None:
    """The destination most scope lines using these words lead to; None when none or tied."""
    votes: dict[str, int] = {}
    for line in lines:
        if words.search(line.text):
            votes[line.destination] = votes.get(line.destination, 0) + 1
    ranked = sorted(votes.values(), reverse=True)
    if not ranked or (len(ranked) > 1 and ranked[0] == ranked[1]):
        return None
    return max(votes, key=votes.__getitem__)


def changes_the_model(text: str) -> str:
    """The first phrase saying the work changes the model, unless it also speaks of running one."""
    if RUN_CUES.search(text):
        return ""
    found = MODEL_CUES.search(text)
    return found.group(0) if found else ""


def model_change_decision(sims: np.ndarray, lines: list[ScopeLine], text: str) -> Decision | None:
    """Moves a model-changing paper from the run-time topic to the architecture-and-training one."""
    cue = changes_the_model(text)
    model_topic, run_topic = led_to_by(lines, MODEL_LINE_WORDS), led_to_by(lines, RUN_LINE_WORDS)
    if not cue or model_topic is None or model_topic == run_topic:
        return None
    if lines[int(np.argmax(sims))].destination != run_topic:
        return None
    index = max(
        (i for i, line in enumerate(lines) if line.destination == model_topic),
        key=lambda i: float(sims[i]),
    )
    return Decision(
        model_topic,
        "embedding",
        f'changes the model itself ("{cue}"), not how a given model is run; '
        f"nearest: {lines[index].describe()} ({float(sims[index]):.2f})",
        lines[index].text,
        float(sims[index]),
    )


def filed_under(collection: str | None, tags: Sequence[str]) -> list[str]:
    """The names a user filed a paper under: each level of its collection's path
    ("Serving/KV cache"), then its tags."""
    levels = [part.strip() for part in (collection or "").split("/") if part.strip()]
    return [*levels, *(t.strip() for t in tags if t.strip())]


def _name_key(text: str) -> str:
    return "-".join(split_words(text.casefold()))


def hinted_topic(names: Sequence[str], topics: Sequence[Topic]) -> Decision | None:
    """The topic a name the user filed the paper under names (its slug or its title, any case
    or separator): the user's own filing settles triage; a name of two topics settles nothing."""
    for name in names:
        key = _name_key(name)
        named = [t for t in topics if key and key in {_name_key(t.slug), _name_key(t.title)}]
        if len(named) == 1:
            topic = named[0]
            return Decision(
                topic.slug, "hint", f"filed under '{name}' in the library it came from", "", 1.0
            )
    return None


def decide_by_embedding(
    sims: np.ndarray, lines: list[ScopeLine], cfg: CurateSettings, text: str = ""
) -> Decision | None:
    """A decision when the scope lines (and the wording of title and abstract) settle it, else None."""
    order = np.argsort(-sims)
    best = lines[int(order[0])]
    best_sim = float(sims[order[0]])
    if best_sim < cfg.triage_floor:
        return Decision(
            OUT_OF_FIELD,
            "embedding",
            f"nothing in any topic's scope is close (best: {best.describe()}, {best_sim:.2f})",
            best.text,
            best_sim,
        )
    near = relevance(sims)
    if near < cfg.triage_floor:
        return Decision(
            OUT_OF_FIELD,
            "embedding",
            f"close to one line only ({best.describe()}, {best_sim:.2f}); the "
            f"{RELEVANCE_LINES} nearest lines average {near:.2f}",
            best.text,
            best_sim,
        )
    if text and (moved := model_change_decision(sims, lines, text)):
        return moved
    rival = next((int(i) for i in order[1:] if lines[int(i)].destination != best.destination), None)
    lead = best_sim - float(sims[rival]) if rival is not None else 1.0
    if best_sim >= cfg.triage_accept and lead >= cfg.triage_margin:
        named = reported_line(sims, lines, best.destination, text)
        return Decision(
            best.destination,
            "embedding",
            f"closest to {named.describe()} ({float(sims[lines.index(named)]):.2f}, "
            f"lead {lead:.2f})",
            named.text,
            best_sim,
        )
    return None


def nearest_line_decision(sims: np.ndarray, near: list[ScopeLine]) -> Decision:
    """The shortlist's nearest scope line decides, when the model that should choose among
    them did not answer."""
    best = near[0]
    score = max(float(x) for x in sims)
    return Decision(
        best.destination,
        "embedding",
        f"nearest to {best.describe()} ({score:.2f}); the model did not answer in time",
        best.text,
        score,
    )


WORDING_WEIGHT = 0.15  # how much a scope line's own words in the abstract count beside similarity


def _prefixes(text: str) -> set[str]:
    return {w.lower()[:5] for w in split_words(text, WordStyle.ASCII_LETTERS, min_length=4)}


def reported_line(
    sims: np.ndarray, lines: list[ScopeLine], destination: str, text: str
) -> ScopeLine:
    """The scope line a decision names: of the lines leading to its destination, the nearest by
    similarity plus the share of the line's words the title and abstract use, so a paper on
    disaggregating prefill and decode is filed under the line that says so."""
    words = _prefixes(text)

    def score(i: int) -> float:
        own = _prefixes(lines[i].text)
        share = len(own & words) / len(own) if own and words else 0.0
        return float(sims[i]) + WORDING_WEIGHT * share

    candidates = [i for i, line in enumerate(lines) if line.destination == destination]
    return lines[max(candidates, key=score)]


SHORTLIST = 6


def shortlist(
    sims: np.ndarray, lines: list[ScopeLine], cfg: CurateSettings
) -> tuple[list[ScopeLine], list[str]]:
    """The scope lines nearest the paper and the destinations they lead to: what the LLM may
    choose from. Out of field is offered only when the paper is not clearly inside the field."""
    order = [int(i) for i in np.argsort(-sims)[:SHORTLIST]]
    near = [lines[i] for i in order]
    destinations = list(dict.fromkeys(line.destination or OUT_LABEL for line in near))
    if float(sims[order[0]]) < cfg.triage_accept and OUT_LABEL not in destinations:
        destinations.append(OUT_LABEL)
    return near, destinations


class TriageVerdict(BaseModel):
    """The model's answer; `triage_schema` narrows the first two fields to the choices offered."""

    destination: str
    scope_line: int
    reason: str = Field(max_length=240)


def _one_of(values: Iterable[object]) -> Any:
    """A Literal of values known only at run time: a type for pydantic, not for the checker."""
    return Literal[tuple(values)]


def triage_schema(lines: list[ScopeLine], destinations: list[str]) -> type[TriageVerdict]:
    return create_model(
        "TriageVerdict",
        __base__=TriageVerdict,
        destination=(_one_of(destinations), ...),
        scope_line=(_one_of(range(1, len(lines) + 1)), ...),
    )


async def decide_by_llm(
    llm: LLM,
    prompt: Prompt,
    field: str,
    near: list[ScopeLine],
    destinations: list[str],
    title: str,
    abstract: str,
) -> Decision:
    schema = triage_schema(near, destinations)
    messages = prompt.messages(
        field=field, lines=near, destinations=destinations, title=title, abstract=abstract[:3000]
    )
    answer = await llm.structured(
        schema, messages, purpose="triage", prompt_version=prompt.tag, max_tokens=320
    )
    verdict = answer.value
    line = near[verdict.scope_line - 1]
    chosen = OUT_OF_FIELD if verdict.destination == OUT_LABEL else verdict.destination
    destination = consistent_destination(chosen, line)
    said = checked_reason(verdict.reason, title, abstract)
    reason = f"{said or 'chosen by the model'} (scope line: {line.describe()})"
    return Decision(destination, "llm", reason, line.text, 0.0, answer.result.model, prompt.tag)


def consistent_destination(chosen: str, line: ScopeLine) -> str:
    """Where a verdict sends the paper: out of the field only when the scope line it names does
    not lead into a topic (a paper the model calls out, filed under a topic's own line, is in)."""
    return line.destination if chosen == OUT_OF_FIELD and line.destination else chosen


def checked_reason(reason: str, title: str, abstract: str) -> str:
    """The model's one-sentence reason, shown only when it is one whole sentence without a
    number that the title and abstract bear out (a small model may echo its instructions,
    invent, or turn a paper's O(1) into O(n^2))."""
    sentences = prose_sentences(reason)
    if len(sentences) != 1 or len(sentences[0]) < 20 or re.search(r"\d", sentences[0]):
        return ""
    sentence = sentences[0]
    return sentence if support(sentence, f"{title}. {abstract}").supported else ""
