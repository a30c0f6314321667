"""Followed sources: a library its user edits (Zotero) names each item for good, so reading it
again finds the paper by that name and updates the descriptive fields the library changed since
it was last read, and nothing else. What the source said is kept as one short hash per field
on its `paper_sources` row (column `field_digests`)."""

from __future__ import annotations

import hashlib
import json
import sqlite3

from frontier.model import SourceRecord
from frontier.sources.ids import normalize_title

# the descriptive fields a followed source may change; ids (arXiv id, DOI) are only ever filled,
# never replaced, since the paper's id and full text were chosen by them
FOLLOWED_FIELDS = ("title", "authors", "published", "abstract", "url", "categories", "collection")
_JSON_COLUMNS = ("authors", "categories")


def _value(record: SourceRecord, name: str) -> str | list[str] | None:
    value = getattr(record, name)
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return value or None


def field_hashes(record: SourceRecord) -> dict[str, str]:
    """A short hash of each followed field as the record gives it."""
    return {
        name: hashlib.sha256(json.dumps(_value(record, name)).encode()).hexdigest()[:16]
        for name in FOLLOWED_FIELDS
    }


def paper_of_source(conn: sqlite3.Connection, record: SourceRecord) -> str | None:
    """The paper a followed source's item was stored as, whatever its metadata says now."""
    row = conn.execute(
        "SELECT paper_id FROM paper_sources WHERE source = ? AND source_ref = ? "
        "ORDER BY added_at, paper_id LIMIT 1",
        (record.source, record.source_ref),
    ).fetchone()
    return None if row is None else str(row[0])


def _hashes_seen(conn: sqlite3.Connection, paper_id: str, record: SourceRecord) -> dict[str, str]:
    row = conn.execute(
        "SELECT field_digests FROM paper_sources WHERE paper_id = ? AND source = ? AND source_ref = ?",
        (paper_id, record.source, record.source_ref),
    ).fetchone()
    return json.loads(row[0]) if row and row[0] else {}


def changed_fields(conn: sqlite3.Connection, paper_id: str, record: SourceRecord) -> list[str]:
    """The followed fields the source changed since it was last read into this paper: none the
    first time; a field the source emptied is kept as stored, and so is a provisional title."""
    seen = _hashes_seen(conn, paper_id, record)
    if not seen:
        return []
    now = field_hashes(record)
    return [
        name
        for name in FOLLOWED_FIELDS
        if seen.get(name) != now[name]
        and _value(record, name) is not None
        and not (name == "title" and record.title_provisional)
    ]


def apply_source_changes(
    conn: sqlite3.Connection, paper_id: str, record: SourceRecord
) -> list[str]:
    """Write to the paper each field its followed source changed; the names of those fields."""
    changed = changed_fields(conn, paper_id, record)
    for name in changed:
        value = _value(record, name)
        if name == "title":
            conn.execute(
                "UPDATE papers SET title = ?, title_norm = ?, title_provisional = 0 WHERE id = ?",
                (value, normalize_title(str(value)), paper_id),
            )
            continue
        stored = json.dumps(value) if name in _JSON_COLUMNS else value
        conn.execute(f"UPDATE papers SET {name} = ? WHERE id = ?", (stored, paper_id))
    return changed


def note_field_hashes(conn: sqlite3.Connection, paper_id: str, record: SourceRecord) -> None:
    """Remember what the followed source says now, for the next reading to compare with."""
    conn.execute(
        "UPDATE paper_sources SET field_digests = ? WHERE paper_id = ? AND source = ? "
        "AND source_ref = ?",
        (json.dumps(field_hashes(record)), paper_id, record.source, record.source_ref),
    )
