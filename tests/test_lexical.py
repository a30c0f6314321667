"""The lexical index (tantivy) that serves BM25 on large KBs: built from the chunks and papers,
kept in line through the text log as papers are re-extracted, and ranking like FTS5 on real
papers. Thresholds are passed as 0 so that a small KB takes the large-KB path."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import copy_of, db, ingest_pdfs

from frontier.store import lexical
from frontier.store.search import bm25_chunks, bm25_papers, chunk_frequencies

PDFS = ["vllm-pagedattention.pdf", "llm-in-a-flash.pdf", "yoco.pdf", "sarathi-serve.pdf"]


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = ingest_pdfs(tmp_path_factory.mktemp("lexical") / "kb", PDFS)
    conn = db(root)
    assert lexical.update_index(conn, lexical.CHUNKS, 0)
    assert lexical.update_index(conn, lexical.PAPERS, 0)
    return root


def _paper_of(conn: sqlite3.Connection, chunk_id: int) -> str:
    return str(conn.execute("SELECT paper_id FROM chunks WHERE id = ?", (chunk_id,)).fetchone()[0])


@pytest.mark.parametrize(
    "question",
    [
        "How does paged attention avoid fragmentation of the KV cache?",
        "Loading weights from flash memory with windowing and row-column bundling",
        "chunked prefills and stall-free batching",
        "a decoder-decoder architecture that caches key value pairs once",
    ],
)
def test_index_finds_the_paper_fts5_finds(kb: Path, question: str) -> None:
    conn = db(kb)
    fts = bm25_chunks(conn, question, 5, index_from=10**12)
    indexed = bm25_chunks(conn, question, 5, index_from=0)
    assert fts and indexed
    assert lexical.open_index(conn, lexical.CHUNKS) is not None  # the index really answered
    assert _paper_of(conn, indexed[0][0]) == _paper_of(conn, fts[0][0])
    shared = {c for c, _ in fts} & {c for c, _ in indexed}
    assert len(shared) >= 2  # another stemmer and IDF, so not the same list, but the same pages


def test_index_and_fts5_count_the_same_chunks_per_word(kb: Path) -> None:
    conn = db(kb)
    words = ["attention", "memory", "flash", "prefill", "fragmentation", "zzzunseen"]
    total_fts, fts = chunk_frequencies(conn, words, index_from=10**12)
    total_index, indexed = chunk_frequencies(conn, words, index_from=0)
    assert total_fts == total_index == conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert fts["zzzunseen"] == indexed["zzzunseen"] == 0
    assert fts["attention"] > fts["fragmentation"] > 0
    for word in words:  # two stemmers (Porter, Snowball) may group a few words differently
        assert abs(fts[word] - indexed[word]) <= max(2, fts[word] // 10), word


def test_allowed_papers_filter_the_indexed_hits(kb: Path) -> None:
    conn = db(kb)
    paper = _paper_of(conn, bm25_chunks(conn, "flash memory", 1, index_from=0)[0][0])
    hits = bm25_chunks(conn, "memory", 10, allowed={paper}, index_from=0)
    assert hits and {_paper_of(conn, c) for c, _ in hits} == {paper}


def test_paper_index_ranks_by_title_and_abstract(kb: Path) -> None:
    conn = db(kb)
    title = conn.execute("SELECT id, title FROM papers WHERE title LIKE '%Flash%'").fetchone()
    found = bm25_papers(conn, title["title"], 3, index_from=0)
    assert found[0][0] == title["id"]


def test_rewritten_chunks_reach_the_index_through_the_log(kb: Path, tmp_path: Path) -> None:
    copy = copy_of(kb, tmp_path)
    conn = db(copy)
    paper = conn.execute("SELECT id FROM papers ORDER BY id LIMIT 1").fetchone()[0]
    old_ids = {r[0] for r in conn.execute("SELECT id FROM chunks WHERE paper_id = ?", (paper,))}
    with conn:  # a re-extraction: the paper's chunks replaced by one new chunk
        conn.execute("DELETE FROM chunks WHERE paper_id = ?", (paper,))
        conn.execute(
            "INSERT INTO chunks (paper_id, ord, page, section, text, n_tokens) "
            "VALUES (?, 0, 1, 'x', 'zymurgical quokka benchmarks of serving', 6)",
            (paper,),
        )
    new_id = conn.execute("SELECT id FROM chunks WHERE paper_id = ?", (paper,)).fetchone()[0]
    hits = bm25_chunks(conn, "zymurgical quokka", 5, index_from=0)
    assert [c for c, _ in hits] == [new_id]
    everything = bm25_chunks(conn, "memory cache attention serving model", 500, index_from=0)
    assert not ({c for c, _ in everything} & (old_ids - {new_id}))
    applied = lexical.applied_position(lexical.index_dir(conn, lexical.CHUNKS))  # type: ignore[arg-type]
    assert applied == conn.execute("SELECT max(seq) FROM text_log").fetchone()[0]


def test_log_is_trimmed_to_what_every_index_in_use_applied(kb: Path, tmp_path: Path) -> None:
    copy = copy_of(kb, tmp_path)
    conn = db(copy)
    lexical.update_lexical_indexes(conn, 0, 0)
    assert conn.execute("SELECT count(*) FROM text_log").fetchone()[0] == 0
    with conn:
        conn.execute("UPDATE papers SET title = title || ' revisited' WHERE rowid = 1")
    assert conn.execute("SELECT count(*) FROM text_log").fetchone()[0] == 1
    lexical.update_lexical_indexes(conn, 0, 10**12)  # the papers index is not in use
    assert conn.execute("SELECT count(*) FROM text_log").fetchone()[0] == 0
    with conn:
        conn.execute("UPDATE papers SET title = title || ' again' WHERE rowid = 1")
    assert lexical.update_index(conn, lexical.CHUNKS, 0)  # nothing of its own: only moves on
    papers_dir = lexical.index_dir(conn, lexical.PAPERS)
    assert papers_dir is not None
    before = lexical.applied_position(papers_dir)
    lexical.update_lexical_indexes(conn, 0, 0)
    assert lexical.applied_position(papers_dir) > before
    assert conn.execute("SELECT count(*) FROM text_log").fetchone()[0] == 0
    title = conn.execute("SELECT id, title FROM papers WHERE rowid = 1").fetchone()
    assert bm25_papers(conn, title["title"], 1, index_from=0)[0][0] == title["id"]


def test_an_index_never_completed_is_not_used_and_is_rebuilt(kb: Path, tmp_path: Path) -> None:
    copy = copy_of(kb, tmp_path)
    conn = db(copy)
    directory = lexical.index_dir(conn, lexical.CHUNKS)
    assert directory is not None
    (directory / "frontier-log.json").unlink()  # as if killed while it was being built
    assert lexical.open_index(conn, lexical.CHUNKS) is None
    fts = bm25_chunks(conn, "paged attention", 3, index_from=0)  # FTS5 answers meanwhile
    assert fts == bm25_chunks(conn, "paged attention", 3, index_from=10**12)
    assert lexical.update_index(conn, lexical.CHUNKS, 0)
    assert lexical.open_index(conn, lexical.CHUNKS) is not None


def test_an_index_another_process_is_writing_is_left_to_it(kb: Path, tmp_path: Path) -> None:
    copy = copy_of(kb, tmp_path)
    conn = db(copy)
    directory = lexical.index_dir(conn, lexical.CHUNKS)
    assert directory is not None
    holder = lexical.LexicalIndex(directory, lexical.CHUNKS).index.writer(heap_size=15_000_000)
    with conn:
        conn.execute("DELETE FROM chunks WHERE id = (SELECT max(id) FROM chunks)")
    assert not lexical.update_index(conn, lexical.CHUNKS, 0)  # no error: the holder's job
    fts = bm25_chunks(conn, "paged attention", 3, index_from=10**12)
    assert bm25_chunks(conn, "paged attention", 3, index_from=0) == fts  # FTS5 meanwhile
    holder.rollback()
    del holder
    assert lexical.update_index(conn, lexical.CHUNKS, 0)
    assert lexical.open_index(conn, lexical.CHUNKS) is not None
