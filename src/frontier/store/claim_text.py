"""A claim in words: the one phrasing of a headline number that the entry, research maps, the
vault, the exports and the web all show, made from the claim's typed spans only."""

from __future__ import annotations

import re

from frontier.model import Claim

_PROCESS = re.compile(r"(?:computation|inference|decoding|generation|prefill|training)s?$", re.I)


def phrase_claim(claim: Claim) -> str:
    """A headline number in words, from the claim's typed spans only."""
    value, metric, baseline = claim.value_text, claim.metric, claim.baseline
    if value.startswith("from "):
        text = f"{metric} {value}" + (f" (vs {baseline})" if baseline else "")
    elif re.search(r"faster|slower", metric, re.IGNORECASE):
        text = f"{value} {metric}" + (f" than {baseline}" if baseline else "")
    elif re.search(r"speed-?ups?|improvements?|gains?|savings?|acceleration", metric, re.I):
        text = f"{value} {metric}" + (f" over {baseline}" if baseline else "")
    elif claim.direction == "higher" and _PROCESS.search(metric):
        text = f"{value} faster {metric}" + (f" than {baseline}" if baseline else "")
    elif claim.direction:
        word = _comparative_in_quote(claim) or claim.direction
        text = f"{value} {word} {metric}" + (f" than {baseline}" if baseline else "")
    elif baseline and _share_of(claim):  # "59% to 72% of optimal throughput", as it was said
        text = f"{value} of {baseline}"
    else:
        text = f"{metric}: {value}" + (f" (vs {baseline})" if baseline else "")
    task = f" {claim.condition}" if claim.condition else ""  # "on coding", from the sentence
    return f"{text}{task}{_setting(claim)}"


# "115% and 107% more requests": values listed before the word they share
_LISTED_VALUE = r"\s*(?:,|and|or|, and)\s*(?:up to\s+)?\d[\d.,]*\s?(?:%|×|x)"


def _comparative_in_quote(claim: Claim) -> str:
    """The sentence's own word between the value and the metric ('4.48× more requests',
    '10.2× tighter SLO', '115% and 107% more requests'), when it is a comparative that agrees
    with the direction; 'faster' for a metric the sentence says is accelerated."""
    if claim.direction == "higher" and re.search(
        rf"\b(?:accelerat\w*|speeds? up|sped up)\s+(?:the\s+)?{re.escape(claim.metric)}\b",
        claim.quote,
        re.IGNORECASE,
    ):
        return "faster"  # "accelerates high-priority requests by up to 1.5×"
    found = re.search(
        rf"{re.escape(claim.value_text)}(?:{_LISTED_VALUE})*\s+(more stringent|\w+er|more|less"
        rf"|fewer)\s+{re.escape(claim.metric.split()[0])}",
        claim.quote,
    )
    if found is None:
        return ""
    word = found.group(1).lower()
    lower = word in ("less", "fewer", "lower", "smaller", "shorter", "tighter", "more stringent")
    higher = word in ("more", "higher", "larger", "greater", "faster", "better")
    return (
        word
        if (lower and claim.direction == "lower") or (higher and claim.direction == "higher")
        else ""
    )


def _share_of(claim: Claim) -> bool:
    """The sentence gives the value as a share of its baseline ('68.5% of the optimal …')."""
    said = rf"{re.escape(claim.value_text)}\s+of\s+{re.escape(claim.baseline)}"
    return bool(re.search(said, claim.quote))


def _setting(claim: Claim) -> str:
    """' (p. 1; OPT-13B on NVIDIA A100, setup p. 11)': where, and what it was measured on."""
    where = f"p. {claim.page}" if claim.page else "abstract"
    named = " on ".join(n for n in (claim.model_name, claim.hardware) if n)
    if named and claim.setup_fields:
        named += f", setup p. {claim.setup_page}"
    return f" ({where}; {named})" if named else f" ({where})"
