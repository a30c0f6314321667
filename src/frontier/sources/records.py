"""The one shape every source yields before a paper is stored."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field

SourceKind = Literal["arxiv", "pdf", "jsonl", "bibtex", "abstracts", "web", "file"]
DocKind = Literal["paper", "article", "slides"]


class SourceRecord(BaseModel):
    """Metadata (and, for articles, the text) of one item as a source delivered it."""

    source: SourceKind
    source_ref: str = Field(description="File path, URL or query that produced the record")
    arxiv_id: str | None = Field(default=None, description="Without version, e.g. 2309.06180")
    arxiv_version: int | None = None
    doi: str | None = None
    title: str | None = None
    title_provisional: bool = False
    authors: list[str] = Field(default_factory=list)
    published: dt.date | None = None
    updated: dt.date | None = None
    categories: list[str] = Field(default_factory=list)
    abstract: str | None = None
    pdf_url: str | None = None
    url: str | None = None
    site: str | None = None
    kind: DocKind = "paper"
    collection: str | None = Field(default=None, description="Named collection the item came in")
    content_id: str | None = Field(default=None, description="Stable id derived from content")
    body: str | None = Field(default=None, description="Main text for web/markdown/text articles")
