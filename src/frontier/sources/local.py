"""Local metadata files: JSONL records and BibTeX entries, each turned into a SourceRecord."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bibtexparser

from frontier.sources.ids import normalize_doi, parse_arxiv_id
from frontier.sources.records import SourceRecord


class RecordError(Exception):
    """One record that cannot be read; the message names the file and the record."""


def parse_date(value: object) -> dt.date | None:
    """Dates as people write them in metadata: 2023-09-12, 2023-09, 2023, or ISO datetimes."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.date):
        return value
    text = str(value).strip()
    for pattern, fmt in (
        (r"\d{4}-\d{2}-\d{2}", "%Y-%m-%d"),
        (r"\d{4}-\d{2}", "%Y-%m"),
        (r"\d{4}", "%Y"),
    ):
        match = re.match(pattern, text)
        if match:
            return dt.datetime.strptime(match.group(0), fmt).date()
    raise ValueError(f"unreadable date {text!r}")


def _as_list(value: object, separator: str = ",") -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(item).strip() for item in value if str(item).strip()]
    return [part.strip() for part in str(value).split(separator) if part.strip()]


def _clean(text: object) -> str | None:
    if text is None:
        return None
    cleaned = " ".join(str(text).split())
    return cleaned or None


def record_from_mapping(data: dict[str, Any], source: str, source_ref: str) -> SourceRecord:
    """Build a record from loosely named fields (id, title, authors, date, categories, ...)."""
    raw_id = str(data.get("id") or data.get("arxiv_id") or data.get("eprint") or "")
    parsed = parse_arxiv_id(raw_id) if raw_id else None
    doi = data.get("doi")
    if not parsed and raw_id.lower().startswith("10."):
        doi = doi or raw_id
    date = data.get("date") or data.get("published") or data.get("year")
    return SourceRecord(
        source=source,  # type: ignore[arg-type]
        source_ref=source_ref,
        arxiv_id=parsed[0] if parsed else None,
        arxiv_version=parsed[1] if parsed else None,
        doi=normalize_doi(doi) if doi else None,
        title=_clean(data.get("title")),
        authors=_as_list(data.get("authors")),
        published=parse_date(date),
        updated=parse_date(data.get("updated")),
        categories=_as_list(
            data.get("categories"),
            separator=" "
            if " " in str(data.get("categories", "")) and "," not in str(data.get("categories", ""))
            else ",",
        ),
        abstract=_clean(data.get("abstract") or data.get("summary")),
        pdf_url=data.get("pdf_url") or data.get("pdf"),
        url=data.get("url"),
    )


def read_jsonl(path: Path) -> Iterator[SourceRecord | RecordError]:
    """Each line one JSON object; a bad line yields a RecordError and reading goes on."""
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            ref = f"{path.name}:{number}"
            try:
                data = json.loads(line)
                if not isinstance(data, dict):
                    raise ValueError("not a JSON object")
                record = record_from_mapping(data, "jsonl", ref)
                if not (record.title or record.abstract or record.arxiv_id):
                    raise ValueError("no title, abstract or id")
                yield record
            except (ValueError, TypeError) as exc:
                yield RecordError(f"{ref}: {_first_line(exc)}")


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


_LATEX_CLEAN = re.compile(r"[{}]|\\[a-zA-Z]+\s*")


def _bib_text(value: str | None) -> str | None:
    return _clean(_LATEX_CLEAN.sub("", value)) if value else None


def read_bibtex(path: Path) -> Iterator[SourceRecord | RecordError]:
    library = bibtexparser.parse_string(path.read_text(encoding="utf-8", errors="replace"))
    for block in library.failed_blocks:
        yield RecordError(f"{path.name}:{block.start_line + 1}: unreadable BibTeX entry")
    for entry in library.entries:
        ref = f"{path.name}:{entry.key}"
        fields = {name.lower(): field.value for name, field in entry.fields_dict.items()}
        try:
            arxiv_id = (
                fields.get("eprint")
                if "arxiv" in fields.get("archiveprefix", "arxiv").lower()
                else None
            )
            authors = [
                a.strip() for a in re.split(r"\s+and\s+", fields.get("author", "")) if a.strip()
            ]
            yield record_from_mapping(
                {
                    "id": arxiv_id or "",
                    "doi": fields.get("doi"),
                    "title": _bib_text(fields.get("title")),
                    "authors": [_bib_text(a) or a for a in authors],
                    "date": _bib_date(fields),
                    "abstract": _bib_text(fields.get("abstract")),
                    "url": fields.get("url"),
                    "categories": fields.get("primaryclass"),
                },
                "bibtex",
                ref,
            )
        except (ValueError, TypeError) as exc:
            yield RecordError(f"{ref}: {_first_line(exc)}")


_MONTHS = {
    m: i
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1
    )
}


def _bib_date(fields: dict[str, str]) -> str | None:
    if fields.get("date"):
        return fields["date"]
    year = fields.get("year", "").strip()
    if not year:
        return None
    month = fields.get("month", "").strip().lower()[:3]
    number = _MONTHS.get(month) or (int(month) if month.isdigit() else None)
    return f"{year}-{number:02d}" if number else year
