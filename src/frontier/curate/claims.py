"""Claims: code finds every number sentence and proposes each field as a span of it, the model
only chooses among the proposals, and code gates every field before it is stored."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Literal

from pydantic import BaseModel, create_model

from frontier.curate.candidates import ClaimCandidate
from frontier.curate.spans import LOWER_IS_BETTER, REFERENCE_POINT, Proposal, Span, propose
from frontier.curate.support import CITES_OTHERS
from frontier.curate.verify import normalize, verify_claim
from frontier.llm.client import LLM
from frontier.llm.prompts import Prompt
from frontier.model import Claim
from frontier.text import NumberShape, any_word, find_numbers

# part of every paper's claims key: a change in how code types claims redoes every paper
TYPING_VERSION = "spans-47"
NONE = "none"
CODE = "code"
CHOICES = 4  # spans offered to the model per field, code's best first


def first_number(text: str) -> float | None:
    found = find_numbers(text.replace(",", ""), NumberShape.DECIMAL)
    return float(found[0]) if found else None


def code_claims(
    candidate: ClaimCandidate,
    page_text: str | None,
    aliases: dict[str, list[str]],
) -> list[tuple[Claim, Proposal]]:
    """Every measured number of the sentence as a claim typed from code's best spans."""
    typed = []
    for proposal in propose(candidate.sentence, aliases):
        verified, note = verify_claim(candidate.sentence, proposal.value.text, page_text)
        claim = Claim(
            metric=_first(proposal.metrics),
            value=first_number(proposal.numbers[0]),
            value_text=proposal.value.text,
            unit=proposal.unit,
            direction=proposal.direction,
            baseline=_first(proposal.baselines),
            model_name=_first(proposal.models),
            hardware=_first(proposal.hardware),
            condition=_first(proposal.tasks),
            page=candidate.page,
            quote=candidate.sentence,
            verified=verified,
            verify_note=note,
            model=CODE,
            prompt_version=TYPING_VERSION,
            section=candidate.section,
        )
        typed.append((claim, proposal))
    return typed


def _first(spans: list[Span]) -> str:
    return spans[0].text if spans else ""


_MEASURED = re.compile(r"evaluat|experiment|result|benchmark", re.IGNORECASE)


def with_setup(claim: Claim, setup: dict[str, tuple[str, int]]) -> Claim:
    """Model and hardware from the paper's setup section when the sentence names neither: only
    for the paper's own results (its headline claims and the claims of its evaluation), never
    for a number quoted from background."""
    if not (claim.headline or _MEASURED.search(claim.section)):
        return claim
    claim = replace(claim)
    fields, page = [], None
    if not claim.model_name and "model" in setup:
        claim.model_name, page = setup["model"]
        fields.append("model")
    if not claim.hardware and "hardware" in setup:
        claim.hardware, page = setup["hardware"]
        fields.append("hardware")
    if fields:
        claim.setup_fields, claim.setup_page = ",".join(fields), page
    return claim


def needs_choice(proposal: Proposal) -> bool:
    """The model is asked only where code finds more than one equally plausible span for a
    field; where the sentence ties one span to the value best, code's choice stands."""
    return len(_metric_options(proposal)) > 1 or len(_baseline_options(proposal)) > 1


def _metric_options(proposal: Proposal) -> tuple[str, ...]:
    return _options(proposal.metrics[: proposal.open_metrics])


def _baseline_options(proposal: Proposal) -> tuple[str, ...]:
    return _options(proposal.baselines[: proposal.open_baselines])


def _options(spans: list[Span]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s.text for s in spans[:CHOICES]))


def choice_schema(proposal: Proposal) -> type[BaseModel]:
    """The model may only pick one of the spans code proposes for a field, and is asked only
    about the fields with more than one."""
    fields: dict[str, Any] = {}
    for name, options in (
        ("metric", _metric_options(proposal)),
        ("baseline", _baseline_options(proposal)),
    ):
        if len(options) > 1:
            fields[name] = (Literal[options], ...)
    return create_model("ClaimChoice", **fields)


