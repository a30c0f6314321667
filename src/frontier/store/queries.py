"""Read-side queries for status and show."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from frontier.store.db import now, transaction


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    def one(sql: str) -> int:
        return int(conn.execute(sql).fetchone()[0])

    return {
        "papers": one("SELECT COUNT(*) FROM papers"),
        "with_full_text": one("SELECT COUNT(*) FROM papers WHERE status = 'fulltext'"),
        "pages": one("SELECT COUNT(*) FROM pages"),
        "chunks": one("SELECT COUNT(*) FROM chunks"),
        "with_warnings": one("SELECT COUNT(*) FROM papers WHERE warnings != '[]'"),
        "rejected_files": len(rejected_files(conn)),
        "in_field": one("SELECT COUNT(DISTINCT paper_id) FROM triage WHERE topic != ''"),
        "out_of_field": one("SELECT COUNT(DISTINCT paper_id) FROM triage WHERE topic = ''"),
        "claims_verified": one("SELECT COUNT(*) FROM claims WHERE verified = 1"),
        "claims_unverified": one("SELECT COUNT(*) FROM claims WHERE verified = 0"),
        "entries": one("SELECT COUNT(*) FROM entries"),
    }


def rejected_files(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Items whose latest outcome is a rejection (a later success clears it)."""
    rows = conn.execute(
        """SELECT o.item, o.code, o.reason, o.at FROM ingest_outcomes o
           JOIN (SELECT item, MAX(id) AS last FROM ingest_outcomes GROUP BY item) l ON o.id = l.last
           WHERE o.outcome IN ('rejected', 'failed') ORDER BY o.item"""
    )
    return [dict(row) for row in rows]


def warned_papers(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT id, title, warnings FROM papers WHERE warnings != '[]' ORDER BY id")
    return [
        {"id": r["id"], "title": r["title"], "warnings": json.loads(r["warnings"])} for r in rows
    ]


def paper_detail(conn: sqlite3.Connection, paper_id: str) -> dict[str, Any] | None:
    row = conn.execute("SELECT * FROM papers WHERE id = ?", (paper_id,)).fetchone()
    if row is None:
        return None
    paper = dict(row)
    for key in ("authors", "categories", "warnings"):
        paper[key] = json.loads(paper[key])
    paper["title_provisional"] = bool(paper["title_provisional"])
    paper["versions"] = [
        r[0]
        for r in conn.execute(
            "SELECT version FROM paper_versions WHERE paper_id = ? ORDER BY version", (paper_id,)
        )
    ]
    paper["sections"] = [
        dict(r)
        for r in conn.execute(
            "SELECT ord, number, title, kind, page_start FROM sections WHERE paper_id = ? ORDER BY ord",
            (paper_id,),
        )
    ]
    paper["chunks"] = int(
        conn.execute("SELECT COUNT(*) FROM chunks WHERE paper_id = ?", (paper_id,)).fetchone()[0]
    )
    paper["sources"] = [
        dict(r)
        for r in conn.execute(
            "SELECT source, source_ref, added_at FROM paper_sources WHERE paper_id = ?", (paper_id,)
        )
    ]
    return paper


def page_text(conn: sqlite3.Connection, paper_id: str, page: int) -> str | None:
    row = conn.execute(
        "SELECT text FROM pages WHERE paper_id = ? AND page = ?", (paper_id, page)
    ).fetchone()
    return row[0] if row else None


def page_texts(
    conn: sqlite3.Connection, pages: list[tuple[str, int]]
) -> dict[tuple[str, int], str]:
    """The text of each (paper, page) that has one: one primary-key lookup per paper."""
    by_paper: dict[str, list[int]] = {}
    for paper_id, page in pages:
        by_paper.setdefault(paper_id, []).append(page)
    found: dict[tuple[str, int], str] = {}
    for paper_id, numbers in by_paper.items():
        marks = ",".join("?" * len(numbers))
        for page, text in conn.execute(
            f"SELECT page, text FROM pages WHERE paper_id = ? AND page IN ({marks})",
            [paper_id, *numbers],
        ):
            found[(paper_id, page)] = text
    return found


def known_content_hashes(conn: sqlite3.Connection) -> set[str]:
    return {
        r[0] for r in conn.execute("SELECT content_hash FROM papers WHERE content_hash IS NOT NULL")
    }


def record_outcome(
    conn: sqlite3.Connection,
    run_id: int | None,
    item: str,
    outcome: str,
    *,
    content_hash: str | None = None,
    code: str = "",
    reason: str = "",
    paper_id: str | None = None,
) -> None:
    with transaction(conn):
        conn.execute(
            "INSERT INTO ingest_outcomes (run_id, item, content_hash, outcome, code, reason, paper_id, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, item, content_hash, outcome, code, reason, paper_id, now()),
        )
