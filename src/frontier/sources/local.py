"""Local metadata files: JSONL records and BibTeX entries, each checked field by field against
`MetadataFields` and turned into a SourceRecord, or into a RecordError naming the line or
entry and the field. A BibTeX entry's `file` field attaches its PDF."""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bibtexparser.entrypoint import parse_string
from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from frontier.errors import bad_character, kind_of
from frontier.model import MAX_ABSTRACT, MAX_TITLE, SourceKind, SourceRecord
from frontier.sources.abstracts import provisional_title
from frontier.sources.attachments import first_pdf, parse_file_field, resolve
from frontier.sources.ids import DOI_RE, normalize_doi, parse_arxiv_id
from frontier.sources.records import RecordError, describe_invalid, printable, sanitize

# the names a field goes by in exports of other tools, the first given wins
ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "arxiv_id", "eprint"),
    "doi": ("doi",),
    "title": ("title",),
    "authors": ("authors", "author"),
    "date": ("date", "published", "year"),
    "updated": ("updated",),
    "categories": ("categories",),
    "abstract": ("abstract", "summary"),
    "pdf_url": ("pdf_url", "pdf"),
    "url": ("url",),
}
_DATE_FORMATS = (
    (re.compile(r"\d{4}-\d{2}-\d{2}"), "%Y-%m-%d"),
    (re.compile(r"\d{4}-\d{2}"), "%Y-%m"),
    (re.compile(r"\d{4}"), "%Y"),
)
_DATETIME = re.compile(
    r"(\d{4}-\d{2}-\d{2})[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
)
_URL = re.compile(r"^https?://[^\s/?#]+\S*$", re.IGNORECASE)


def parse_date(value: object) -> dt.date | None:
    """A date as metadata gives it: 2023-09-12, 2023-09, 2023, an ISO date-time, or a year as
    a number. Anything else, or a day that does not exist, is a ValueError."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.date):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        value = f"{value:04d}" if 0 <= value <= 9999 else str(value)
    if not isinstance(value, str):
        raise ValueError(f"expected a date or a year, got {kind_of(value)}")
    text = value.strip()
    if moment := _DATETIME.fullmatch(text):
        text = moment.group(1)
    for pattern, fmt in _DATE_FORMATS:
        if pattern.fullmatch(text):
            try:
                return dt.datetime.strptime(text, fmt).date()
            except ValueError:
                raise ValueError(f"impossible date {text!r}") from None
    raise ValueError(f"unreadable date {text[:40]!r} (expected YYYY-MM-DD, YYYY-MM or YYYY)")


def _text(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {kind_of(value)}")
    return value


def _name(value: object) -> str:
    """An author as exports give one: a string, or an object with a name (CSL: family, given)."""
    if isinstance(value, dict):
        name = value.get("name")
        if isinstance(name, str):
            return name
        parts = [value.get("given"), value.get("family")]
        if all(isinstance(p, str | None) for p in parts) and any(parts):
            return " ".join(p for p in parts if p)
        raise ValueError("an author object needs a name (or family and given)")
    if not isinstance(value, str):
        raise ValueError(f"expected a name, got {kind_of(value)}")
    return value


def _names(value: object, separator: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(separator) if part.strip()]
    if not isinstance(value, list):
        raise ValueError(f"expected a list of names or text, got {kind_of(value)}")
    names = []
    for position, item in enumerate(value):
        try:
            names.append(_name(item))
        except ValueError as exc:
            raise ValueError(f"[{position}]: {exc}") from None
    return [n for n in names if n.strip()]


class MetadataFields(BaseModel):
    """The fields a metadata record may carry, as a file gives them. Types are checked as
    written; the coercions a user expects are made: a year as a number, an ISO date-time,
    authors as one comma-separated string or as objects with a name, categories as one string
    separated by spaces or commas, a DOI as a doi.org link. Other fields are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str | None = None
    doi: str | None = None
    title: str | None = None
    authors: list[str] = []
    date: dt.date | None = None
    updated: dt.date | None = None
    categories: list[str] = []
    abstract: str | None = None
    pdf_url: str | None = None
    url: str | None = None

    @field_validator("id", "doi", "title", "abstract", "pdf_url", "url", mode="before")
    @classmethod
    def _is_text(cls, value: object) -> str | None:
        return _text(value)

    @field_validator("authors", mode="before")
    @classmethod
    def _authors(cls, value: object) -> list[str]:
        return _names(value, ",")

    @field_validator("categories", mode="before")
    @classmethod
    def _categories(cls, value: object) -> list[str]:
        separator = " " if isinstance(value, str) and "," not in value else ","
        return _names(value, separator)

    @field_validator("date", "updated", mode="before")
    @classmethod
    def _date(cls, value: object) -> dt.date | None:
        return parse_date(value)

    @field_validator("pdf_url", "url")
    @classmethod
    def _web_address(cls, value: str | None) -> str | None:
        if value is not None and not _URL.match(value.strip()):
            raise ValueError(f"not an http(s) URL: {value[:60]!r}")
        return value.strip() if value else value

    @field_validator("doi")
    @classmethod
    def _doi(cls, value: str | None) -> str | None:
        if value is None:
            return None
        doi = normalize_doi(value)
        if not DOI_RE.fullmatch(doi):
            raise ValueError(f"not a DOI: {value[:60]!r} (expected 10.NNNN/...)")
        return doi


