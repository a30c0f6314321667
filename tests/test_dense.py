"""Dense search over stored chunk vectors: it sees vectors stored after it first loaded them and
forgets deleted ones (the change counter, not a count per search), and the HNSW index path
(thresholds passed as 0 so a small KB takes it) agrees with the exact scan."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import copy_of, db, ingest_pdfs

from frontier.curate.vectors import ensure_chunk_vectors
from frontier.llm.embeddings import Embedder, load_embedder, vector_to_blob
from frontier.store.dense import (
    ChunkIndex,
    dense_search,
    index_path,
    update_chunk_index,
    vector_stamp,
)

PDFS = ["vllm-pagedattention.pdf", "llm-in-a-flash.pdf"]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return load_embedder()


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = ingest_pdfs(tmp_path_factory.mktemp("dense") / "kb", PDFS)
    return root


@pytest.fixture(scope="module")
def embedded(ingested: Path, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ingested KB with every chunk embedded, once; tests change copies of it."""
    root = copy_of(ingested, tmp_path_factory.mktemp("embedded"))
    conn = db(root)
    ensure_chunk_vectors(conn, embedder, _papers(conn))
    return root


def _papers(conn: sqlite3.Connection) -> list[str]:
    return [row[0] for row in conn.execute("SELECT id FROM papers ORDER BY title")]


def _owners(conn: sqlite3.Connection, hits: list[tuple[int, float]]) -> set[str]:
    return {
        conn.execute("SELECT paper_id FROM chunks WHERE id = ?", (cid,)).fetchone()[0]
        for cid, _ in hits
    }


def test_search_follows_vectors_stored_and_deleted_after_it_loaded(
    ingested: Path, embedder: Embedder, tmp_path: Path
) -> None:
    root = copy_of(ingested, tmp_path)
    conn = db(root)
    first, second = _papers(conn)
    query = embedder.embed(["loading model weights from flash storage"])[0]
    assert dense_search(conn, embedder.name, query, 5) == []
    ensure_chunk_vectors(conn, embedder, [first])
    assert _owners(conn, dense_search(conn, embedder.name, query, 50)) == {first}
    ensure_chunk_vectors(conn, embedder, [second])
    assert _owners(conn, dense_search(conn, embedder.name, query, 500)) == {first, second}
    with conn:  # the vectors go with their chunks (foreign keys, as every frontier connection)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("DELETE FROM chunks WHERE paper_id = ?", (first,))
    assert _owners(conn, dense_search(conn, embedder.name, query, 500)) == {second}


def test_index_path_agrees_with_the_exact_scan(
    embedded: Path, embedder: Embedder, tmp_path: Path
) -> None:
    conn = db(copy_of(embedded, tmp_path))
    assert update_chunk_index(conn, embedder.name, exact_up_to=0)
    assert not update_chunk_index(conn, embedder.name, exact_up_to=0)  # already up to date
    for text in ["paged KV cache blocks", "flash memory windowing", "throughput of serving"]:
        query = embedder.embed([text])[0]
        exact = dense_search(conn, embedder.name, query, 5)
        indexed = dense_search(conn, embedder.name, query, 5, exact_up_to=0)
        assert [c for c, _ in indexed][:3] == [c for c, _ in exact][:3]
        paper = _owners(conn, exact[:1]).pop()
        only = dense_search(conn, embedder.name, query, 5, allowed={paper}, exact_up_to=0)
        assert only and _owners(conn, only) == {paper}


def test_a_vector_made_again_reaches_the_scan_and_the_index(
    embedded: Path, embedder: Embedder, tmp_path: Path
) -> None:
    conn = db(copy_of(embedded, tmp_path))
    query = embedder.embed(["zymurgy of quokkas in the outback"])[0]
    for exact_up_to in (None, 0):
        update_chunk_index(conn, embedder.name, exact_up_to=exact_up_to)
        before = dense_search(conn, embedder.name, query, 1, exact_up_to=exact_up_to)
        target = conn.execute("SELECT max(chunk_id) FROM chunk_embeddings").fetchone()[0] - 3
        assert before[0][0] != target
        with conn:  # made again (as a new recipe does): same id, same count, another vector
            conn.execute("DELETE FROM chunk_embeddings WHERE chunk_id = ?", (target,))
            conn.execute(
                "INSERT INTO chunk_embeddings (chunk_id, model, vector) VALUES (?, ?, ?)",
                (target, embedder.name, vector_to_blob(query)),
            )
        assert update_chunk_index(conn, embedder.name, exact_up_to=0)
        after = dense_search(conn, embedder.name, query, 1, exact_up_to=exact_up_to)
        assert after[0][0] == target and after[0][1] > 0.99
        with conn:
            conn.execute("DELETE FROM chunk_embeddings WHERE chunk_id = ?", (target,))
        ensure_chunk_vectors(conn, embedder, _papers(conn))


def test_a_re_extracted_paper_is_replaced_in_the_index_without_a_rebuild(
    embedded: Path, embedder: Embedder, tmp_path: Path
) -> None:
    conn = db(copy_of(embedded, tmp_path))
    conn.execute("PRAGMA foreign_keys = ON")
    # the paper whose chunks come first: new chunk ids then do not reuse its old ones
    first = conn.execute("SELECT paper_id FROM chunks ORDER BY id LIMIT 1").fetchone()[0]
    assert update_chunk_index(conn, embedder.name, exact_up_to=0)
    old = {r[0] for r in conn.execute("SELECT id FROM chunks WHERE paper_id = ?", (first,))}
    with conn:  # the paper's text written again: its chunks (and vectors) go, new ones come
        rows = conn.execute(
            "SELECT ord, page, section, text, n_tokens FROM chunks WHERE paper_id = ?", (first,)
        ).fetchall()
        conn.execute("DELETE FROM chunks WHERE paper_id = ?", (first,))
        conn.executemany(
            "INSERT INTO chunks (paper_id, ord, page, section, text, n_tokens) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(first, *tuple(r)) for r in rows[: len(rows) // 2]],
        )
    ensure_chunk_vectors(conn, embedder, [first])
    index = ChunkIndex(index_path(conn, embedder.name), embedder.name, embedder.dim)
    assert index.load()
    assert index.replace_changed(conn, vector_stamp(conn, embedder.name))
    held = {int(k) for k in index.index.keys}
    stored = {r[0] for r in conn.execute("SELECT chunk_id FROM chunk_embeddings")}
    assert held == stored and not (held & old)
    assert update_chunk_index(conn, embedder.name, exact_up_to=0)
    query = embedder.embed(["loading model weights from flash storage"])[0]
    exact = dense_search(conn, embedder.name, query, 3)
    assert dense_search(conn, embedder.name, query, 3, exact_up_to=0)[0][0] == exact[0][0]
