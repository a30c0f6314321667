"""Turn extraction results and records into stored papers, noting each outcome."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from frontier.extract.chunk import Segment, make_chunks
from frontier.extract.pdf import ExtractedPdf
from frontier.intake.jobs import JobResult
from frontier.intake.report import ReportLine
from frontier.model.sources import (
    EARLIEST,
    MAX_ABSTRACT,
    MAX_REF,
    MAX_TITLE,
    DocKind,
    SourceRecord,
    latest_date,
)
from frontier.sources.ids import content_hash
from frontier.sources.records import sanitize
from frontier.store.papers import FullText, SaveResult, save_paper
from frontier.store.queries import record_outcome


def record_for_pdf(extracted: ExtractedPdf, given: SourceRecord | None, item: str) -> SourceRecord:
    """Metadata for a PDF: what its source said, completed by what its first page prints."""
    read = _first_page_facts(extracted)
    kind: DocKind = "slides" if extracted.kind == "slides" else "paper"
    if given is not None:
        replaced = given.title_provisional and bool(read["title"])
        update = {
            "title": read["title"] if replaced else given.title or read["title"],
            "title_provisional": given.title_provisional and not replaced,
            "warnings": [] if replaced else given.warnings,
            "abstract": given.abstract or read["abstract"],
            "published": given.published or read["published"],
            "doi": given.doi or read["doi"],
            "kind": "slides" if kind == "slides" else given.kind,
        }
        return given.model_copy(update=update)
    title, provisional = read["title"], False
    if not title:
        stem = Path(item).stem.replace("_", " ").replace("-", " ")
        title, provisional = sanitize(stem, MAX_TITLE) or sanitize(Path(item).name, MAX_TITLE), True
    return SourceRecord(
        source="pdf",
        source_ref=item,
        arxiv_id=extracted.facts.arxiv_id,
        arxiv_version=extracted.facts.arxiv_version,
        title=title,
        title_provisional=provisional,
        kind=kind,
        **{key: read[key] for key in ("doi", "published", "abstract")},
    )


def _first_page_facts(extracted: ExtractedPdf) -> dict[str, Any]:
    """What the first page prints, made storable: it is read by heuristics, so a character or
    a date a record may not hold is dropped rather than the paper rejected."""
    facts = extracted.facts
    published = facts.published
    if published is not None and not EARLIEST <= published <= latest_date():
        published = None
    return {
        "title": sanitize(facts.title, MAX_TITLE),
        "abstract": sanitize(extracted.abstract, MAX_ABSTRACT),
        "doi": sanitize(facts.doi, MAX_REF),
        "published": published,
    }


def fulltext_of(extracted: ExtractedPdf) -> FullText:
    return FullText(
        content_hash=extracted.content_hash,
        pages=extracted.pages,
        sections=list(extracted.sections),
        chunks=extracted.chunks,
        kind=extracted.kind,
        warnings=extracted.warnings,
    )


def fulltext_of_article(record: SourceRecord, chunk_tokens: int) -> FullText:
    """A web or text article is one page of running text."""
    body = record.body or ""
    return FullText(
        content_hash=content_hash(body.encode("utf-8")),
        pages=[body],
        sections=[],
        chunks=make_chunks([Segment(1, "body", " ".join(body.split()))], chunk_tokens),
        kind="article",
    )


def store_result(conn: sqlite3.Connection, result: JobResult, run_id: int) -> ReportLine:
    job = result.job
    if result.extracted is None:
        record_outcome(
            conn,
            run_id,
            job.item,
            "rejected",
            content_hash=job.content_hash,
            code=result.code,
            reason=result.reason,
        )
        return ReportLine(job.item, "rejected", result.reason, code=result.code)
    record = record_for_pdf(result.extracted, job.record, job.item)
    fulltext = fulltext_of(result.extracted)
    fulltext.vectors = result.vectors
    saved = save_paper(conn, record, fulltext, run_id, into=job.paper_id)
    warnings = [*record.warnings, *result.extracted.warnings]
    return _note(conn, run_id, job.item, saved, warnings, job.content_hash)


def store_record(
    conn: sqlite3.Connection,
    record: SourceRecord,
    run_id: int,
    item: str,
    fulltext: FullText | None = None,
) -> ReportLine:
    saved = save_paper(conn, record, fulltext, run_id)
    digest = fulltext.content_hash if fulltext else None
    return _note(conn, run_id, item, saved, record.warnings, digest)


def _note(
    conn: sqlite3.Connection,
    run_id: int,
    item: str,
    saved: SaveResult,
    warnings: list[str],
    digest: str | None,
) -> ReportLine:
    outcome: str = saved.outcome
    message = saved.message
    if outcome == "stored" and warnings:
        outcome, message = "warning", f"{message}; warning: {'; '.join(warnings)}"
    record_outcome(
        conn, run_id, item, outcome, content_hash=digest, reason=message, paper_id=saved.paper_id
    )
    return ReportLine(item, outcome, message, saved.paper_id)
