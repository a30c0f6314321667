"""What extraction reads from a document's body (`Section`, `Chunk`) and the stored paper's
metadata (`Paper`)."""

from __future__ import annotations

from dataclasses import dataclass


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
    id: int = 0  # the store's id of the chunk; 0 until it is stored


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
class TitledChunk:
    """A stored chunk with its paper and the paper's title: what retrieval ranks and shows."""

    id: int
    paper_id: str
    title: str
    page: int | None
    section: str
    text: str