async def choose_spans(
    llm: LLM, prompt: Prompt, title: str, claim: Claim, proposal: Proposal
) -> Claim:
    """The model's choice among code's spans for the metric and the baseline."""
    messages = prompt.messages(
        title=title,
        page=claim.page or "abstract",
        sentence=claim.quote,
        value=claim.value_text,
        metrics=_metric_options(proposal),
        baselines=_baseline_options(proposal),
    )
    answer = await llm.structured(
        choice_schema(proposal),
        messages,
        purpose="claims",
        prompt_version=prompt.tag,
        max_tokens=120,
    )
    chosen = answer.value.model_dump()
    return replace(
        claim,
        metric=chosen.get("metric", claim.metric),
        baseline=chosen.get("baseline", claim.baseline),
        model=answer.result.model,
        prompt_version=f"{prompt.tag}+{TYPING_VERSION}",
    )


_IDENTIFIER = re.compile(r"[A-Z0-9_]{4,}|\w*_\w*|[\d\W]+")
_PLACEHOLDER = {"measured value", "value", "metric", "number", "result", "results", NONE, "n/a"}


def gate(claim: Claim, own_names: list[str] | None = None) -> Claim:
    """Every typed field must be a span of the quote (model and hardware may come from the
    setup section), the metric no identifier or placeholder, the baseline not the value, the
    direction given by a word of the quote, the baseline not the paper's own system. A field that
    fails is emptied, never stored. A quote that is not prose (an equation, a figure's labels
    run together) keeps its value and no typed field."""
    if not reads_as_prose(claim.quote):
        return replace(claim, metric="", baseline="", model_name="", hardware="", direction="")
    quote = normalize(claim.quote)

    def on_quote(text: str) -> bool:
        return bool(text) and normalize(text) in quote

    metric_ok = (
        on_quote(claim.metric)
        and not _IDENTIFIER.fullmatch(claim.metric)
        and claim.metric.lower() not in _PLACEHOLDER
    )
    numbers = set(find_numbers(claim.value_text, NumberShape.DECIMAL))
    own = {n.lower() for n in own_names or []}
    baseline_ok = (
        on_quote(claim.baseline)
        and claim.baseline.lower().removeprefix("the ") not in own
        and not numbers & set(find_numbers(claim.baseline, NumberShape.DECIMAL))
        and normalize(claim.baseline) != normalize(claim.value_text)
    )
    setup = set(claim.setup_fields.split(",")) if claim.setup_fields else set()
    return replace(
        claim,
        metric=claim.metric if metric_ok else "",
        baseline=claim.baseline if baseline_ok else "",
        model_name=claim.model_name if "model" in setup or on_quote(claim.model_name) else "",
        hardware=claim.hardware if "hardware" in setup or on_quote(claim.hardware) else "",
        direction=claim.direction if claim.direction in ("higher", "lower") else "",
    )


HEADLINE_FLOOR = 6
_OWN = any_word(r"we|our|this paper|this work")
_HEADLINE_SECTIONS = {"abstract": 4, "introduction": 2, "conclusion": 2, "conclusions": 2}


def headline_score(claim: Claim, names: list[str]) -> float:
    """How much a claim reads as one of the paper's own main results."""
    score = _HEADLINE_SECTIONS.get(claim.section, 0) + (2 if claim.page is None else 0)
    score += 1 if claim.page is not None and claim.page <= 2 else 0
    # a bound reached ("68.5% of the optimal throughput") is no comparison with another system
    against_a_system = bool(claim.baseline) and not REFERENCE_POINT.search(claim.baseline)
    score += 2 * bool(claim.metric) + 2 * against_a_system + bool(claim.direction)
    score += 1 if claim.unit in ("×", "%") else 0
    score -= 10 if claim.unit in ("bit", "bits") else 0  # a precision is a setting, not a result
    own = _OWN.search(claim.quote) or any(n in claim.quote for n in names)
    score += 2 if own else 0
    score -= 3 if CITES_OTHERS.search(claim.quote) else 0
    score += 1 if _SUMMARY.search(claim.value_text) else 0
    return score


# a result stated as a summary (a bound, a range, an average) rather than one measurement
_SUMMARY = re.compile(
    r"^(?:up to|on average|an average of|average|mean|geomean|over|more than)\b|\d\s*(?:[-–—−∼~]|to)\s*\d|on average$",
    re.I,
)


