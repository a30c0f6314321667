"""What a paper's first page says about itself: title, arXiv id and date."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from frontier.sources.ids import find_arxiv_id, find_doi, normalize_title

_STAMP_DATE = re.compile(r"arXiv:\S+\s+\[[^\]]+\]\s+(\d{1,2})\s+([A-Z][a-z]{2})[a-z]*\.?\s+(\d{4})")
_MONTHS = {
    m: i
    for i, m in enumerate(
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], 1
    )
}
_TITLE_SCAN_LINES = 40
_TITLE_BLOCK_RATIO = 0.75
_TITLE_MAX_LINES = 4
# a title line and the next: "smaller" below this ratio of sizes; weights at or above _BOLD are
# bold; a gap above _BLANK_LINE_GAP line heights is a blank line (title lines sit well under
# half a line apart), one above _SPACED_GAP sets a line of names off from the title
_SAME_SIZE = 0.92
_BOLD = 550
_BLANK_LINE_GAP = 1.2
_SPACED_GAP = 0.6
_AUTHORISH = re.compile(r"@|\{|https?://|\bpreprint\b|\bproceedings\b|\bconference\b", re.I)
_AUTHOR_MARKS = re.compile(r"[a-z]\d|[∗*†‡§¶]|\band\b.*,|\bUniversity\b|\bInstitute\b")
_JUNK_TITLE = re.compile(
    r"^(?:microsoft (?:word|powerpoint)\b|untitled|title|paper|main|arxiv)|\.(?:docx?|tex|dvi|pdf|pptx?)$",
    re.IGNORECASE,
)


@dataclass
class FirstPageFacts:
    title: str | None = None
    arxiv_id: str | None = None
    arxiv_version: int | None = None
    published: dt.date | None = None
    doi: str | None = None


def stamped_date(text: str) -> dt.date | None:
    """The date of arXiv's side stamp, e.g. 'arXiv:2309.06180v1 [cs.LG] 12 Sep 2023'."""
    match = _STAMP_DATE.search(text)
    if not match or match.group(2) not in _MONTHS:
        return None
    try:
        return dt.date(int(match.group(3)), _MONTHS[match.group(2)], int(match.group(1)))
    except ValueError:
        return None


@dataclass
class _Line:
    """One line near the top of the page: its text, type size (tallest loose glyph box among
    its first characters), weight (None when the font does not say), and vertical extent."""

    text: str
    height: float
    weight: int | None = None
    top: float = 0.0
    bottom: float = 0.0


def _line_heights(textpage: pdfium.PdfTextPage, text: str) -> list[_Line]:
    """Each of the first lines with the size, weight and place of its first characters."""
    out: list[_Line] = []
    position = 0
    for line in text.split("\r\n")[:_TITLE_SCAN_LINES]:
        if line.strip():
            probe = [
                i
                for i in range(position, position + min(len(line), 24))
                if not line[i - position].isspace()
            ]
            boxes = [textpage.get_charbox(i, loose=True) for i in probe]
            weights = Counter(pdfium_c.FPDFText_GetFontWeight(textpage.raw, i) for i in probe)
            weight = weights.most_common(1)[0][0] if weights else -1
            out.append(
                _Line(
                    line.strip(),
                    max((box[3] - box[1] for box in boxes), default=0.0),
                    weight if weight > 0 else None,
                    max((box[3] for box in boxes), default=0.0),
                    min((box[1] for box in boxes), default=0.0),
                )
            )
        position += len(line) + 2
    return out


def title_by_font_size(textpage: pdfium.PdfTextPage, text: str) -> str | None:
    """The consecutive lines set in the largest type near the top of the page."""
    lines = [
        line
        for line in _line_heights(textpage, text)
        if line.text
        and not line.text.lower().startswith("arxiv:")
        and not _AUTHORISH.search(line.text)
    ]
    if not lines:
        return None
    top = max(range(len(lines)), key=lambda i: lines[i].height)
    floor = _TITLE_BLOCK_RATIO * lines[top].height
    start = _block_end(lines, top, -1, floor)
    end = _block_end(lines, top, 1, floor)
    block = [line.text for line in lines[start : end + 1]][:_TITLE_MAX_LINES]
    title = " ".join(" ".join(block).split())
    return title if 3 <= len(title) <= 300 else None


