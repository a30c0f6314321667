"""`frontier add ITEM`: one arXiv id, PDF, URL or saved article, resolved into a plan."""

from __future__ import annotations

import re
from pathlib import Path

from frontier.intake.expand import Plan, expand_paths, pdf_job, read_options, shown
from frontier.intake.report import ReportLine
from frontier.model import SourceRecord
from frontier.sources.arxiv_api import ArxivError, fetch_arxiv_ids
from frontier.sources.download import DownloadError, cache_file
from frontier.sources.ids import parse_arxiv_id
from frontier.sources.readers import SINGLE_FILE, ReadFile, reader_for
from frontier.sources.web import (
    ArticleError,
    FetchError,
    article_record,
    extract_article,
    fetch_page,
)
from frontier.workspace import Workspace

_URL = re.compile(r"^https?://", re.IGNORECASE)


def plan_single(ws: Workspace, item: str, password: str | None) -> Plan:
    """Decide what ITEM is and turn it into records, PDF jobs or a clear problem."""
    chunk_tokens = ws.settings.ingest.chunk_tokens
    path = Path(item).expanduser()
    if path.exists():
        reader = reader_for(path, SINGLE_FILE) if path.is_file() else None
        if reader is not None and reader.read is not None:
            return _article_file(path, reader.read)
        return expand_paths([path], password, chunk_tokens, read_options(ws.settings.ingest))
    if (parse_arxiv_id(item) and not _URL.match(item)) or _is_arxiv_url(item):
        return _arxiv_item(ws, item)
    if _URL.match(item):
        return _url_item(ws, item, password)
    plan = Plan()
    plan.problems.append(
        ReportLine(item, "rejected", "not a file, URL or arXiv id", code="unknown_item")
    )
    return plan


def _is_arxiv_url(item: str) -> bool:
    return bool(re.match(r"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/", item, re.I))


def _arxiv_item(ws: Workspace, item: str) -> Plan:
    plan = Plan()
    try:
        records = fetch_arxiv_ids([item], ws.settings.arxiv)
    except ArxivError as exc:
        plan.problems.append(ReportLine(item, "failed", str(exc), code="arxiv"))
        return plan
    if not records:
        plan.problems.append(
            ReportLine(item, "rejected", "arXiv has no paper with this id", code="not_found")
        )
    for record in records:
        if isinstance(record, SourceRecord):
            plan.records.append((item, record))
        else:
            plan.problems.append(ReportLine(item, "rejected", str(record), code="bad_record"))
    return plan


def _article_file(path: Path, read: ReadFile) -> Plan:
    plan = Plan()
    item = shown(path)
    try:
        records = list(read(path))
    except ArticleError as exc:
        plan.problems.append(ReportLine(item, "rejected", str(exc), code="no_article"))
        return plan
    except OSError as exc:
        reason = f"cannot read: {exc.strerror or exc}"
        plan.problems.append(ReportLine(item, "rejected", reason, code="unreadable"))
        return plan
    for record in records:
        if isinstance(record, SourceRecord):
            plan.records.append((item, record))
        else:
            plan.problems.append(
                ReportLine(record.ref, "rejected", record.reason, code="bad_record")
            )
    return plan


def _url_item(ws: Workspace, url: str, password: str | None) -> Plan:
    plan = Plan()
    settings = ws.settings.ingest
    try:
        body, content_type = fetch_page(url, settings.download_timeout, settings.download_retries)
    except (ArticleError, FetchError, DownloadError) as exc:
        plan.problems.append(ReportLine(url, "failed", str(exc), code="fetch"))
        return plan
    if b"%PDF" in body[:1024] or "pdf" in (content_type or "").lower():
        cached = cache_file(body, ws.pdf_cache)
        plan.pdfs.append(pdf_job(cached.path, password, settings.chunk_tokens, item=url))
        return plan
    try:
        record = article_record(extract_article(body, url), "web", url, url)
    except ArticleError as exc:
        plan.problems.append(ReportLine(url, "rejected", str(exc), code="no_article"))
        return plan
    plan.records.append((url, record))
    return plan
