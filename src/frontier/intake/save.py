"""Turn extraction results and records into stored papers, noting each outcome."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from frontier.extract.chunk import Segment, make_chunks
from frontier.extract.pdf import ExtractedPdf
from frontier.intake.jobs import JobResult
from frontier.intake.report import Entry
from frontier.sources.ids import content_hash
from frontier.sources.records import SourceRecord
from frontier.store.papers import FullText, SaveResult, save_paper
from frontier.store.queries import record_outcome


def record_for_pdf(extracted: ExtractedPdf, given: SourceRecord | None, item: str) -> SourceRecord:
    """Metadata for a PDF: what its source said, completed by what its first page prints."""
    facts = extracted.facts
    if given is not None:
        update = {
            "title": given.title or facts.title,
            "abstract": given.abstract or extracted.abstract,
            "published": given.published or facts.published,
            "doi": given.doi or facts.doi,
            "kind": "slides" if extracted.kind == "slides" else given.kind,
        }
        return given.model_copy(update=update)
    title, provisional = facts.title, False
    if not title:
        title, provisional = Path(item).stem.replace("_", " ").replace("-", " "), True
    return SourceRecord(
        source="pdf",
        source_ref=item,
        arxiv_id=facts.arxiv_id,
        arxiv_version=facts.arxiv_version,
        doi=facts.doi,
        title=title,
        title_provisional=provisional,
        published=facts.published,
        abstract=extracted.abstract,
        kind="slides" if extracted.kind == "slides" else "paper",
    )


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


def store_result(conn: sqlite3.Connection, result: JobResult, run_id: int) -> Entry:
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
        return Entry(job.item, "rejected", result.reason, code=result.code)
    record = record_for_pdf(result.extracted, job.record, job.item)
    saved = save_paper(conn, record, fulltext_of(result.extracted), run_id)
    return _note(conn, run_id, job.item, saved, result.extracted.warnings, job.content_hash)


def store_record(
    conn: sqlite3.Connection,
    record: SourceRecord,
    run_id: int,
    item: str,
    fulltext: FullText | None = None,
) -> Entry:
    saved = save_paper(conn, record, fulltext, run_id)
    return _note(conn, run_id, item, saved, [], fulltext.content_hash if fulltext else None)


def _note(
    conn: sqlite3.Connection,
    run_id: int,
    item: str,
    saved: SaveResult,
    warnings: list[str],
    digest: str | None,
) -> Entry:
    outcome = saved.outcome
    message = saved.message
    if outcome == "stored" and warnings:
        outcome, message = "warning", f"{message}; warning: {'; '.join(warnings)}"
    record_outcome(
        conn, run_id, item, outcome, content_hash=digest, reason=message, paper_id=saved.paper_id
    )
    return Entry(item, outcome, message, saved.paper_id)
