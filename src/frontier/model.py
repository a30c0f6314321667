"""The records that cross a stage boundary, one type each: what a source yields
(`SourceRecord`, with the checks its fields pass), what extraction reads from a document's body
(`Section`, `Chunk`), and what the store keeps and gives back to curation, synthesis and the
views (`Paper`, `Triage`, `Claim`, `Relation`, `Entry`, `Gap`, `Conflict`, `EntityInfo`,
`ConflictEvidence`). A leaf module: of frontier it imports errors.py alone, so every stage can
use it.

Every reader builds a SourceRecord, so its checks hold for everything that reaches the store:
text has its whitespace collapsed and carries no control character, no byte that was not UTF-8
and no replacement character; titles are not empty; fields are bounded; dates are possible."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from frontier.errors import bad_character

SourceKind = Literal["arxiv", "pdf", "jsonl", "bibtex", "abstracts", "web", "file", "zotero"]
DocKind = Literal["paper", "article", "slides"]

MAX_TITLE = 600
MAX_NAME = 300  # one author, a site, a collection
MAX_AUTHORS = 5000  # particle physics papers list thousands
MAX_ABSTRACT = 20_000
MAX_CATEGORY, MAX_CATEGORIES = 64, 100
MAX_REF = 2048  # ids, DOIs, URLs, file paths
EARLIEST = dt.date(1600, 1, 1)  # before the first scientific journals


def check_text(text: str, limit: int) -> str:
    """Text with its whitespace collapsed; ValueError when it is empty, too long or holds a
    character no source should hold."""
    if problem := bad_character(text):
        raise ValueError(problem)
    cleaned = " ".join(text.split())
    if not cleaned:
        raise ValueError("empty")
    if len(cleaned) > limit:
        raise ValueError(f"longer than {limit} characters ({len(cleaned)})")
    return cleaned


def latest_date() -> dt.date:
    """The latest date a source may give: a paper may be dated up to a year ahead."""
    return dt.date.today() + dt.timedelta(days=366)


def check_date(value: dt.date) -> dt.date:
    if not EARLIEST <= value <= latest_date():
        raise ValueError(
            f"impossible date {value.isoformat()} (expected {EARLIEST.year} to {latest_date().year})"
        )
    return value


def _bounded(limit: int) -> AfterValidator:
    return AfterValidator(lambda text: check_text(text, limit))


Title = Annotated[str, _bounded(MAX_TITLE)]
Name = Annotated[str, _bounded(MAX_NAME)]
Abstract = Annotated[str, _bounded(MAX_ABSTRACT)]
Ref = Annotated[str, _bounded(MAX_REF)]
Category = Annotated[str, _bounded(MAX_CATEGORY)]
Date = Annotated[dt.date, AfterValidator(check_date)]


def _body(text: str) -> str:
    if problem := bad_character(text):
        raise ValueError(problem)
    return text


def _local_path(path: str) -> str:
    """A path on this machine is taken as the file system gives it (bytes that are not UTF-8
    included): it is opened, never stored."""
    if len(path) > MAX_REF:
        raise ValueError(f"longer than {MAX_REF} characters ({len(path)})")
    return path


class SourceRecord(BaseModel):
    """Metadata (and, for articles, the text) of one item as a source delivered it."""

    model_config = ConfigDict(frozen=True)

    source: SourceKind
    source_ref: str = Field(description="File path, URL or query that produced the record")
    arxiv_id: Ref | None = Field(default=None, description="Without version, e.g. 2309.06180")
    arxiv_version: int | None = Field(default=None, ge=1, le=1000)
    doi: Ref | None = None
    title: Title | None = None
    title_provisional: bool = False
    authors: list[Name] = Field(default_factory=list, max_length=MAX_AUTHORS)
    published: Date | None = None
    updated: Date | None = None
    categories: list[Category] = Field(default_factory=list, max_length=MAX_CATEGORIES)
    abstract: Abstract | None = None
    pdf_url: Ref | None = None
    url: Ref | None = None
    site: Name | None = None
    kind: DocKind = "paper"
    collection: Name | None = Field(default=None, description="Named collection the item came in")
    content_id: str | None = Field(default=None, description="Stable id derived from content")
    pdf_file: Annotated[str, AfterValidator(_local_path)] | None = Field(
        default=None, description="A PDF on this machine holding the item's full text"
    )
    followed: bool = Field(
        default=False,
        description="source_ref names the item for good in a library its user edits: reading "
        "it again updates the metadata the library changed since",
    )
    body: Annotated[str, AfterValidator(_body)] | None = Field(
        default=None, description="Main text for web/markdown/text articles"
    )
    warnings: list[str] = Field(
        default_factory=list, description="What the reader had to make up or leave out"
    )


@dataclass(frozen=True)
class Section:
    """A heading as stored: its order, number, title, kind and the page it starts on."""

    ord: int
    number: str
    title: str
    kind: str
    page_start: int


@dataclass(frozen=True)
class Chunk:
    """A page-anchored piece of a document's running text, as stored and searched."""

    ord: int
    page: int
    section: str
    text: str
    n_tokens: int


