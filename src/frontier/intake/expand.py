"""What the user named, expanded into records and PDF jobs (with a reason for anything unusable)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from frontier.config import IngestSettings
from frontier.intake.jobs import PdfJob
from frontier.intake.report import ReportLine
from frontier.model import SourceRecord
from frontier.sources.readers import (
    BATCH,
    ReaderKind,
    ReadFile,
    ReadOptions,
    folder_reader_for,
    reader_for,
    suffixes_read,
)
from frontier.sources.records import RecordError, printable

_PDF: tuple[ReaderKind, ...] = ("pdf",)


@dataclass
class Plan:
    records: list[tuple[str, SourceRecord]] = field(default_factory=list)
    pdfs: list[PdfJob] = field(default_factory=list)
    problems: list[ReportLine] = field(default_factory=list)


def read_options(settings: IngestSettings) -> ReadOptions:
    """What the readers are asked by the workspace's `[ingest]` settings."""
    return ReadOptions(zotero_collections=tuple(settings.zotero_collections))


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def pdf_job(
    path: Path,
    password: str | None,
    chunk_tokens: int,
    record: SourceRecord | None = None,
    item: str | None = None,
    paper_id: str | None = None,
) -> PdfJob:
    digest = file_hash(path)
    return PdfJob(
        item or shown(path), str(path), digest, record, password, chunk_tokens, paper_id=paper_id
    )


def expand_paths(
    paths: list[Path],
    password: str | None,
    chunk_tokens: int,
    options: ReadOptions | None = None,
) -> Plan:
    """Folders give their PDFs (recursively), unless a row of READERS reads the folder as a
    whole (a Zotero data folder); a file is read by its row of READERS."""
    plan = Plan()
    for path in paths:
        if path.is_dir():
            _add_folder(plan, path, password, chunk_tokens, options or ReadOptions())
        elif not path.exists():
            plan.problems.append(
                ReportLine(shown(path), "rejected", "no such file or folder", code="missing")
            )
        else:
            _add_file(plan, path, password, chunk_tokens)
    return plan


def _add_folder(
    plan: Plan, path: Path, password: str | None, chunk_tokens: int, options: ReadOptions
) -> None:
    reader = folder_reader_for(path)
    if reader is not None and reader.read_folder is not None:
        read_folder = reader.read_folder
        _add_records(plan, path, lambda folder: read_folder(folder, options))
        return
    found = sorted(p for p in path.rglob("*") if p.is_file() and reader_for(p, _PDF) is not None)
    if not found:
        plan.problems.append(
            ReportLine(shown(path), "rejected", "folder holds no PDF files", code="empty_folder")
        )
    plan.pdfs.extend(pdf_job(p, password, chunk_tokens) for p in found)


def _add_file(plan: Plan, path: Path, password: str | None, chunk_tokens: int) -> None:
    reader = reader_for(path, BATCH)
    if reader is None:
        plan.problems.append(
            ReportLine(shown(path), "rejected", _unsupported_message(), code="unsupported")
        )
    elif reader.read is None:
        plan.pdfs.append(pdf_job(path, password, chunk_tokens))
    else:
        _add_records(plan, path, reader.read)


def _unsupported_message() -> str:
    *most, last = suffixes_read(BATCH)
    return f"unsupported file type (expected a folder, {', '.join(most)} or {last})"


def _add_records(plan: Plan, path: Path, read: ReadFile) -> None:
    name = shown(path)
    try:
        items = list(read(path))
    except OSError as exc:
        reason = f"cannot read: {exc.strerror or exc}"
        plan.problems.append(ReportLine(name, "rejected", reason, code="unreadable"))
        return
    if not items:
        reason = "holds no records" if path.stat().st_size else "empty file"
        plan.problems.append(ReportLine(name, "rejected", reason, code="no_records"))
    for item in items:
        if isinstance(item, RecordError):
            plan.problems.append(ReportLine(item.ref, "rejected", item.reason, code="bad_record"))
        else:
            plan.records.append((item.source_ref, item))


def shown(path: Path) -> str:
    """A path as messages and the store show it: bytes that are not UTF-8 escaped."""
    return printable(str(path))
