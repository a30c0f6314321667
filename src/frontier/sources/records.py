"""The one shape every source yields before a paper is stored, and the checks its fields pass.

Every reader builds a SourceRecord, so these checks hold for everything that reaches the store:
text has its whitespace collapsed and carries no control character, no byte that was not UTF-8
and no replacement character; titles are not empty; fields are bounded; dates are possible.
A reader turns a failed check into one line naming the file, the record and the field
(`describe_invalid`)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field, ValidationError

from frontier.errors import bad_character, kind_of

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


def sanitize(text: str | None, limit: int) -> str | None:
    """Text read by heuristics (a PDF's first page, a page's metadata) made storable: bad
    characters dropped, whitespace collapsed, cut at `limit`; None when nothing is left."""
    if text is None:
        return None
    kept = "".join(" " if bad_character(char) else char for char in text)
    cleaned = " ".join(kept.split())[:limit].strip()
    return cleaned or None


def printable(text: str) -> str:
    """Text fit for a one-line message: control characters escaped, and bytes that were not
    UTF-8 (file names keep them as surrogates) shown as \\xNN."""
    return "".join(_printable_char(char) for char in text)


def _printable_char(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return char if char.isprintable() and not bad_character(char) else ascii(char)[1:-1]


def drop_bad_characters(text: str) -> str:
    """Extracted running text made storable: characters no source should hold are dropped,
    line breaks kept."""
    if bad_character(text) is None:
        return text
    return "".join(char for char in text if bad_character(char) is None)


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


class RecordError(Exception):
    """One record that cannot be read; the message names the file, the record and the field."""

    def __init__(self, ref: str, reason: str) -> None:
        super().__init__(f"{ref}: {reason}")
        self.ref = ref
        self.reason = reason


def field_name(loc: tuple[int | str, ...], names: dict[str, str] | None = None) -> str:
    """`authors[2]` for ('authors', 2); a field is called by the name its source gave it."""
    head, *rest = loc or ("record",)
    name = (names or {}).get(str(head), str(head))
    return name + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in rest)


def describe_invalid(exc: ValidationError, names: dict[str, str] | None = None) -> str:
    """The first failed check as `field: reason`, in words a user acts on."""
    error = exc.errors(include_url=False)[0]
    message = str(error["msg"]).removeprefix("Value error, ")
    kind = error["type"]
    if kind.endswith("_type") or kind == "date_from_datetime_inexact":
        message = f"expected {_EXPECTED.get(kind, kind.removesuffix('_type'))}, got {kind_of(error['input'])}"
    elif kind == "too_long":
        message = f"more than {error.get('ctx', {}).get('max_length', '?')} items"
    name = field_name(tuple(error["loc"]), names)
    return f"{name}{message}" if message.startswith("[") else f"{name}: {message}"


_EXPECTED = {"string_type": "text", "list_type": "a list", "int_type": "a whole number"}