_COINED = re.compile(r"(?<![\w-])(?=\w*[A-Z]\w*)(?=\w*[a-z]\w*[A-Z]|[A-Z]{2,})[\w-]{3,}\b")
# capitalised words joined by hyphens, named by a "we introduce" phrase: "Sarathi-Serve"
_JOINED_NAME = re.compile(r"(?<![\w-])[A-Z][a-z]+(?:-[A-Z]\w*)+(?![\w-])(?!\s+[A-Z])")
_INTRODUCES = re.compile(
    r"\bwe (?:\w+ )?(?:propose|present|introduce|build|design|develop|call)\s+([^.;]{0,80})",
    re.IGNORECASE,
)


# "… Serving LLMs without PagedAttention": a name the title sets its system against
_CONTRASTED = re.compile(
    r"\b(?:without|vs\.?|versus|beyond|instead of|than|against|replacing)\s+(?:the\s+)?\S+",
    re.IGNORECASE,
)


def system_names(title: str, abstract: str = "") -> list[str]:
    """Names the paper may give its own system: the title's lead before a colon, its coined
    words (mixed case or capitals, like vLLM, DistServe, SpQR) but not one it is set against
    ('without PagedAttention'), and those of the abstract's 'we propose / build …' phrase."""
    names = []
    lead = _CONTRASTED.sub("", title.split(":", 1)[0]).strip()
    if ":" in title and lead and len(lead.split()) <= 3:
        names.append(lead)
    words = title.split()
    shouting = sum(w.isupper() for w in words) > 0.6 * len(words)  # an all-capitals title
    names += [] if shouting else _COINED.findall(_CONTRASTED.sub(" ", title))
    for phrase in _INTRODUCES.findall(abstract):
        names += _COINED.findall(phrase) + _JOINED_NAME.findall(phrase)
    common = re.compile(r"(?:LLM|GPU|CPU|TPU|KV|AI|ML|NLP|API|MoE|DNN|RAG)s?", re.IGNORECASE)
    return list(dict.fromkeys(n for n in names if len(n) >= 3 and not common.fullmatch(n)))


def result_key(claim: Claim) -> tuple[tuple[str, ...], str]:
    """A result by its numbers and unit: the same result restated in the abstract, the
    introduction and the conclusion has one key."""
    return tuple(find_numbers(claim.value_text, NumberShape.DECIMAL)), claim.unit


_WORSE_WORDS = re.compile(
    r"\bslow(?:er|s|ed)?\b|\bslow-?downs?\b|\bdegrad\w*|\boverheads?\b|\bpenalt\w*|"
    r"\bless (?:efficient|accurate)\b|\bworse\b",
    re.IGNORECASE,
)
_HIGHER_IS_BETTER = re.compile(
    r"throughput|speed|goodput|accuracy|capacity|requests?\b|rate|bandwidth|utili[sz]|MFU|"
    r"score|quality|efficien",
    re.IGNORECASE,
)


def worse_result(claim: Claim) -> bool:
    """A number that says something is worse (slower, costlier, a higher latency, an overhead):
    a cost or a baseline's weakness, never one of the paper's headline results."""
    if _WORSE_WORDS.search(claim.metric):
        return claim.direction != "lower"  # an overhead or a slowdown cut is a gain
    at = claim.quote.find(claim.value_text)
    if at >= 0 and _WORSE_WORDS.match(claim.quote[at + len(claim.value_text) :].lstrip()):
        return True
    lower_is_better = bool(LOWER_IS_BETTER.search(claim.metric))
    if claim.direction == "higher":
        return lower_is_better
    if claim.direction == "lower":
        return not lower_is_better and bool(_HIGHER_IS_BETTER.search(claim.metric))
    return False


_CAPTION = re.compile(r"\b(?:Figure|Fig\.|Table)\s*[A-Z]?\d+(?:\.\d+)?\s*:")


def reads_as_prose(sentence: str) -> bool:
    """Words, not a figure's labels or a table row run into a sentence by the PDF text."""
    tokens = sentence.split()
    words = [t for t in tokens if re.fullmatch(r"\(?[A-Za-z][\w'’-]*[),.;:]*", t)]
    return len(tokens) >= 5 and len(words) >= 0.6 * len(tokens) and not _CAPTION.search(sentence)


