"""Dense search over stored chunk vectors: it sees vectors stored after it first loaded them and
forgets deleted ones (the change counter, not a count per search), and the HNSW index path
(thresholds passed as 0 so a small KB takes it) agrees with the exact scan."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from helpers import corpus, db, run_cli

from frontier.curate.vectors import ensure_chunk_vectors
from frontier.llm.embeddings import Embedder, load_embedder, vector_to_blob
from frontier.store.dense import dense_search, update_chunk_index

PDFS = ["vllm-pagedattention.pdf", "llm-in-a-flash.pdf"]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return load_embedder()


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dense") / "kb"
    assert run_cli("init", str(root)).code == 0
    folder = root.parent / "in"
    folder.mkdir()
    for name in PDFS:
        shutil.copy(corpus("pdfs", name), folder / name)
    assert run_cli("-w", str(root), "ingest", str(folder)).code == 0
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
    root = tmp_path / "kb"
    shutil.copytree(ingested, root)
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
    ingested: Path, embedder: Embedder, tmp_path: Path
) -> None:
    root = tmp_path / "kb"
    shutil.copytree(ingested, root)
    conn = db(root)
    ensure_chunk_vectors(conn, embedder, _papers(conn))
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
    ingested: Path, embedder: Embedder, tmp_path: Path
) -> None:
    root = tmp_path / "kb"
    shutil.copytree(ingested, root)
    conn = db(root)
    ensure_chunk_vectors(conn, embedder, _papers(conn))
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
