"""Embeddings of papers (stored once, reused by search) and of scope lines, gaps and theses."""

from __future__ import annotations

import sqlite3

import numpy as np

from frontier.llm.embeddings import Embedder, blob_to_vector, vector_to_blob
from frontier.store.curation import digest
from frontier.store.db import transaction


def paper_text(title: str, abstract: str | None) -> str:
    return f"{title}. {abstract or ''}".strip()


def ensure_paper_vectors(
    conn: sqlite3.Connection, embedder: Embedder, papers: list[sqlite3.Row]
) -> dict[str, np.ndarray]:
    """Vectors for every paper; only new or changed texts are embedded."""
    stored = {
        row[0]: (row[1], row[2])
        for row in conn.execute(
            "SELECT paper_id, text_hash, vector FROM paper_embeddings WHERE model = ?",
            (embedder.name,),
        )
    }
    vectors: dict[str, np.ndarray] = {}
    todo: list[tuple[str, str, str]] = []
    for paper in papers:
        text = paper_text(paper["title"], paper["abstract"])
        text_hash = digest(text)
        if paper["id"] in stored and stored[paper["id"]][0] == text_hash:
            vectors[paper["id"]] = blob_to_vector(stored[paper["id"]][1])
        else:
            todo.append((paper["id"], text, text_hash))
    if todo:
        fresh = embedder.embed([text for _, text, _ in todo])
        with transaction(conn):
            for (paper_id, _, text_hash), vector in zip(todo, fresh, strict=True):
                conn.execute(
                    "INSERT OR REPLACE INTO paper_embeddings (paper_id, model, text_hash, vector) "
                    "VALUES (?, ?, ?, ?)",
                    (paper_id, embedder.name, text_hash, vector_to_blob(vector)),
                )
                vectors[paper_id] = vector
    return vectors


def embed_texts(embedder: Embedder, texts: list[str]) -> np.ndarray:
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return embedder.embed(texts)


# How a chunk's text becomes its vector: the mean over pieces that fit the model's window, so the
# whole chunk counts (up to m006 only its first 256 word pieces did: "first-window"). A new value
# makes ensure_chunk_vectors make every stored chunk vector again, once.
CHUNK_RECIPE = "window-mean"


def ensure_chunk_vectors(
    conn: sqlite3.Connection, embedder: Embedder, paper_ids: list[str], batch: int = 64
) -> int:
    """Embed the chunks of these papers that have no vector yet (for dense search later), and
    any chunk whose stored vector was made by an older recipe."""
    _mark_stale(conn, embedder.name)
    todo = _stale_chunks(conn) + _unembedded_chunks(conn, paper_ids)
    for start in range(0, len(todo), batch):
        part = todo[start : start + batch]
        vectors = embedder.embed_whole([text for _, text in part])
        ids = [(chunk_id,) for chunk_id, _ in part]
        with transaction(conn):
            conn.executemany("DELETE FROM chunk_embeddings WHERE chunk_id = ?", ids)
            conn.executemany(
                "INSERT INTO chunk_embeddings (chunk_id, model, vector) VALUES (?, ?, ?)",
                [
                    (chunk_id, embedder.name, vector_to_blob(v))
                    for (chunk_id, _), v in zip(part, vectors, strict=True)
                ],
            )
            conn.executemany("DELETE FROM chunk_vectors_stale WHERE chunk_id = ?", ids)
            conn.execute(
                "INSERT OR IGNORE INTO chunk_vector_recipes (model, recipe) VALUES (?, ?)",
                (embedder.name, CHUNK_RECIPE),
            )
    return len(todo)


def _mark_stale(conn: sqlite3.Connection, model: str) -> None:
    """Vectors of `model` made by another recipe are listed to be made again (a KB without a
    recorded recipe has only vectors made by this one)."""
    row = conn.execute(
        "SELECT recipe FROM chunk_vector_recipes WHERE model = ?", (model,)
    ).fetchone()
    if row is None or row[0] == CHUNK_RECIPE:
        return
    with transaction(conn):
        conn.execute(
            "INSERT OR IGNORE INTO chunk_vectors_stale (chunk_id) "
            "SELECT chunk_id FROM chunk_embeddings WHERE model = ?",
            (model,),
        )
        conn.execute(
            "UPDATE chunk_vector_recipes SET recipe = ? WHERE model = ?", (CHUNK_RECIPE, model)
        )


def _stale_chunks(conn: sqlite3.Connection) -> list[tuple[int, str]]:
    return conn.execute(
        "SELECT c.id, c.text FROM chunk_vectors_stale s JOIN chunks c ON c.id = s.chunk_id "
        "ORDER BY c.id"
    ).fetchall()


def _unembedded_chunks(conn: sqlite3.Connection, paper_ids: list[str]) -> list[tuple[int, str]]:
    if not paper_ids:
        return []
    marks = ",".join("?" * len(paper_ids))
    return conn.execute(
        f"SELECT c.id, c.text FROM chunks c LEFT JOIN chunk_embeddings e ON e.chunk_id = c.id "
        f"WHERE e.chunk_id IS NULL AND c.paper_id IN ({marks}) ORDER BY c.id",
        paper_ids,
    ).fetchall()