def _block_end(lines: list[_Line], top: int, step: int, floor: float) -> int:
    """The last index, going `step` from `top`, of the title block."""
    index, near = top, lines[top]
    while 0 <= index + step < len(lines):
        candidate = lines[index + step]
        if _AUTHOR_MARKS.search(candidate.text) or candidate.text.count(",") >= 2:
            break
        if candidate.height >= floor:
            if _set_apart(candidate, near, step):
                break
            near = candidate
        elif not _superscript_between(lines, index + step, step, floor):
            break
        index += step
    return index


def _superscript_between(lines: list[_Line], index: int, step: int, floor: float) -> bool:
    """A superscript fragment between two title lines does not break them."""
    beyond = index + step
    return (
        len(lines[index].text) <= 2 and 0 <= beyond < len(lines) and lines[beyond].height >= floor
    )


def _set_apart(line: _Line, near: _Line, step: int) -> bool:
    """Whether `line`, next to the title line `near`, is set apart from it as the author line
    that follows a title is: smaller and in another weight, a blank line away, or a line of
    personal names that is smaller, in another weight or spaced off."""
    smaller = line.height < _SAME_SIZE * near.height
    reweighted = (
        line.weight is not None
        and near.weight is not None
        and (line.weight >= _BOLD) != (near.weight >= _BOLD)
    )
    upper, lower = (near, line) if step > 0 else (line, near)
    gap = (upper.bottom - lower.top) / max(min(line.height, near.height), 1e-6)
    if (smaller and reweighted) or gap > _BLANK_LINE_GAP:
        return True
    return looks_like_names(line.text) and (smaller or reweighted or gap > _SPACED_GAP)


_NAME_WORD = re.compile(r"^(?:[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)*|[A-Z]\.(?:-?[A-Z]\.)*|[A-Z])$")
_NAME_PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "del", "della", "du", "le", "la"}
_NAME_MARKS = re.compile(r"[\d∗*†‡§¶⋄♠♣♥♦✉]+")
_NAME_SEPARATORS = re.compile(r"\s*(?:,|;|&|\band\b|\s{2,})\s*")


def looks_like_names(text: str) -> bool:
    """A line of one or more personal names: 'Jiaao He', 'Mart van Baalen, Markus Nagel and
    J. Doe' (each name two to four capitalised words or initials)."""
    names = [n for n in _NAME_SEPARATORS.split(_NAME_MARKS.sub(" ", text)) if n.strip()]
    if not names or len(names) > 12:
        return False
    for name in names:
        words = name.split()
        if not 1 <= len(words) <= 8 or words[0].lower() in _NAME_PARTICLES:
            return False
        if not all(_NAME_WORD.match(w) or w in _NAME_PARTICLES for w in words):
            return False
    return sum(len(name.split()) for name in names) >= 2


def usable_metadata_title(title: str | None, first_page_text: str) -> str | None:
    """The document-info title when it is a real title that the first page also prints."""
    if not title:
        return None
    title = " ".join(title.split())
    if len(title.split()) < 2 or _JUNK_TITLE.search(title) or any(ord(c) < 32 for c in title):
        return None
    if normalize_title(title)[:40] not in normalize_title(first_page_text):
        return None
    return title


def first_page_facts(
    textpage: pdfium.PdfTextPage, text: str, metadata_title: str | None
) -> FirstPageFacts:
    facts = FirstPageFacts()
    stamp = find_arxiv_id(text)
    if stamp:
        facts.arxiv_id, facts.arxiv_version = stamp
    facts.published = stamped_date(text)
    facts.doi = find_doi(text[:6000])
    facts.title = usable_metadata_title(metadata_title, text) or title_by_font_size(textpage, text)
    return facts
