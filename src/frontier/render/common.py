"""Markdown building blocks shared by every page: inert text, relative links, tables, paths."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass

from frontier.config import Settings
from frontier.model import Claim, EntityInfo, GapOrConflict, Paper
from frontier.store.claim_text import phrase_claim
from frontier.store.kb import KB
from frontier.store.results import ResultClaim

_SPECIAL = re.compile(r"([\\`*_\[\]<>|$~])")
_HTML_ENTITY = re.compile(r"&(?=#?\w+;)")
# a brace that opens a template tag ({{ }}, {% %}, {# #}): site generators that run Liquid
# (Jekyll, GitHub Pages) or Jinja over markdown would evaluate text from papers
_TEMPLATE_OPENING = re.compile(r"\{(?=[{%#])")
_LIST_NUMBER = re.compile(r"^(\d+)([.)])")
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")
_STANCE_MARK = re.compile(r"\((supports|challenges)\)\s*$", re.IGNORECASE)
_TIGHT_UNITS = {"%", "×", "x", "X"}
INDEX = "index.md"


def text(value: object) -> str:
    """One line of literal text: whitespace collapsed, markdown and HTML syntax escaped, and no
    template tag left to open (the brace becomes `&#123;`, which every markdown viewer shows as
    `{`)."""
    out = _SPECIAL.sub(r"\\\1", " ".join(str(value).split()))
    return _TEMPLATE_OPENING.sub("&#123;", _HTML_ENTITY.sub(r"\\&", out))


def para(value: object) -> str:
    """Like `text`, for text that starts a line: it cannot open a heading, list or quote."""
    out = text(value)
    if out[:1] in ("#", "=", "+", "-"):
        return "\\" + out
    return _LIST_NUMBER.sub(r"\1\\\2", out, count=1)


UNKNOWN_DATE = "date unknown"


def shown_date(date: str | None) -> str:
    """A paper's date as shown: the date, or that it is unknown (never a stand-in)."""
    return date or UNKNOWN_DATE


def link(label: str, here: str, target: str) -> str:
    """A relative markdown link from the page `here` to the page `target` (both vault paths)."""
    return f"[{text(label)}]({relative(here, target)})"


def relative(here: str, target: str) -> str:
    return posixpath.relpath(target, posixpath.dirname(here) or ".")


def table(headers: list[str], rows: Iterable[list[str]]) -> list[str]:
    """A pipe table; cells must already be escaped with `text`."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines.extend("| " + " | ".join(cell or " " for cell in row) + " |" for row in rows)
    return lines


def bullets(items: Iterable[str], empty: str) -> list[str]:
    lines = [f"- {item}" for item in items]
    return lines or [f"_{empty}_"]


def safe_name(identifier: str) -> str:
    """A file name for an id: '/', ':' and anything unusual become '_'."""
    return _UNSAFE_NAME.sub("_", identifier).lstrip(".") or "_"


def source_path(paper_id: str) -> str:
    return f"sources/{safe_name(paper_id)}.md"


def topic_path(slug: str) -> str:
    return f"topics/{slug}.md"


def frontier_path(slug: str) -> str:
    return f"topics/{slug}/frontier.md"


def entity_path(slug: str) -> str:
    return f"entities/{safe_name(slug)}.md"


def value_with_unit(claim: Claim | ResultClaim) -> str:
    """The value as printed; claims typed before values kept their unit get it appended."""
    unit = claim.unit.strip()
    if not unit or not claim.value_text[-1:].isdigit():  # typed claims keep the unit as printed
        return claim.value_text
    return f"{claim.value_text}{'' if unit in _TIGHT_UNITS else ' '}{unit}"


def claim_line(claim: Claim) -> str:
    """A verified number in one line, phrased from its typed spans, with page and setting."""
    return text(phrase_claim(claim))


def quote_parts(claim: Claim) -> tuple[str, str, str]:
    """The quote split around its value (before, value, after); the value is empty when the
    quote does not hold it as printed."""
    quote, value = claim.quote, claim.value_text
    at = quote.find(value) if value else -1
    if at < 0:
        return quote, "", ""
    return quote[:at], value, quote[at + len(value) :]


def highlighted_quote(claim: Claim) -> str:
    """The quote with its value in bold, as markdown."""
    quote, value = text(claim.quote), text(claim.value_text)
    at = quote.find(value) if value else -1
    if at < 0:
        return f"“{quote}”"
    return f"“{quote[:at]}**{value}**{quote[at + len(value) :]}”"


def stance(detail: str) -> str:
    """Whether a thesis relation supports or challenges the thesis, from its detail."""
    marked = _STANCE_MARK.search(detail)
    if marked:
        return marked.group(1).lower()
    lowered = detail.lower()
    if "challeng" in lowered:
        return "challenges"
    if "support" in lowered:
        return "supports"
    return "bears on"


@dataclass
class Context:
    """The KB plus the names pages need to link things up."""

    kb: KB
    settings: Settings

    def __post_init__(self) -> None:
        self.topic_titles = {t.slug: t.title for t in self.settings.topics}
        self.entities = {e.slug: e for e in self.kb.entities}
        self.gaps = {str(g.id): g for g in self.kb.gaps}
        self.conflicts = {str(c.id): c for c in self.kb.conflicts}

    def topic_title(self, slug: str) -> str:
        if not slug:
            return "Out of field"
        return self.topic_titles.get(slug, slug)

    def topic_link(self, slug: str, here: str) -> str:
        if slug in self.topic_titles:
            return link(self.topic_titles[slug], here, topic_path(slug))
        return text(self.topic_title(slug))

    def paper_link(self, paper: Paper, here: str) -> str:
        return link(paper.title, here, source_path(paper.id))

    def dated_paper(self, paper_id: str, here: str) -> str:
        paper = self.kb.papers[paper_id]
        return f"{shown_date(paper.date)} · {self.paper_link(paper, here)}"

    def entity(self, slug: str) -> EntityInfo | None:
        return self.entities.get(slug)

    def item(self, kind: str, target: str) -> GapOrConflict | None:
        return (self.gaps if kind == "gap" else self.conflicts).get(target)

    def as_of(self, papers: Iterable[Paper], topic: str | None = None) -> str:
        """The newest date in the data shown: paper dates and entry dates."""
        dates = set()
        for paper in papers:
            dates.add(paper.date)
            dates.update(
                e.date for e in self.kb.entries_of(paper.id) if topic is None or e.topic == topic
            )
        dates.discard("")
        return max(dates) if dates else "no data yet"
