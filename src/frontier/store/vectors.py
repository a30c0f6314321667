"""Stored vectors of papers and chunks (as bytes; turning them into arrays is the embedder's)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from frontier.store.db import transaction


@dataclass
class PaperVectors:
    """Vectors made on a worker while the paper was read: one per chunk (in chunk order), and
    the paper's own from its title and abstract as the worker saw them."""

    model: str
    recipe: str
    chunks: list[bytes]
    title: str
    abstract: str | None
    text_hash: str
    paper: bytes


def paper_vectors(conn: sqlite3.Connection, model: str) -> dict[str, tuple[str, bytes]]:
    """Each paper's stored vector of `model`, with the hash of the text it was made from."""
    rows = conn.execute(
        "SELECT paper_id, text_hash, vector FROM paper_embeddings WHERE model = ?", (model,)
    )
    return {row[0]: (row[1], row[2]) for row in rows}


def save_paper_vectors(
    conn: sqlite3.Connection, model: str, rows: list[tuple[str, str, bytes]]
) -> None:
    """(paper id, text hash, vector) rows, replacing any older vector of the paper."""
    with transaction(conn):
        conn.executemany(
            "INSERT OR REPLACE INTO paper_embeddings (paper_id, model, text_hash, vector) "
            "VALUES (?, ?, ?, ?)",
            [(paper_id, model, text_hash, blob) for paper_id, text_hash, blob in rows],
        )


def save_chunk_vectors(
    conn: sqlite3.Connection, model: str, recipe: str, rows: list[tuple[int, bytes]]
) -> None:
    """(chunk id, vector) rows made by `recipe`; they are no longer stale."""
    ids = [(chunk_id,) for chunk_id, _ in rows]
    with transaction(conn):
        conn.executemany("DELETE FROM chunk_embeddings WHERE chunk_id = ?", ids)
        conn.executemany(
            "INSERT INTO chunk_embeddings (chunk_id, model, vector) VALUES (?, ?, ?)",
            [(chunk_id, model, blob) for chunk_id, blob in rows],
        )
        conn.executemany("DELETE FROM chunk_vectors_stale WHERE chunk_id = ?", ids)
        conn.execute(
            "INSERT OR IGNORE INTO chunk_vector_recipes (model, recipe) VALUES (?, ?)",
            (model, recipe),
        )


def mark_stale_chunk_vectors(conn: sqlite3.Connection, model: str, recipe: str) -> None:
    """Vectors of `model` made by another recipe are listed to be made again (a KB without a
    recorded recipe has only vectors made by this one)."""
    row = conn.execute(
        "SELECT recipe FROM chunk_vector_recipes WHERE model = ?", (model,)
    ).fetchone()
    if row is None or row[0] == recipe:
        return
    with transaction(conn):
        conn.execute(
            "INSERT OR IGNORE INTO chunk_vectors_stale (chunk_id) "
            "SELECT chunk_id FROM chunk_embeddings WHERE model = ?",
            (model,),
        )
        conn.execute("UPDATE chunk_vector_recipes SET recipe = ? WHERE model = ?", (recipe, model))


def stale_chunks(conn: sqlite3.Connection) -> list[tuple[int, str]]:
    return conn.execute(
        "SELECT c.id, c.text FROM chunk_vectors_stale s JOIN chunks c ON c.id = s.chunk_id "
        "ORDER BY c.id"
    ).fetchall()


def unembedded_chunks(conn: sqlite3.Connection, paper_ids: list[str]) -> list[tuple[int, str]]:
    """Chunks of these papers that have no vector yet."""
    if not paper_ids:
        return []
    marks = ",".join("?" * len(paper_ids))
    return conn.execute(
        f"SELECT c.id, c.text FROM chunks c LEFT JOIN chunk_embeddings e ON e.chunk_id = c.id "
        f"WHERE e.chunk_id IS NULL AND c.paper_id IN ({marks}) ORDER BY c.id",
        paper_ids,
    ).fetchall()


def save_vectors_of_paper(
    conn: sqlite3.Connection, paper_id: str, chunk_texts: list[tuple[int, str]], made: PaperVectors
) -> None:
    """Inside the paper's own transaction: the vectors of its stored chunks that have none yet
    and whose text is the one embedded, and its paper vector if its title and abstract are
    still the ones embedded (a merge with an earlier record may have changed them)."""
    embedded = {
        ord_: (text, blob) for (ord_, text), blob in zip(chunk_texts, made.chunks, strict=True)
    }
    stored = conn.execute(
        "SELECT c.id, c.ord, c.text FROM chunks c LEFT JOIN chunk_embeddings e ON e.chunk_id = c.id "
        "WHERE c.paper_id = ? AND e.chunk_id IS NULL",
        (paper_id,),
    ).fetchall()
    rows = [
        (chunk_id, made.model, embedded[ord_][1])
        for chunk_id, ord_, text in stored
        if ord_ in embedded and embedded[ord_][0] == text
    ]
    if rows:
        conn.executemany(
            "INSERT INTO chunk_embeddings (chunk_id, model, vector) VALUES (?, ?, ?)", rows
        )
        conn.execute(
            "INSERT OR IGNORE INTO chunk_vector_recipes (model, recipe) VALUES (?, ?)",
            (made.model, made.recipe),
        )
    paper = conn.execute("SELECT title, abstract FROM papers WHERE id = ?", (paper_id,)).fetchone()
    if paper is not None and (paper[0], paper[1]) == (made.title, made.abstract):
        conn.execute(
            "INSERT OR REPLACE INTO paper_embeddings (paper_id, model, text_hash, vector) "
            "VALUES (?, ?, ?, ?)",
            (paper_id, made.model, made.text_hash, made.paper),
        )
