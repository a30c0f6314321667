"""Page text cleanup: de-hyphenation, running headers and footers, page and line numbers."""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise

SOFT_HYPHEN_BREAK = "\ufffe"  # pdfium's mark for a hyphen it knows was inserted at a line end
_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(r"^(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,6})(?:\s*(?:of|/)\s*\d{1,4})?$", re.I)
_LEADING_NUMBER = re.compile(r"^(\d{1,4})\s+(?=\S)")
_EDGE_LINES = 2


_HYPHENATED = re.compile(r"\w+-\w+")
_BREAK = re.compile(r"(\w+)" + SOFT_HYPHEN_BREAK + r"\r?\n?(\w+)")


def join_hyphen_breaks(raw_pages: list[str]) -> list[str]:
    """Join words that pdfium marks as hyphenated at a line end. The hyphen stays when it
    belongs to the word: next to a capital or digit (IO-aware, Llama-2), or when the document
    spells the word with a hyphen elsewhere (hardware-friendly)."""
    hyphenated = set(_HYPHENATED.findall("\n".join(raw_pages)))

    def join(match: re.Match[str]) -> str:
        left, right = match.group(1), match.group(2)
        if left[-1].isupper() or left[-1].isdigit() or right[0].isupper() or right[0].isdigit():
            return f"{left}-{right}"
        if f"{left}-{right}" in hyphenated:
            return f"{left}-{right}"
        return left + right

    return [_BREAK.sub(join, raw) if SOFT_HYPHEN_BREAK in raw else raw for raw in raw_pages]


def split_lines(raw: str) -> list[str]:
    """pdfium text to lines, with leftover soft-hyphen marks and control characters dropped."""
    text = raw.replace(SOFT_HYPHEN_BREAK + "\r\n", "").replace(SOFT_HYPHEN_BREAK, "")
    text = text.replace("\x00", "").replace("\x02", "").replace("\ufeff", "")
    return [line.strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]


def _shape(line: str) -> str:
    return _DIGITS.sub("#", line.lower())


def repeated_edge_lines(pages: list[list[str]]) -> set[str]:
    """Shapes of lines that open or close at least half the pages: running headers and footers."""
    if len(pages) < 3:
        return set()
    counts: Counter[str] = Counter()
    for lines in pages:
        content = [line for line in lines if line]
        edges = set(content[:_EDGE_LINES] + content[-_EDGE_LINES:])
        counts.update({_shape(line) for line in edges if len(line) < 120})
    threshold = max(2, len(pages) // 2)
    return {shape for shape, count in counts.items() if count >= threshold}


def _strip_line_numbers(lines: list[str]) -> list[str]:
    """Drop review-style line numbers, standalone or leading, when they run through the page."""
    numeric = [line for line in lines if line.isdigit()]
    if len(numeric) >= 10 and len(numeric) >= 0.25 * len(lines) and _mostly_increasing(numeric):
        lines = [line for line in lines if not line.isdigit()]
    leading = [m.group(1) for line in lines if (m := _LEADING_NUMBER.match(line))]
    if len(leading) >= 10 and len(leading) >= 0.5 * len(lines) and _mostly_increasing(leading):
        lines = [_LEADING_NUMBER.sub("", line, count=1) for line in lines]
    return lines


def _mostly_increasing(values: list[str]) -> bool:
    numbers = [int(v) for v in values]
    steps = sum(1 for a, b in pairwise(numbers) if 0 < b - a <= 3)
    return steps >= 0.7 * (len(numbers) - 1)


def _drop_edges(lines: list[str], running: set[str], first_page: bool) -> list[str]:
    content_idx = [i for i, line in enumerate(lines) if line]
    edge_idx = set(content_idx[:_EDGE_LINES] + content_idx[-_EDGE_LINES:])
    kept = []
    for i, line in enumerate(lines):
        # a first page often prints the title that later pages repeat as their running header
        repeated = _shape(line) in running and not first_page
        if i in edge_idx and (repeated or _PAGE_NUMBER.match(line)):
            continue
        kept.append(line)
    return kept


def clean_pages(raw_pages: list[str]) -> list[list[str]]:
    """Clean every page of one document; returns each page's non-empty lines."""
    pages = [split_lines(raw) for raw in join_hyphen_breaks(raw_pages)]
    running = repeated_edge_lines(pages)
    cleaned = []
    for number, lines in enumerate(pages):
        lines = _drop_edges(lines, running, first_page=number == 0)
        lines = _strip_line_numbers([line for line in lines if line])
        cleaned.append(lines)
    return cleaned


def join_lines(lines: list[str]) -> str:
    """Lines of running text to one string, keeping hyphens that belong to the words."""
    return " ".join(lines)
