"""What a source yields: `SourceRecord`, with the checks its fields pass.

Every reader builds a SourceRecord, so its checks hold for everything that reaches the store:
text has its whitespace collapsed and carries no control character, no byte that was not UTF-8
and no replacement character; titles are not empty; fields are bounded; dates are possible."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

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
