"""Citations [n] in model-written text: found, checked against the bundle, bad ones removed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# [3], [3, 5], [3-5], [3–5]; a bracket holding anything else is not a citation
_CITE = re.compile(r"\[(\d+(?:\s*[-–,;]\s*\d+)*)\]")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?])")


@dataclass
class CitationCheck:
    text: str
    cited: list[int] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)


def _numbers(inner: str) -> list[int]:
    numbers: list[int] = []
    for part in re.split(r"\s*[,;]\s*", inner.strip()):
        if re.fullmatch(r"\d+\s*[-–]\s*\d+", part):
            low, high = (int(x) for x in re.split(r"\s*[-–]\s*", part))
            # a range is a citation only when short; "[2019-2023]" is not ten thousand sources
            numbers.extend(range(low, high + 1) if 0 <= high - low <= 20 else [low, high])
        elif part.isdigit():
            numbers.append(int(part))
    return numbers


def cited_numbers(text: str) -> list[int]:
    """Every source number cited in `text`, in order of first appearance."""
    seen: dict[int, None] = {}
    for match in _CITE.finditer(text):
        for number in _numbers(match.group(1)):
            seen.setdefault(number, None)
    return list(seen)


def strip_citations(text: str) -> str:
    return _CITE.sub(" ", text)


def without_reference_marks(sentence: str) -> str:
    """A paper's sentence without its own reference marks ("... for BERT [58] by 15%" → "...
    for BERT by 15%")."""
    return _SPACE_BEFORE_PUNCT.sub(r"\1", " ".join(strip_citations(sentence).split()))


def check_citations(text: str, valid: set[int]) -> CitationCheck:
    """Keep citations of sources in `valid`; drop the others from the text and report them."""
    check = CitationCheck(text)
    removed: dict[int, None] = {}
    cited: dict[int, None] = {}

    def rewrite(match: re.Match[str]) -> str:
        numbers = _numbers(match.group(1))
        good = [n for n in dict.fromkeys(numbers) if n in valid]
        for number in numbers:
            (cited if number in valid else removed).setdefault(number, None)
        return "".join(f"[{n}]" for n in good)

    cleaned = _CITE.sub(rewrite, text)
    check.text = _SPACE_BEFORE_PUNCT.sub(r"\1", cleaned) if removed else cleaned
    check.cited, check.removed = list(cited), list(removed)
    return check


def check_numbers(numbers: list[int], valid: set[int]) -> tuple[list[int], list[int]]:
    """(kept, removed) for a list of paper numbers such as a theme's members."""
    kept = [n for n in dict.fromkeys(numbers) if n in valid]
    return kept, [n for n in dict.fromkeys(numbers) if n not in valid]
