"""Embeddings of papers (stored once, reused by search) and of scope lines, gaps and theses."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Generator, Sequence

import numpy as np

from frontier.llm.embeddings import (
    CHUNK_RECIPE,
    BatchEmbed,
    Embedder,
    blob_to_vector,
    paper_text,
    vector_to_blob,
)
from frontier.model import Paper
from frontier.store import vectors as store
from frontier.store.curation import stable_hash

__all__ = [
    "CHUNK_RECIPE",
    "embed_texts",
    "ensure_chunk_vectors",
    "ensure_paper_vectors",
    "paper_text",
]


def ensure_paper_vectors(
    conn: sqlite3.Connection, embedder: Embedder, papers: Sequence[Paper]
) -> dict[str, np.ndarray]:
    """Vectors for every paper; only new or changed texts are embedded."""
    stored = store.paper_vectors(conn, embedder.name)
    vectors: dict[str, np.ndarray] = {}
    todo: list[tuple[str, str, str]] = []
    for paper in papers:
        text = paper_text(paper.title, paper.abstract)
        text_hash = stable_hash(text)
        if paper.id in stored and stored[paper.id][0] == text_hash:
            vectors[paper.id] = blob_to_vector(stored[paper.id][1])
        else:
            todo.append((paper.id, text, text_hash))
    if todo:
        fresh = embedder.embed([text for _, text, _ in todo])
        rows = []
        for (paper_id, _, text_hash), vector in zip(todo, fresh, strict=True):
            rows.append((paper_id, text_hash, vector_to_blob(vector)))
            vectors[paper_id] = vector
        store.save_paper_vectors(conn, embedder.name, rows)
    return vectors


def embed_texts(embedder: Embedder, texts: list[str]) -> np.ndarray:
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return embedder.embed(texts)


def ensure_chunk_vectors(
    conn: sqlite3.Connection,
    embedder: Embedder,
    paper_ids: list[str],
    batch: int = 64,
    stop: threading.Event | None = None,
    embed_batches: BatchEmbed | None = None,
) -> int:
    """Embed the chunks of these papers that have no vector yet (for dense search later), and
    any chunk whose stored vector was made by an older recipe; returns how many were embedded.
    Once `stop` is set it ends between two batches (each batch stored is kept).
    `embed_batches` makes the vectors elsewhere (a cluster); by default `embedder` makes them
    here. A batch that fails there stays unembedded for the next run."""
    store.mark_stale_chunk_vectors(conn, embedder.name, CHUNK_RECIPE)
    todo = store.stale_chunks(conn) + store.unembedded_chunks(conn, paper_ids)
    parts = [todo[start : start + batch] for start in range(0, len(todo), batch)]
    if embed_batches is None:
        made: Generator[np.ndarray | None] = (
            embedder.embed_whole([text for _, text in part]) for part in parts
        )
    else:
        made = embed_batches([[text for _, text in part] for part in parts])
    embedded = 0
    with contextlib.closing(made):
        for part in parts:
            if stop is not None and stop.is_set():
                break
            vectors = next(made)
            if vectors is None:
                continue
            rows = [
                (chunk_id, vector_to_blob(v))
                for (chunk_id, _), v in zip(part, vectors, strict=True)
            ]
            store.save_chunk_vectors(conn, embedder.name, CHUNK_RECIPE, rows)
            embedded += len(part)
    return embedded
