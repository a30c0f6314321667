"""Write papers: one transaction per paper, deduplicated by arXiv id, DOI, title and content hash."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Literal

from frontier.model import Chunk, Section, SourceRecord
from frontier.sources.ids import normalize_title, text_content_id
from frontier.store.db import now, transaction
from frontier.store.source_fields import apply_source_changes, note_field_hashes, paper_of_source
from frontier.store.vectors import PaperVectors, save_vectors_of_paper

Outcome = Literal["stored", "updated", "duplicate"]
_MIN_TITLE_KEY = 12  # shorter normalised titles are too generic to merge papers on


@dataclass
class FullText:
    """Everything read from a document's body, ready to store."""

    content_hash: str
    pages: list[str]
    sections: list[Section]
    chunks: list[Chunk]
    kind: str = "paper"
    warnings: list[str] = field(default_factory=list)
    vectors: PaperVectors | None = None  # made while reading, when embedding is done at ingest


@dataclass
class SaveResult:
    outcome: Outcome
    paper_id: str
    message: str


def find_existing(
    conn: sqlite3.Connection,
    record: SourceRecord,
    content_hash: str | None,
    into: str | None = None,
) -> sqlite3.Row | None:
    """The stored paper this record describes, by the strongest identity available: the paper
    named by `into`, the item of a followed source, then the record's own identities."""
    probes: list[tuple[str, str | None]] = [
        ("id", into),
        ("id", paper_of_source(conn, record) if record.followed else None),
        ("content_hash", content_hash),
        ("arxiv_id", record.arxiv_id),
        ("doi", record.doi),
    ]
    title_key = normalize_title(record.title or "")
    if record.title and not record.title_provisional and len(title_key) >= _MIN_TITLE_KEY:
        probes.append(("title_norm", title_key))
    # last, the id this record would be stored under: a record that no stronger identity
    # matches (a short title, say) is still the same paper when all it says is the same
    probes.append(("id", new_paper_id(record, content_hash)))
    for column, value in probes:
        if value:
            row: sqlite3.Row | None = conn.execute(
                f"SELECT * FROM papers WHERE {column} = ?", (value,)
            ).fetchone()
            if row is not None:
                return row
    return None


def has_fulltext(conn: sqlite3.Connection, paper_id: str | None) -> bool:
    row = conn.execute("SELECT status FROM papers WHERE id = ?", (paper_id,)).fetchone()
    return bool(row and row[0] == "fulltext")


def paper_with_content(conn: sqlite3.Connection, content_hash: str) -> str | None:
    """The id of the paper stored from this exact file, if any."""
    row = conn.execute("SELECT id FROM papers WHERE content_hash = ?", (content_hash,)).fetchone()
    return None if row is None else str(row[0])


def _hash_id(hex_hash: str) -> str:
    return f"h:{hex_hash[:16]}"


def new_paper_id(record: SourceRecord, content_hash: str | None) -> str:
    if record.arxiv_id:
        return record.arxiv_id
    if record.doi:
        return f"doi:{record.doi}"
    if record.content_id:
        return _hash_id(record.content_id)
    if content_hash:
        return _hash_id(content_hash)
    return _hash_id(text_content_id(_identity(record)))


def _identity(record: SourceRecord) -> str:
    """All a record without an id says about its paper, so two papers with one short title
    keep two ids."""
    published = record.published.isoformat() if record.published else ""
    parts = [record.title or "", record.abstract or "", *record.authors, published]
    return "\n".join(parts) if any(parts) else record.source_ref


def save_paper(
    conn: sqlite3.Connection,
    record: SourceRecord,
    fulltext: FullText | None,
    run_id: int | None,
    into: str | None = None,
) -> SaveResult:
    """Store a new paper, or merge into the one already stored (the paper `into` names, when
    given: a record's PDF attaches to the paper the record was stored as); all in one
    transaction."""
    content_hash = fulltext.content_hash if fulltext else None
    with transaction(conn):
        existing = find_existing(conn, record, content_hash, into)
        if existing is None:
            paper_id = new_paper_id(record, content_hash)
            _insert_paper(conn, paper_id, record, fulltext, run_id)
            result = SaveResult("stored", paper_id, f"stored as {paper_id}")
        else:
            result = _merge(conn, existing, record, fulltext)
        _note_source(conn, result.paper_id, record, content_hash, fulltext)
        if fulltext is not None and fulltext.vectors is not None:
            texts = [(chunk.ord, chunk.text) for chunk in fulltext.chunks]
            save_vectors_of_paper(conn, result.paper_id, texts, fulltext.vectors)
    return result


