"""What a paper's first page says about itself: title, arXiv id and date."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

import pypdfium2 as pdfium

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


def _line_heights(textpage: pdfium.PdfTextPage, text: str) -> list[tuple[str, float]]:
    """Each of the first lines with the tallest loose glyph box among its first characters."""
    out: list[tuple[str, float]] = []
    position = 0
    for line in text.split("\r\n")[:_TITLE_SCAN_LINES]:
        if line.strip():
            probe = range(position, position + min(len(line), 24))
            heights = sorted(
                box[3] - box[1]
                for i in probe
                if not line[i - position].isspace()
                for box in [textpage.get_charbox(i, loose=True)]
            )
            out.append((line.strip(), heights[-1] if heights else 0.0))
        position += len(line) + 2
    return out


def title_by_font_size(textpage: pdfium.PdfTextPage, text: str) -> str | None:
    """The consecutive lines set in the largest type near the top of the page."""
    lines = [
        (line, height)
        for line, height in _line_heights(textpage, text)
        if line and not line.lower().startswith("arxiv:") and not _AUTHORISH.search(line)
    ]
    if not lines:
        return None
    top = max(range(len(lines)), key=lambda i: lines[i][1])
    floor = _TITLE_BLOCK_RATIO * lines[top][1]
    start, end = top, top
    while start > 0 and _in_title_block(lines, start - 1, -1, floor):
        start -= 1
    while end + 1 < len(lines) and _in_title_block(lines, end + 1, 1, floor):
        end += 1
    block = [line for line, _ in lines[start : end + 1]][:_TITLE_MAX_LINES]
    title = " ".join(" ".join(block).split())
    return title if 3 <= len(title) <= 300 else None


def _in_title_block(lines: list[tuple[str, float]], index: int, step: int, floor: float) -> bool:
    """Title lines are set near the largest size; a superscript fragment between two does not
    break them."""
    text, height = lines[index]
    if _AUTHOR_MARKS.search(text) or text.count(",") >= 2:
        return False
    if height >= floor:
        return True
    beyond = index + step
    return len(text) <= 2 and 0 <= beyond < len(lines) and lines[beyond][1] >= floor


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
