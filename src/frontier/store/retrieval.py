"""Chunk and paper lookups behind retrieval: where chunks sit, their text, and which papers a
topic holds."""

from __future__ import annotations

import sqlite3

from frontier.model import TitledChunk


def embedding_coverage(conn: sqlite3.Connection, model: str) -> tuple[int, int]:
    """(chunks with a vector from `model`, all chunks)."""
    embedded, total = conn.execute(
        "SELECT (SELECT count(*) FROM chunk_embeddings WHERE model = ?), "
        "(SELECT count(*) FROM chunks)",
        (model,),
    ).fetchone()
    return int(embedded), int(total)


def chunk_locations(
    conn: sqlite3.Connection, chunk_ids: set[int]
) -> dict[int, tuple[str, int | None]]:
    """Each chunk's (paper, page); a chunk that no longer exists is left out."""
    if not chunk_ids:
        return {}
    marks = ",".join("?" * len(chunk_ids))
    return {
        row[0]: (row[1], row[2])
        for row in conn.execute(
            f"SELECT id, paper_id, page FROM chunks WHERE id IN ({marks})", list(chunk_ids)
        )
    }


def chunks_with_titles(conn: sqlite3.Connection, chunk_ids: list[int]) -> dict[int, TitledChunk]:
    """The chunks that exist, with their paper's title, by id."""
    if not chunk_ids:
        return {}
    marks = ",".join("?" * len(chunk_ids))
    rows = conn.execute(
        f"SELECT c.id, c.paper_id, p.title, c.page, c.section, c.text FROM chunks c "
        f"JOIN papers p ON p.id = c.paper_id WHERE c.id IN ({marks})",
        chunk_ids,
    )
    return {
        row[0]: TitledChunk(row[0], row[1], row[2], row[3], row[4] or "", row[5]) for row in rows
    }


def chunk_texts(conn: sqlite3.Connection, chunk_ids: list[int]) -> list[str]:
    """The texts of the chunks that still exist, by id."""
    marks = ",".join("?" * len(chunk_ids))
    return [
        row[0]
        for row in conn.execute(
            f"SELECT text FROM chunks WHERE id IN ({marks}) ORDER BY id", chunk_ids
        )
    ]


def triaged_papers(conn: sqlite3.Connection, topic: str) -> set[str]:
    """The ids of the papers triaged into the topic."""
    return {row[0] for row in conn.execute("SELECT paper_id FROM triage WHERE topic = ?", (topic,))}


def paper_dates(conn: sqlite3.Connection, paper_ids: set[str]) -> dict[str, str]:
    """Each paper's publication date ('' when unknown)."""
    if not paper_ids:
        return {}
    marks = ",".join("?" * len(paper_ids))
    return {
        row[0]: row[1] or ""
        for row in conn.execute(
            f"SELECT id, published FROM papers WHERE id IN ({marks})", list(paper_ids)
        )
    }


def named_nowhere(conn: sqlite3.Connection, names: list[str]) -> list[str]:
    """The names no paper's title, abstract or own text holds (as a phrase of the full-text
    index); a reference list, and what follows it, is not the paper's own text."""
    return [name for name in names if not _named(conn, '"' + name.replace('"', " ") + '"')]


def _named(conn: sqlite3.Connection, phrase: str) -> bool:
    return bool(
        conn.execute(_NAMED_IN_OWN_TEXT, (phrase,)).fetchone()
        or conn.execute(
            "SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? LIMIT 1", (phrase,)
        ).fetchone()
    )


_NAMED_IN_OWN_TEXT = """
SELECT 1 FROM chunks_fts f
JOIN chunks c ON c.id = f.rowid
LEFT JOIN (
    SELECT paper_id, min(page_start) AS first_page FROM sections
    WHERE kind = 'references' GROUP BY paper_id
) r ON r.paper_id = c.paper_id
WHERE chunks_fts MATCH ?
  AND (r.first_page IS NULL OR c.page IS NULL OR c.page < r.first_page
       OR (c.page = r.first_page AND c.section NOT IN ('references', 'appendix')))
LIMIT 1
"""