def _insert_paper(
    conn: sqlite3.Connection,
    paper_id: str,
    record: SourceRecord,
    fulltext: FullText | None,
    run_id: int | None,
) -> None:
    stamp = now()
    title = record.title or "(untitled)"
    conn.execute(
        """INSERT INTO papers (id, arxiv_id, arxiv_version, doi, title, title_norm,
               title_provisional, authors, published, updated, categories, abstract, pdf_url,
               url, site, kind, source, source_ref, collection, added_at, updated_at, run_id,
               warnings)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            paper_id,
            record.arxiv_id,
            record.arxiv_version,
            record.doi,
            title,
            normalize_title(title),
            int(record.title_provisional),
            json.dumps(record.authors),
            _iso(record.published),
            _iso(record.updated),
            json.dumps(record.categories),
            record.abstract,
            record.pdf_url,
            record.url,
            record.site,
            record.kind,
            record.source,
            record.source_ref,
            record.collection,
            stamp,
            stamp,
            run_id,
            json.dumps(record.warnings),
        ),
    )
    _note_version(conn, paper_id, record.arxiv_version)
    if fulltext is not None:
        _write_fulltext(conn, paper_id, fulltext)
    else:
        _write_abstract_chunk(conn, paper_id, record.abstract)
    _index_paper(conn, paper_id)


def _merge(
    conn: sqlite3.Connection, existing: sqlite3.Row, record: SourceRecord, fulltext: FullText | None
) -> SaveResult:
    paper_id = existing["id"]
    changes: list[str] = []
    newer = bool(record.arxiv_version and record.arxiv_version > (existing["arxiv_version"] or 0))
    if newer:
        _overwrite_metadata(conn, paper_id, record)
        changes.append(f"arXiv v{record.arxiv_version}")
    if _reads_source_fields(record, fulltext):
        changed = apply_source_changes(conn, paper_id, record)
        if "abstract" in changed and existing["status"] != "fulltext":
            _replace_abstract_chunk(conn, paper_id, record.abstract)
        if changed:
            changes.append(f"changed in {record.source}: " + ", ".join(changed))
    filled = _fill_missing(conn, existing, record)
    if filled:
        changes.append("metadata: " + ", ".join(filled))
    _note_version(conn, paper_id, record.arxiv_version)
    if fulltext is not None and existing["status"] != "fulltext":
        _write_fulltext(conn, paper_id, fulltext)
        changes.append(f"full text ({len(fulltext.pages)} pages)")
    if not changes:
        return SaveResult("duplicate", paper_id, f"already present as {paper_id}")
    conn.execute("UPDATE papers SET updated_at = ? WHERE id = ?", (now(), paper_id))
    _index_paper(conn, paper_id)
    return SaveResult("updated", paper_id, f"updated {paper_id}: " + "; ".join(changes))


_FILLABLE = ("abstract", "published", "updated", "pdf_url", "url", "site", "doi", "arxiv_id")


def _fill_missing(
    conn: sqlite3.Connection, existing: sqlite3.Row, record: SourceRecord
) -> list[str]:
    filled = []
    for column in _FILLABLE:
        value = getattr(record, column)
        if value and not existing[column]:
            if column in ("doi", "arxiv_id") and _taken(conn, column, value):
                continue
            conn.execute(
                f"UPDATE papers SET {column} = ? WHERE id = ?", (_iso(value), existing["id"])
            )
            filled.append(column)
    for column in ("authors", "categories"):
        value = getattr(record, column)
        if value and existing[column] == "[]":
            conn.execute(
                f"UPDATE papers SET {column} = ? WHERE id = ?", (json.dumps(value), existing["id"])
            )
            filled.append(column)
    if record.title and not record.title_provisional and existing["title_provisional"]:
        conn.execute(
            "UPDATE papers SET title = ?, title_norm = ?, title_provisional = 0 WHERE id = ?",
            (record.title, normalize_title(record.title), existing["id"]),
        )
        filled.append("title")
    return filled


def _taken(conn: sqlite3.Connection, column: str, value: str) -> bool:
    return conn.execute(f"SELECT 1 FROM papers WHERE {column} = ?", (value,)).fetchone() is not None


def _overwrite_metadata(conn: sqlite3.Connection, paper_id: str, record: SourceRecord) -> None:
    """A newer arXiv version replaces the descriptive metadata it gives (the id stays); what it
    leaves out is kept, so records that disagree end the same whatever their order."""
    conn.execute(
        """UPDATE papers SET arxiv_version = ?, title = COALESCE(?, title),
               title_norm = COALESCE(?, title_norm), authors = COALESCE(?, authors),
               abstract = COALESCE(?, abstract), updated = COALESCE(?, updated),
               categories = COALESCE(?, categories), pdf_url = COALESCE(?, pdf_url)
           WHERE id = ?""",
        (
            record.arxiv_version,
            record.title,
            normalize_title(record.title) if record.title else None,
            json.dumps(record.authors) if record.authors else None,
            record.abstract,
            _iso(record.updated),
            json.dumps(record.categories) if record.categories else None,
            record.pdf_url,
            paper_id,
        ),
    )


def _write_fulltext(conn: sqlite3.Connection, paper_id: str, fulltext: FullText) -> None:
    for table in ("pages", "sections", "chunks"):
        conn.execute(f"DELETE FROM {table} WHERE paper_id = ?", (paper_id,))
    conn.executemany(
        "INSERT INTO pages (paper_id, page, text) VALUES (?, ?, ?)",
        [(paper_id, number, text) for number, text in enumerate(fulltext.pages, start=1)],
    )
    conn.executemany(
        "INSERT INTO sections (paper_id, ord, number, title, kind, page_start) VALUES (?, ?, ?, ?, ?, ?)",
        [(paper_id, s.ord, s.number, s.title, s.kind, s.page_start) for s in fulltext.sections],
    )
    conn.executemany(
        "INSERT INTO chunks (paper_id, ord, page, section, text, n_tokens) VALUES (?, ?, ?, ?, ?, ?)",
        [(paper_id, c.ord, c.page, c.section, c.text, c.n_tokens) for c in fulltext.chunks],
    )
    conn.execute(
        """UPDATE papers SET status = 'fulltext', content_hash = ?, n_pages = ?, kind = CASE
               WHEN ? = 'slides' THEN 'slides' ELSE kind END, warnings = ? WHERE id = ?""",
        (
            fulltext.content_hash,
            len(fulltext.pages),
            fulltext.kind,
            json.dumps(fulltext.warnings),
            paper_id,
        ),
    )


def _write_abstract_chunk(conn: sqlite3.Connection, paper_id: str, abstract: str | None) -> None:
    """A paper known only by its metadata is still searchable through its abstract."""
    if abstract:
        conn.execute(
            "INSERT INTO chunks (paper_id, ord, page, section, text, n_tokens) VALUES (?, 0, NULL, 'abstract', ?, ?)",
            (paper_id, abstract, max(1, len(abstract) // 4)),
        )


def _replace_abstract_chunk(conn: sqlite3.Connection, paper_id: str, abstract: str | None) -> None:
    """A paper known by its metadata only is searched through its abstract as it is now."""
    conn.execute(
        "DELETE FROM chunks WHERE paper_id = ? AND section = 'abstract' AND page IS NULL",
        (paper_id,),
    )
    _write_abstract_chunk(conn, paper_id, abstract)


def _index_paper(conn: sqlite3.Connection, paper_id: str) -> None:
    row = conn.execute("SELECT title, abstract FROM papers WHERE id = ?", (paper_id,)).fetchone()
    conn.execute("DELETE FROM papers_fts WHERE paper_id = ?", (paper_id,))
    conn.execute(
        "INSERT INTO papers_fts (paper_id, title, abstract) VALUES (?, ?, ?)",
        (paper_id, row["title"], row["abstract"] or ""),
    )


def _note_version(conn: sqlite3.Connection, paper_id: str, version: int | None) -> None:
    if version:
        conn.execute(
            "INSERT OR IGNORE INTO paper_versions (paper_id, version, seen_at) VALUES (?, ?, ?)",
            (paper_id, version, now()),
        )


def _reads_source_fields(record: SourceRecord, fulltext: FullText | None) -> bool:
    """A followed source's fields are compared when its record comes alone: with a PDF, the
    record has been completed from the first page and is no longer what the source said."""
    return record.followed and fulltext is None


def _note_source(
    conn: sqlite3.Connection,
    paper_id: str,
    record: SourceRecord,
    content_hash: str | None,
    fulltext: FullText | None,
) -> None:
    conn.execute(
        "INSERT OR IGNORE INTO paper_sources (paper_id, source, source_ref, content_hash, added_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (paper_id, record.source, record.source_ref, content_hash, now()),
    )
    if _reads_source_fields(record, fulltext):
        note_field_hashes(conn, paper_id, record)


def _iso(value: object) -> str | None:
    if value is None:
        return None
    return value.isoformat() if hasattr(value, "isoformat") else str(value)