def gather(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Each field from the first of its names the record gives (empty values count as absent,
    save an empty title); and the name each field came under, for messages."""
    fields: dict[str, Any] = {}
    given: dict[str, str] = {}
    for field, names in ALIASES.items():
        for name in names:
            value = data.get(name)
            if value is None or (value == "" and field != "title"):
                continue
            fields[field], given[field] = value, name
            break
    return fields, given


def record_from_fields(data: dict[str, Any], source: SourceKind, ref: str) -> SourceRecord:
    """A record from loosely named fields; RecordError names the field that fails its check."""
    raw, given = gather(data)
    try:
        fields = MetadataFields.model_validate(raw)
    except ValidationError as exc:
        raise RecordError(ref, describe_invalid(exc, given)) from None
    parsed = parse_arxiv_id(fields.id) if fields.id else None
    doi = fields.doi
    if fields.id and not parsed:
        if fields.id.lower().startswith("10.") and not doi:
            doi = normalize_doi(fields.id)
        elif problem := bad_character(fields.id):
            raise RecordError(ref, f"{given['id']}: {problem}")
    if fields.title is not None and not fields.title.strip():
        raise RecordError(ref, "title: empty")
    if not (fields.title or fields.abstract or parsed or doi):
        raise RecordError(ref, "no title, abstract, arXiv id or DOI")
    record = {
        "source": source,
        "source_ref": ref,
        "arxiv_id": parsed[0] if parsed else None,
        "arxiv_version": parsed[1] if parsed else None,
        "doi": doi,
        "authors": fields.authors,
        "published": fields.date,
        "updated": fields.updated,
        "categories": fields.categories,
        "abstract": fields.abstract,
        "pdf_url": fields.pdf_url,
        "url": fields.url,
        **_title(fields, parsed[0] if parsed else None, doi),
    }
    try:
        return SourceRecord.model_validate(record)
    except ValidationError as exc:
        names = {**given, "published": given.get("date", "date")}
        raise RecordError(ref, describe_invalid(exc, names)) from None


def _title(fields: MetadataFields, arxiv_id: str | None, doi: str | None) -> dict[str, Any]:
    """The record's title; without one, a provisional title made from what it does give."""
    if fields.title is not None:
        return {"title": fields.title}
    abstract = sanitize(fields.abstract, MAX_ABSTRACT)
    if abstract:
        made, source = provisional_title(abstract), "the abstract"
    elif arxiv_id or doi:
        made, source = (f"arXiv {arxiv_id}" if arxiv_id else f"doi:{doi}"), "its id"
    else:
        return {}
    return {
        "title": sanitize(made, MAX_TITLE),
        "title_provisional": True,
        "warnings": [f"no title: a provisional one was made from {source}"],
    }


class _GivenTwice(ValueError):
    """A JSON object names one field twice: which value was meant cannot be known."""


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _GivenTwice(f"{printable(key)}: given twice")
        seen[key] = value
    return seen


def _line_record(raw: bytes, ref: str) -> SourceRecord:
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(
            ref, f"not UTF-8 text (byte 0x{raw[exc.start]:02X} at column {exc.start + 1})"
        ) from None
    try:
        data = json.loads(line, object_pairs_hook=_no_duplicate_keys)
    except _GivenTwice as exc:
        raise RecordError(ref, str(exc)) from None
    except RecursionError:
        raise RecordError(ref, "not JSON: nested too deeply") from None
    except ValueError as exc:
        raise RecordError(ref, f"not JSON: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise RecordError(ref, f"expected a JSON object, got {kind_of(data)}")
    return record_from_fields(data, "jsonl", ref)


def read_jsonl(path: Path) -> Iterator[SourceRecord | RecordError]:
    """Each line one JSON object in UTF-8; a bad line yields a RecordError and reading goes on."""
    data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        ref = f"{printable(path.name)}:{number}"
        try:
            yield _line_record(raw, ref)
        except RecordError as exc:
            yield exc


_LATEX_CLEAN = re.compile(r"[{}]|\\[a-zA-Z]+\s*")
_MONTHS = {
    m: i
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1
    )
}


def _bib_text(value: str | None) -> str | None:
    return _LATEX_CLEAN.sub("", value) if value else None


def _bib_date(fields: dict[str, str]) -> str | None:
    """The entry's date from `date`, or from `year` and `month` (a name or a number)."""
    if fields.get("date", "").strip():
        return fields["date"].strip()
    year = _LATEX_CLEAN.sub("", fields.get("year", "")).strip()
    if not year:
        return None
    if not re.fullmatch(r"\d{4}", year):
        raise RecordError("", f"year: not a year: {year[:20]!r}")
    month = _LATEX_CLEAN.sub("", fields.get("month", "")).strip().lower()
    if not month:
        return year
    number = _MONTHS.get(month[:3]) or (int(month) if month.isdigit() else None)
    if number is None or not 1 <= number <= 12:
        raise RecordError("", f"month: not a month: {month[:20]!r}")
    return f"{year}-{number:02d}"


def _bib_record(fields: dict[str, str], ref: str, folder: Path) -> SourceRecord:
    prefix = fields.get("archiveprefix", "arxiv").lower()
    arxiv_id = fields.get("eprint") if "arxiv" in prefix else None
    authors = [a.strip() for a in re.split(r"\s+and\s+", fields.get("author", "")) if a.strip()]
    try:
        date = _bib_date(fields)
    except RecordError as exc:
        raise RecordError(ref, exc.reason) from None
    mapping = {
        "id": arxiv_id,
        "doi": fields.get("doi"),
        "title": _bib_text(fields.get("title")),
        "authors": [_bib_text(a) or a for a in authors],
        "date": date,
        "abstract": _bib_text(fields.get("abstract")),
        "url": fields.get("url"),
        "categories": fields.get("primaryclass"),
    }
    record = record_from_fields(mapping, "bibtex", ref)
    return with_attached_pdf(record, fields.get("file", ""), folder)


def with_attached_pdf(record: SourceRecord, file_field: str, folder: Path) -> SourceRecord:
    """The record with the first PDF its `file` field names that is on disk (paths relative to
    the .bib's folder); each named PDF that is not on disk is a warning."""
    if not file_field.strip():
        return record
    named = parse_file_field(file_field)
    found = first_pdf([(attachment, resolve(attachment.path, folder)) for attachment in named])
    update: dict[str, Any] = {"warnings": [*record.warnings, *found.warnings]}
    if found.pdf is not None:
        update["pdf_file"] = str(found.pdf)
    return record.model_copy(update=update)


def _failed_block(path: Path, block: object) -> RecordError:
    line = f"{printable(path.name)}:{getattr(block, 'start_line', 0) + 1}"
    if isinstance(block, DuplicateBlockKeyBlock):
        return RecordError(line, f"entry key {printable(block.key)!r} is used twice")
    if isinstance(block, DuplicateFieldKeyBlock):
        return RecordError(line, f"field given twice: {', '.join(sorted(block.duplicate_keys))}")
    return RecordError(line, "unreadable BibTeX entry")


def read_bibtex(path: Path) -> Iterator[SourceRecord | RecordError]:
    """Every entry of a BibTeX file; bytes that are not UTF-8 fail the field that holds them."""
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)  # failures are reported here
    text = path.read_bytes().decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")
    library = parse_string(text)
    for block in library.failed_blocks:
        yield _failed_block(path, block)
    for entry in library.entries:
        ref = f"{printable(path.name)}:{printable(entry.key)}"
        fields = {name.lower(): field.value for name, field in entry.fields_dict.items()}
        try:
            strings = {k: v for k, v in fields.items() if isinstance(v, str)}
            yield _bib_record(strings, ref, path.parent)
        except RecordError as exc:
            yield exc
