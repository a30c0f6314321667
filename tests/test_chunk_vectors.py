"""Chunk vectors count a chunk's whole text (the model's window holds only its first 256 word
pieces), and a KB whose vectors were made another way has them made again, once."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from helpers import copy_of, ingest_pdfs

from frontier.curate.vectors import CHUNK_RECIPE, ensure_chunk_vectors
from frontier.llm.embeddings import (
    Embedder,
    OnnxMiniLM,
    blob_to_vector,
    load_embedder,
    vector_to_blob,
)
from frontier.store.db import migrate, transaction
from frontier.workspace import open_workspace

PDF = "self-attention-no-n2-memory.pdf"
FILLER = "The scheduler admits requests in arrival order and batches them per iteration. " * 30
TAIL = "Adapter weights for LoRA fine-tuning are prefetched from host memory to the GPU."


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return load_embedder()


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingest_pdfs(tmp_path_factory.mktemp("chunk-vectors") / "kb", [PDF])


@pytest.fixture
def conn(ingested: Path, tmp_path: Path) -> Iterator[sqlite3.Connection]:
    with contextlib.closing(open_workspace(copy_of(ingested, tmp_path)).connect()) as connection:
        yield connection


def _stored(conn: sqlite3.Connection) -> dict[int, np.ndarray]:
    rows = conn.execute("SELECT chunk_id, vector FROM chunk_embeddings")
    return {row[0]: blob_to_vector(row[1]) for row in rows}


def _texts(conn: sqlite3.Connection) -> dict[int, str]:
    return {row[0]: row[1] for row in conn.execute("SELECT id, text FROM chunks")}


def _recipe(conn: sqlite3.Connection, model: str) -> str | None:
    row = conn.execute("SELECT recipe FROM chunk_vector_recipes WHERE model = ?", (model,))
    found = row.fetchone()
    return found[0] if found else None


def test_a_long_text_is_split_to_fit_and_every_piece_counts(embedder: Embedder) -> None:
    assert isinstance(embedder, OnnxMiniLM)
    long_text = f"{FILLER} {TAIL}"
    pieces = embedder.split(long_text)
    assert len(pieces) >= 2
    assert " ".join(pieces).split() == long_text.split()
    assert all(embedder.split(piece) == [piece] for piece in pieces)  # each fits the window
    np.testing.assert_allclose(embedder.embed_whole([TAIL]), embedder.embed([TAIL]), atol=1e-6)
    query = embedder.embed(["how are adapter weights moved from host memory to the GPU?"])[0]
    truncated, whole = embedder.embed([long_text])[0], embedder.embed_whole([long_text])[0]
    assert float(whole @ query) > float(truncated @ query) + 0.05  # the tail is seen
    np.testing.assert_allclose(np.linalg.norm(whole), 1.0, atol=1e-5)


def test_vectors_of_an_older_recipe_are_made_again_once(
    conn: sqlite3.Connection, embedder: Embedder
) -> None:
    ids = [row[0] for row in conn.execute("SELECT id FROM papers")]
    count = ensure_chunk_vectors(conn, embedder, ids)
    texts = _texts(conn)
    assert count == len(texts) > 5
    assert _recipe(conn, embedder.name) == CHUNK_RECIPE
    with transaction(conn):  # as a KB embedded before recipes were recorded: first window only
        for chunk_id, text in texts.items():
            blob = vector_to_blob(embedder.embed([text])[0])
            conn.execute(
                "UPDATE chunk_embeddings SET vector = ? WHERE chunk_id = ?", (blob, chunk_id)
            )
        conn.execute("UPDATE chunk_vector_recipes SET recipe = 'first-window'")
    # made again even for papers the caller did not name (curate names only changed ones)
    assert ensure_chunk_vectors(conn, embedder, []) == len(texts)
    assert ensure_chunk_vectors(conn, embedder, ids) == 0
    assert _recipe(conn, embedder.name) == CHUNK_RECIPE
    assert conn.execute("SELECT count(*) FROM chunk_vectors_stale").fetchone()[0] == 0
    stored = _stored(conn)
    order = sorted(texts)
    expected = embedder.embed_whole([texts[i] for i in order])
    np.testing.assert_allclose(np.stack([stored[i] for i in order]), expected, atol=1e-5)


def test_the_migration_records_vectors_stored_before_it_as_first_window(
    conn: sqlite3.Connection, embedder: Embedder
) -> None:
    ids = [row[0] for row in conn.execute("SELECT id FROM papers")]
    ensure_chunk_vectors(conn, embedder, ids)
    with transaction(conn):  # back to the schema before m006, vectors kept
        conn.execute("DROP TABLE chunk_vector_recipes")
        conn.execute("DROP TABLE chunk_vectors_stale")
        conn.execute("DELETE FROM schema_migrations WHERE name = 'm006_chunk_vector_recipe'")
    assert migrate(conn) == ["m006_chunk_vector_recipe"]
    assert _recipe(conn, embedder.name) == "first-window"
    assert ensure_chunk_vectors(conn, embedder, []) == len(_texts(conn))