@dataclass(frozen=True)
class Paper:
    """A stored paper's metadata: what curation judges it by, and what the vault, the web and
    the exports show of it."""

    id: str
    title: str
    abstract: str | None = None  # as stored: None when the source gave none
    authors: tuple[str, ...] = ()
    published: str | None = None  # an ISO date as stored, None when the source gave none
    updated: str | None = None
    categories: tuple[str, ...] = ()
    kind: str = "paper"  # paper | article | slides
    arxiv_id: str = ""
    url: str = ""
    source: str = ""  # the kind of source that first stored it (arxiv, pdf, zotero, ...)
    collection: str | None = None  # the collection the user filed it in
    title_provisional: bool = False  # made up from the text: a better title replaces it
    text_version: int = 0  # moves on whenever its pages, sections or chunks change

    @property
    def date(self) -> str:
        """The published date, else the updated one, as YYYY-MM-DD; "" when undated."""
        return (self.published or self.updated or "")[:10]


@dataclass(frozen=True)
class Triage:
    """Where triage put a paper: a topic ("" out of the field), and why."""

    paper_id: str
    topic: str
    stage: str
    reason: str
    scope_line: str


@dataclass
class Claim:
    """A measured number of a paper, typed; what curation stores and what the vault, the web
    and the exports read. Not frozen: curation sets the fields of its copies as it types them."""

    metric: str
    value: float | None
    value_text: str  # as printed, with its qualifier and unit: "up to 1.23×"
    unit: str
    direction: str  # higher | lower | "" — from a word of the quote
    baseline: str
    model_name: str  # the LLM the paper measured (not ours)
    hardware: str
    condition: str
    page: int | None
    quote: str
    verified: bool
    verify_note: str
    model: str  # the LLM that chose among the proposed spans, or "code"
    prompt_version: str
    headline: bool = False
    setup_page: int | None = None  # where model or hardware came from when the quote names none
    setup_fields: str = ""  # which of them: "model", "hardware" or "model,hardware"
    section: str = ""
    id: int = 0
    paper_id: str = ""


@dataclass(frozen=True)
class Relation:
    """How a paper bears on what the KB tracks (an entity, a gap, a conflict, a thesis), or a
    first or a coverage counted by code. Curation finds it before it is filed: `paper_id` and
    `topic` are set once it is stored."""

    kind: str  # entity | gap | conflict | thesis | first | coverage
    target: str
    detail: str
    evidence: str = ""  # a sentence of the paper, verified on its page (or in the abstract)
    stage: str = "code"
    page: int | None = None  # the evidence's page; None for the abstract or the title
    how: str = ""  # the model's one sentence, kept only when checked against the evidence
    paper_id: str = ""
    topic: str = ""


@dataclass(frozen=True)
class Entry:
    """A paper's entry in a topic: what it is, its headline numbers and why it matters."""

    paper_id: str
    topic: str
    text: str
    model: str
    prompt_version: str
    run_id: int | None
    date: str


@dataclass(frozen=True)
class Gap:
    """An open question of a topic: declared in the config, added by hand or proposed."""

    id: int
    topic: str
    text: str
    status: str
    source: str


@dataclass(frozen=True)
class Conflict:
    """Papers of a topic that disagree: flagged by conflict detection or added by hand."""

    id: int
    topic: str
    text: str
    status: str
    source: str


# what the views list, and relate papers to, alike
GapOrConflict = Gap | Conflict


@dataclass(frozen=True)
class EntityInfo:
    """A tracked entity (a model, a piece of hardware, a system) and the names it goes by."""

    slug: str
    name: str
    kind: str
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class ConflictEvidence:
    """The two disagreeing claims behind a conflict found by code, and later measurements."""

    conflict_id: int
    paper_a: str
    paper_b: str
    metric: str
    setting: str
    quote_a: str
    quote_b: str
    page_a: int | None
    page_b: int | None
    value_a: str
    value_b: str
    why: str
    label: str
    reason: str
    later: tuple[dict[str, Any], ...]
    model: str
    prompt_version: str
