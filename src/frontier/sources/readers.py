"""Which reader turns a local file into records, by kind and file suffix (or, for a folder, by
the file that marks it): the one table both `frontier add` (one item) and `frontier ingest`
(many) consult, so a new kind of source file is a module with a reader plus a row of READERS."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from frontier.model import SourceRecord
from frontier.sources.abstracts import read_abstracts
from frontier.sources.local import read_bibtex, read_jsonl
from frontier.sources.records import RecordError

ReaderKind = Literal["pdf", "records", "article"]


# the article readers bring an HTML parser and an HTTP client: imported when an article is read
def html_article_file(path: Path) -> Iterable[SourceRecord | RecordError]:
    from frontier.sources.web import html_article_file

    return html_article_file(path)


def text_article_file(path: Path) -> Iterable[SourceRecord | RecordError]:
    from frontier.sources.web import text_article_file

    return text_article_file(path)


def zotero_folder(path: Path, options: ReadOptions) -> Iterable[SourceRecord | RecordError]:
    from frontier.sources.zotero import read_zotero_folder

    return read_zotero_folder(path, options.zotero_collections)


ReadFile = Callable[[Path], Iterable[SourceRecord | RecordError]]


@dataclass(frozen=True)
class ReadOptions:
    """What the workspace's settings ask of the readers."""

    zotero_collections: tuple[str, ...] = ()


ReadFolder = Callable[[Path, ReadOptions], Iterable[SourceRecord | RecordError]]


@dataclass(frozen=True)
class Reader:
    """`read` yields the file's records (a RecordError for each one it cannot read); PDFs have
    none here: they are extracted in worker processes, a layer up. A folder holding the file
    `marker` is read as a whole by `read_folder` instead of for the PDFs under it."""

    kind: ReaderKind
    suffixes: tuple[str, ...]
    read: ReadFile | None = None
    marker: str = ""
    read_folder: ReadFolder | None = None


READERS: tuple[Reader, ...] = (
    Reader("pdf", (".pdf",)),
    Reader("records", (".jsonl",), read_jsonl),
    Reader("records", (".bib",), read_bibtex),
    Reader("records", (".txt",), read_abstracts),
    Reader("article", (".html", ".htm"), html_article_file),
    Reader("article", (".md", ".markdown", ".txt"), text_article_file),
    Reader("records", (), marker="zotero.sqlite", read_folder=zotero_folder),
)

# a batch reads PDFs and files of records; a single item is first tried as a saved article
# (so a .txt given alone is one article, while in a batch it is a file of abstracts)
BATCH: tuple[ReaderKind, ...] = ("pdf", "records")
SINGLE_FILE: tuple[ReaderKind, ...] = ("article",)


def reader_for(path: Path, kinds: Collection[ReaderKind]) -> Reader | None:
    """The first row of READERS of one of `kinds` that reads files with this suffix."""
    suffix = path.suffix.lower()
    return next((r for r in READERS if r.kind in kinds and suffix in r.suffixes), None)


def folder_reader_for(path: Path) -> Reader | None:
    """The first row of READERS that reads this folder as a whole (it holds the row's marker)."""
    return next((r for r in READERS if r.marker and (path / r.marker).is_file()), None)


def suffixes_read(kinds: Collection[ReaderKind]) -> list[str]:
    """The suffixes readers of `kinds` read, in table order."""
    return list(dict.fromkeys(s for r in READERS if r.kind in kinds for s in r.suffixes))