def _headline_kind(claim: Claim) -> bool:
    """A sentence of prose that does not say something is worse."""
    return reads_as_prose(claim.quote) and not worse_result(claim)


def best_statements(claims: list[Claim]) -> list[Claim]:
    """Each headline result once, in its best-ranked statement, best result first."""
    best: dict[tuple[tuple[str, ...], str], tuple[float, Claim]] = {}
    for claim in filter(_headline_kind, claims):
        key, score = result_key(claim), headline_score(claim, [])
        if key not in best or score > best[key][0]:
            best[key] = (score, claim)
    return [claim for _, claim in sorted(best.values(), key=lambda pair: -pair[0])]


def _says_a_result(claim: Claim, names: list[str]) -> bool:
    """A comparison (a direction or a baseline), or a number the abstract gives of the paper's
    own system."""
    if claim.direction or claim.baseline:
        return True
    own = _OWN.search(claim.quote) or any(n in claim.quote for n in names)
    return claim.section == "abstract" and bool(own)


_SETTING_UNIT = re.compile(r"^(?:[KMGT]i?B|bits?|[BMK]|tokens?|GPUs?|layers?|heads?)$")
_SETTING_METRIC = any_word(
    r"memory|size|footprint|bits?|batch|parameters?|context|length|capacity of"
)
_INSIDE_BASELINE = re.compile(r"^(?:without|w/o|our|its own|the same)\b", re.IGNORECASE)


def _inside_result(claim: Claim, names: list[str]) -> bool:
    """Not a result against the outside world: the paper's own system as the baseline (a variant
    against the original), an ablation ('without X'), or a setting (a memory size, a bit width,
    a model or batch size) or a share it holds for, stated with no direction."""
    baseline = claim.baseline.strip()
    if baseline and (
        _INSIDE_BASELINE.match(baseline) or any(_names_own(n, baseline) for n in names)
    ):
        return True
    setting = _SETTING_UNIT.match(claim.unit) or _SETTING_METRIC.search(claim.metric)
    return bool(setting or _share_of(claim)) and not claim.direction


def _share_of(claim: Claim) -> bool:
    """'within latency constraints for > 90% of requests': a share the result holds for (a
    condition of it), not a result of its own."""
    at = claim.quote.find(claim.value_text)
    after = claim.quote[at + len(claim.value_text) :] if at >= 0 else ""
    return claim.unit == "%" and not claim.baseline and after.startswith(" of ")


def _names_own(name: str, baseline: str) -> bool:
    """The baseline is the paper's own system: it is its name, or its name and a qualifier
    ('FlashAttention', 'standard FlashAttention'), not another system that contains it."""
    words = re.findall(r"[\w-]+", baseline)
    return name in words and len(words) <= 3


def _choose(scored: list[tuple[float, Claim]], limit: int) -> list[tuple[tuple[str, ...], str]]:
    """The keys of the best-scored distinct results above the floor, at most `limit`."""
    chosen: list[tuple[tuple[str, ...], str]] = []
    # of results scored alike, the one stated first (the abstract's before the body's)
    for score, claim in sorted(scored, key=lambda pair: (-pair[0], pair[1].page or 0)):
        key = result_key(claim)
        if key in chosen or score < HEADLINE_FLOOR:
            continue
        chosen.append(key)
        if len(chosen) == limit:
            break
    return chosen


def mark_headlines(
    claims: list[Claim], title: str, abstract: str = "", limit: int = 3
) -> list[Claim]:
    """The paper's 1-3 headline results: verified claims typed with a metric and a direction
    or baseline, ranked by where they stand and what they say. Every restatement of a chosen
    result is marked too; pages show each result once."""
    names = system_names(title, abstract)
    scored = [
        (headline_score(c, names), c)
        for c in claims
        if c.verified and c.metric and _says_a_result(c, names) and _headline_kind(c)
    ]
    outside = [(s, c) for s, c in scored if not _inside_result(c, names)]
    chosen = _choose(outside, limit) or _choose(scored, limit)
    return [
        replace(
            c,
            headline=c.verified
            and bool(c.metric)
            and result_key(c) in chosen
            and _headline_kind(c),
        )
        for c in claims
    ]
