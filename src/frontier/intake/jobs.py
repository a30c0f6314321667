"""Work items and the extraction step that runs in worker processes."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from frontier.extract.pdf import ExtractedPdf, PdfRejected, extract_pdf
from frontier.model import SourceRecord
from frontier.store.vectors import PaperVectors


@dataclass
class PdfJob:
    """A PDF on disk to read, and the metadata that came with it, if any."""

    item: str  # what the user named: a path, URL or arXiv id
    path: str
    content_hash: str
    record: SourceRecord | None = None
    password: str | None = None
    chunk_tokens: int = 400
    embed: bool = False  # embed chunks and paper in the worker too
    paper_id: str | None = None  # the paper the record was stored as: the full text joins it


@dataclass
class JobResult:
    job: PdfJob
    extracted: ExtractedPdf | None = None
    code: str = ""
    reason: str = ""
    vectors: PaperVectors | None = None


def run_pdf_job(job: PdfJob) -> JobResult:
    """Extract one PDF; every failure becomes a reason, never an exception."""
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    try:
        data = Path(job.path).read_bytes()
        return JobResult(job, extract_pdf(data, job.password, job.chunk_tokens))
    except PdfRejected as exc:
        return JobResult(job, code=exc.code, reason=str(exc))
    except OSError as exc:
        return JobResult(job, code="unreadable", reason=f"cannot read file: {exc.strerror}")
    except Exception as exc:  # a parser bug must not take the whole batch down
        return JobResult(
            job, code="extract_error", reason=f"extraction failed: {type(exc).__name__}: {exc}"
        )
