"""One ingest: records first, then PDFs extracted on all cores and stored one by one."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from frontier.intake.engines import embeds_at_ingest, run_jobs
from frontier.intake.expand import Plan, pdf_job
from frontier.intake.jobs import PdfJob
from frontier.intake.report import Report, ReportLine
from frontier.intake.save import fulltext_of_article, store_record, store_result
from frontier.model import SourceRecord
from frontier.sources.download import DownloadError, download_pdf
from frontier.store.lexical import update_lexical_indexes
from frontier.store.papers import has_fulltext, paper_with_content
from frontier.store.queries import known_content_hashes, record_outcome
from frontier.workspace import Workspace

Fetcher = Callable[[SourceRecord], PdfJob]


def progress_bar(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[item]}"),
        console=console,
        transient=True,
    )


def pdf_fetcher(ws: Workspace, password: str | None) -> Fetcher:
    """Download a record's PDF into the cache and make a job that carries the record along."""
    settings = ws.settings.ingest

    def fetch(record: SourceRecord) -> PdfJob:
        assert record.pdf_url
        got = download_pdf(
            record.pdf_url,
            ws.pdf_cache,
            timeout=settings.download_timeout,
            retries=settings.download_retries,
            max_bytes=int(settings.max_pdf_mb * 2**20),
        )
        item = record.arxiv_id or record.pdf_url
        return PdfJob(
            item, str(got.path), got.content_hash, record, password, settings.chunk_tokens
        )

    return fetch


def ingest_plan(
    ws: Workspace,
    conn: sqlite3.Connection,
    plan: Plan,
    run_id: int,
    console: Console,
    fetcher: Fetcher | None = None,
    password: str | None = None,
) -> Report:
    report = Report()
    for problem in plan.problems:
        record_outcome(
            conn, run_id, problem.item, problem.outcome, code=problem.code, reason=problem.message
        )
        report.add(problem)
    jobs = list(plan.pdfs)
    with progress_bar(console) as progress:
        task = progress.add_task("records", total=len(plan.records), item="")
        for item, record in plan.records:
            progress.update(task, item=item[-40:])
            article = (
                fulltext_of_article(record, ws.settings.ingest.chunk_tokens)
                if record.body
                else None
            )
            entry = store_record(conn, record, run_id, item, article)
            report.add(entry)
            needs_text = not has_fulltext(conn, entry.paper_id)
            if needs_text and record.pdf_file:
                jobs += _attached_pdf_job(conn, run_id, entry, record, password, report, ws)
            elif needs_text and fetcher and record.pdf_url:
                _queue_download(conn, run_id, fetcher, record, jobs, report)
            progress.advance(task)
        _extract_and_store(ws, conn, jobs, run_id, progress, report)
    update_lexical_indexes(conn)  # a large KB's BM25 index sees the new text at once
    return report


def _attached_pdf_job(
    conn: sqlite3.Connection,
    run_id: int,
    stored: ReportLine,
    record: SourceRecord,
    password: str | None,
    report: Report,
    ws: Workspace,
) -> list[PdfJob]:
    """The job that reads the PDF a record names on this machine into the paper it was stored
    as; none (and the reason in the report) when the file cannot be read."""
    assert record.pdf_file
    try:
        job = pdf_job(
            Path(record.pdf_file),
            password,
            ws.settings.ingest.chunk_tokens,
            record,
            item=stored.item,
            paper_id=stored.paper_id,
        )
    except OSError as exc:
        reason = f"attached PDF not read: {exc.strerror or exc}"
        record_outcome(conn, run_id, stored.item, "rejected", code="unreadable", reason=reason)
        report.add(ReportLine(stored.item, "rejected", reason, stored.paper_id, code="unreadable"))
        return []
    return [job]


def _queue_download(
    conn: sqlite3.Connection,
    run_id: int,
    fetcher: Fetcher,
    record: SourceRecord,
    jobs: list[PdfJob],
    report: Report,
) -> None:
    try:
        jobs.append(fetcher(record))
    except DownloadError as exc:
        item = record.arxiv_id or record.pdf_url or record.source_ref
        record_outcome(conn, run_id, item, "failed", code="download", reason=str(exc))
        report.add(ReportLine(item, "failed", f"full text not fetched: {exc}", code="download"))


def _extract_and_store(
    ws: Workspace,
    conn: sqlite3.Connection,
    jobs: list[PdfJob],
    run_id: int,
    progress: Progress,
    report: Report,
) -> None:
    embed = embeds_at_ingest(ws.settings)
    known = known_content_hashes(conn)
    todo: list[PdfJob] = []
    seen: set[str] = set()
    for job in jobs:
        if job.content_hash in known or job.content_hash in seen:
            paper_id = paper_with_content(conn, job.content_hash)
            where = f" as {paper_id}" if paper_id else " earlier in this run"
            report.add(ReportLine(job.item, "duplicate", f"already stored{where}", paper_id))
            continue
        seen.add(job.content_hash)
        job.embed = embed
        todo.append(job)
    task = progress.add_task("pdfs", total=len(todo), item="")
    for result in run_jobs(todo, ws.settings):
        progress.update(task, item=result.job.item[-40:])
        report.add(store_result(conn, result, run_id))
        progress.advance(task)
