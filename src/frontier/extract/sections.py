"""Section headings, the abstract, and where the references start and end."""

from __future__ import annotations

import re
from dataclasses import dataclass

_NAMED = {
    "abstract": "abstract",
    "introduction": "introduction",
    "background": "background",
    "related work": "related work",
    "related works": "related work",
    "motivation": "motivation",
    "method": "method",
    "methods": "method",
    "methodology": "method",
    "design": "design",
    "implementation": "implementation",
    "evaluation": "evaluation",
    "experiments": "evaluation",
    "experimental results": "evaluation",
    "results": "evaluation",
    "discussion": "discussion",
    "limitations": "limitations",
    "conclusion": "conclusion",
    "conclusions": "conclusion",
    "acknowledgments": "acknowledgments",
    "acknowledgements": "acknowledgments",
    "acknowledgment": "acknowledgments",
    "references": "references",
    "bibliography": "references",
    "appendix": "appendix",
    "appendices": "appendix",
}
_NUMBERED = re.compile(r"^(?P<num>\d{1,2})\.?\s+(?P<title>[A-Z][^\n]{1,78})$")
_ROMAN = re.compile(r"^(?P<num>[IVX]{1,4})\.\s+(?P<title>[A-Z][^\n]{1,78})$")
_APPENDIX = re.compile(r"^(?:Appendix\s+)?(?P<num>[A-H])(?:\.|\s)\s*(?P<title>[A-Z][^\n]{1,58})$")
_LONGEST_NAMED = max(len(name) for name in _NAMED) + 2
_ABSTRACT_INLINE = re.compile(r"^(?:abstract)\s*[—–:.-]\s*(?P<rest>\S.*)$", re.IGNORECASE)
_ROMAN_VALUES = {
    "I": 1,
    "II": 2,
    "III": 3,
    "IV": 4,
    "V": 5,
    "VI": 6,
    "VII": 7,
    "VIII": 8,
    "IX": 9,
    "X": 10,
    "XI": 11,
    "XII": 12,
}


@dataclass
class Heading:
    line_index: int  # position in the document's flat list of lines
    number: str
    title: str
    kind: str  # canonical name, e.g. "introduction", or "other"


def canonical_kind(title: str) -> str:
    key = re.sub(r"[^a-z ]+", "", title.lower()).strip()
    return _NAMED.get(key, "other")


def _looks_like_heading_text(title: str) -> bool:
    words = title.split()
    return (
        0 < len(words) <= 10
        and not title.endswith((".", ",", ";", ":"))
        and title.count(",") <= 1
        and sum(ch.isalpha() for ch in title) >= 0.6 * len(title.replace(" ", ""))
    )


def find_headings(lines: list[str]) -> list[Heading]:
    """Top-level headings: named ones, and numbered ones that follow 1, 2, 3... in order."""
    headings: list[Heading] = []
    expected = 1
    in_references = False
    for index, line in enumerate(lines):
        heading = _match_heading(line, index, expected, in_references)
        if heading is None:
            continue
        if heading.number.isdigit():
            expected = int(heading.number) + 1
        elif heading.number in _ROMAN_VALUES:
            expected = _ROMAN_VALUES[heading.number] + 1
        in_references = in_references or heading.kind == "references"
        if in_references and heading.kind not in ("references", "appendix"):
            heading.kind = "appendix"
        headings.append(heading)
    if not in_references:
        start = unheaded_reference_list(lines)
        if start is not None:
            headings = [h for h in headings if h.line_index < start]
            headings.append(Heading(start, "", "References", "references"))
    return headings


_FIRST_REF = re.compile(r"^(?:\[1\]|1\.?)\s*[A-Z][\w'`´-]*\.?,?\s")
_SECOND_REF = re.compile(r"^(?:\[2\]|2\.?)(?:\s|$)")


def unheaded_reference_list(lines: list[str]) -> int | None:
    """Where a numbered reference list starts when no heading announces it (e.g. APS style)."""
    for index in range(len(lines) * 2 // 5, len(lines)):
        if _FIRST_REF.match(lines[index]) and any(
            _SECOND_REF.match(line) for line in lines[index + 1 : index + 6]
        ):
            return index
    return None


def _match_heading(line: str, index: int, expected: int, in_references: bool) -> Heading | None:
    if len(line) > 80:
        return None
    for pattern in (_NUMBERED, _ROMAN) if line[0].isdigit() or line[0] in "IVX" else ():
        match = pattern.match(line)
        if not match or not _looks_like_heading_text(match.group("title")):
            continue
        number, title = match.group("num"), match.group("title").strip()
        value = int(number) if number.isdigit() else _ROMAN_VALUES.get(number, 0)
        kind = canonical_kind(title)
        # numbering must run 1, 2, 3...; a known section name may skip a missed number
        if value == expected or (kind != "other" and expected < value <= expected + 3):
            return Heading(index, number, title, kind)
    named = canonical_kind(line) if len(line) <= _LONGEST_NAMED else "other"
    if named != "other":
        return Heading(index, "", line, named)
    if in_references:
        match = _APPENDIX.match(line)
        if match and _looks_like_heading_text(match.group("title")) and len(line) < 60:
            return Heading(index, match.group("num"), match.group("title").strip(), "appendix")
    return None


def abstract_text(lines: list[str], headings: list[Heading]) -> str | None:
    """The abstract: after an 'Abstract' heading (or inline 'Abstract—') up to the next heading."""
    for heading in headings:
        if heading.kind != "abstract":
            continue
        following = [h.line_index for h in headings if h.line_index > heading.line_index]
        end = min(following, default=min(len(lines), heading.line_index + 40))
        body = lines[heading.line_index + 1 : end]
        return _tidy(" ".join(body)) or None
    for index, line in enumerate(lines[:200]):
        match = _ABSTRACT_INLINE.match(line)
        if match:
            following = [h.line_index for h in headings if h.line_index > index]
            end = min(following, default=min(len(lines), index + 40))
            return _tidy(" ".join([match.group("rest"), *lines[index + 1 : end]])) or None
    return _unlabelled_abstract(lines, headings)


_PROSE_LINE = 55  # characters; a full line of running text in one column of a paper
_MIN_ABSTRACT = 300


def _unlabelled_abstract(lines: list[str], headings: list[Heading]) -> str | None:
    """The block of running text just before the first heading, when no 'Abstract' names it
    (APS journals, some preprint templates)."""
    first = next((h.line_index for h in headings if h.kind == "introduction"), None)
    if first is None or first > 150:
        return None
    end = first
    while end > 0 and first - end < 8 and len(lines[end - 1]) < _PROSE_LINE:
        end -= 1  # dates, correspondence and code lines between the abstract and the heading
    if end == 0 or len(lines[end - 1]) < _PROSE_LINE:
        return None
    if end < first and lines[end].endswith("."):
        end += 1  # the abstract's own short last line
    start = end - 1
    while start > 0 and len(lines[start - 1]) >= _PROSE_LINE:
        start -= 1
    text = _tidy(" ".join(lines[start:end]))
    return text if len(text) >= _MIN_ABSTRACT else None


def _tidy(text: str) -> str:
    text = " ".join(text.split())
    return re.split(r"\b(?:Keywords|Index Terms|CCS Concepts)\b", text, maxsplit=1)[0].strip()
