"""Sentences that carry a measured number with a unit, with their page: found by code."""

from __future__ import annotations

import re
from dataclasses import dataclass

from frontier.curate.spans import is_score_change
from frontier.text import (
    LIST_BULLET,
    SentenceStarts,
    any_word,
    fold_dashes,
    fold_space,
    split_sentences,
)

_UNIT = (
    r"(?:×|x(?![a-z])|-fold|%|percent|times|tokens?/s|tok/s|tokens per second|req(?:uests)?/s|QPS|"
    r"[KMGT]B/s|[KMGT]i?B|ms|µs|us|s(?![a-z])|seconds|minutes|hours|bits?|-bit|bit|"
    r"TFLOPS|GFLOPS|W(?![a-z])|J(?![a-z])|\$|USD|GPUs?|B(?![a-z])|M(?![a-z])|K(?![a-z]))"
)
# a number written into a name ("Yi-34B", "Llama-3-8B", "FP16") is part of the name, not a value
_NUMBER_UNIT = re.compile(
    rf"(?<![A-Za-z_\d.,])(?<![A-Za-z0-9_]-)(?P<value>\$?\d+(?:[.,]\d+)?(?:\s*[-–]\s*\d+(?:\.\d+)?)?)\s?(?P<unit>{_UNIT})",
    re.IGNORECASE,
)
_CUE = any_word(
    r"speed ?ups?|faster|slower|improv\w*|reduc\w*|increas\w*|decreas\w*|outperform\w*|"
    r"achiev\w*|higher|lower|less|more|throughput|latency|memory|accuracy|perplexity|cost|"
    r"compared|than|up to|while|gains?|boosts?|lift|over|relative to|versus|vs|drops?|dropped|"
    r"loses?|lost"
)
# a bare number, for a score change told without a unit ("0.7 better perplexity")
_SCORE_NUMBER = re.compile(r"(?<![\w.,-])\d+(?:\.\d+)?(?![\w.%×,])")
_TABLE_ROW = 6  # more numbers than this in one "sentence": a table row or a figure's axis labels
_PREFERRED_SECTIONS = {"abstract": 3, "evaluation": 2, "introduction": 2, "conclusion": 1}


@dataclass(frozen=True)
class ClaimCandidate:
    """A sentence that states measured numbers: where code looks for claims."""

    page: int | None
    section: str
    sentence: str
    values: tuple[str, ...]  # numbers as printed, e.g. '2.5', '2-4'
    units: tuple[str, ...]
    score: float
    continued: bool = False  # the sentence runs on from its page onto the next one


def _numbers_with_units(sentence: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    values, units = [], []
    for match in _NUMBER_UNIT.finditer(sentence):
        values.append(fold_dashes(match.group("value").lstrip("$")).replace(" ", ""))
        units.append("$" if match.group("value").startswith("$") else match.group("unit"))
    for match in _SCORE_NUMBER.finditer(sentence):
        if is_score_change(sentence, match.start(), match.end()):
            values.append(match.group())
            units.append("")
    return tuple(dict.fromkeys(values)), tuple(dict.fromkeys(units))


def _score(sentence: str, section: str, n_values: int) -> float:
    cues = len(_CUE.findall(sentence))
    table_like = max(0, n_values - 4) * 2  # rows of tables and figure labels, not statements
    return (
        cues
        + min(n_values, 4)
        + _PREFERRED_SECTIONS.get(section, 0)
        - table_like
        - len(sentence) / 400
    )


def find_candidates(
    chunks: list[tuple[int | None, str, str]], limit: int | None = None
) -> list[ClaimCandidate]:
    """The claim-bearing sentences of (page, section, text) chunks, one per sentence, best
    first; all of them unless `limit` is given."""
    found: dict[str, ClaimCandidate] = {}
    for (page, section, text), head in across_pages(chunks):
        sentences = (
            s
            for line in text.split("\n")
            for part in LIST_BULLET.split(line)
            for s in split_sentences(fold_space(part), SentenceStarts.CLAIM, abbreviations=True)
        )
        for sentence in sentences:
            if not 30 <= len(sentence) <= 400:
                continue
            values, units = _numbers_with_units(sentence)
            if not values or not _CUE.search(sentence) or len(values) > _TABLE_ROW:
                continue
            score = _score(sentence, section, len(values))
            continued = bool(head) and sentence.endswith(head)
            candidate = ClaimCandidate(page, section, sentence, values, units, score, continued)
            found.setdefault(sentence, candidate)
    ranked = sorted(found.values(), key=lambda c: (-c.score, c.page or 0, c.sentence))
    return ranked[:limit] if limit is not None else ranked


_ENDED = re.compile(r"[.!?:;][\"”’)\]]*$")
_FIRST_END = re.compile(r"[.!?](?=\s|$)")


def across_pages(
    chunks: list[tuple[int | None, str, str]],
) -> list[tuple[tuple[int | None, str, str], str]]:
    """The chunks with a sentence a page break cuts in two read whole on the page it starts on:
    a chunk ending mid-sentence takes the next page's opening words up to their full stop when
    that page opens in lower case ("… the forward" / "and the backward passes …"). Each chunk
    comes with the words it took ("" when none)."""
    texts = [text for _, _, text in chunks]
    heads = [""] * len(chunks)
    for index in range(len(chunks) - 1):
        page, following = chunks[index][0], chunks[index + 1][0]
        text, after = texts[index], texts[index + 1].lstrip()
        if page is None or following != page + 1 or _ENDED.search(text.rstrip()):
            continue
        if not after[:1].islower():
            continue
        end = _FIRST_END.search(after)
        cut = end.end() if end else len(after)
        heads[index] = fold_space(after[:cut])
        texts[index] = f"{text.rstrip()} {after[:cut]}"
        texts[index + 1] = after[cut:]
    return [
        ((page, section, text), head)
        for (page, section, _), text, head in zip(chunks, texts, heads, strict=True)
    ]
