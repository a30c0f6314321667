"""The scale benchmark's synthetic KB stays consistent with the schema and with curate: on a fresh
one, `frontier curate` has nothing to do (no model call, no row changed) and search finds pages."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from faults.pipeline import model_env
from faults.schema_model import answer
from helpers import copy_of, db, run_cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from synthetic_kb import build_kb

# what curate writes; runs and the usage ledger record the run itself
_CONTENT = (
    "papers",
    "chunks",
    "pages",
    "chunk_embeddings",
    "paper_embeddings",
    "triage",
    "claims",
    "relations",
    "entries",
    "curate_state",
    "gaps",
    "conflicts",
    "conflict_claims",
)


def _content(conn: sqlite3.Connection) -> dict[str, list[tuple]]:
    return {
        table: [tuple(row) for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2")]
        for table in _CONTENT
    }


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synthetic") / "kb"
    build_kb(root, papers=200, chunks=2_000, quiet=True)
    return root


def test_generated_kb_has_the_asked_shape(kb: Path) -> None:
    conn = db(kb)
    counts = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in _CONTENT}
    assert counts["papers"] == 200
    assert counts["chunks"] == 2_000
    fts = conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'cache'")
    assert fts.fetchone()[0] > 0
    assert 0 < counts["chunk_embeddings"] <= counts["chunks"]
    assert counts["entries"] > 0 and counts["claims"] > 0
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_curate_on_a_generated_kb_is_a_no_op(kb: Path) -> None:
    before = _content(db(kb))
    result = run_cli("-w", str(kb), "curate", "--json")
    assert result.code == 0, result.err
    counts = result.json()["counts"]  # type: ignore[index]
    assert counts["llm calls"] == 0
    assert counts["chunks embedded"] == 0
    conn = db(kb)
    assert conn.execute("SELECT count(*) FROM llm_calls").fetchone()[0] == 0
    assert _content(conn) == before


def test_search_finds_generated_pages(kb: Path) -> None:
    result = run_cli("-w", str(kb), "search", "paged attention cache memory", "--json")
    assert result.code == 0, result.err
    hits = result.json()
    assert isinstance(hits, list) and hits
    assert all(hit["page"] for hit in hits)


def _states(conn: sqlite3.Connection) -> dict[tuple[str, str], tuple[str, str]]:
    rows = conn.execute("SELECT paper_id, step, input_hash, quick_key FROM curate_state")
    return {(r[0], r[1]): (r[2], r[3]) for r in rows}


def test_a_kb_without_quick_keys_gets_them_without_redoing_anything(
    kb: Path, tmp_path: Path
) -> None:
    copy = copy_of(kb, tmp_path)
    conn = db(copy)
    before = _states(conn)
    with conn:
        conn.execute("UPDATE curate_state SET quick_key = ''")
    result = run_cli("-w", str(copy), "curate", "--json")
    assert result.code == 0, result.err
    assert result.json()["counts"]["llm calls"] == 0  # type: ignore[index]
    after = _states(db(copy))
    # the input hashes, computed again from the text, still match; only the quick keys come back
    assert {k: v[0] for k, v in after.items()} == {k: v[0] for k, v in before.items()}
    assert after == before


def test_a_paper_whose_text_changed_is_curated_again_and_no_other(kb: Path, tmp_path: Path) -> None:
    copy = copy_of(kb, tmp_path)
    conn = db(copy)
    paper_id = conn.execute(
        "SELECT paper_id FROM claims GROUP BY paper_id ORDER BY paper_id LIMIT 1"
    ).fetchone()[0]
    before = _states(conn)
    with conn:  # a re-extraction that lost the last chunk
        conn.execute(
            "DELETE FROM chunks WHERE paper_id = ? AND ord = "
            "(SELECT max(ord) FROM chunks WHERE paper_id = ?)",
            (paper_id, paper_id),
        )
    with FakeOpenAI(answer) as server:
        result = run_cli("-w", str(copy), "curate", "--json", env=model_env(server.url))
    assert result.code == 0, result.err
    after = _states(db(copy))
    changed = {key for key in before if before[key] != after.get(key)}
    assert changed and {pid for pid, _ in changed} == {paper_id}
    assert after[(paper_id, "claims")][0] != before[(paper_id, "claims")][0]


def test_a_new_chunk_vector_recipe_reembeds_every_chunk_once(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    # a few papers are enough: every chunk is embedded again, whatever their number; one of the
    # eight is out of the field, so its chunks have no vector to redo
    build_kb(root, papers=8, chunks=48, quiet=True)
    conn = db(root)
    vectors = conn.execute("SELECT count(*) FROM chunk_embeddings").fetchone()[0]
    assert 0 < vectors < 48
    with conn:  # as a KB whose vectors an older recipe made
        conn.execute(
            "INSERT OR REPLACE INTO chunk_vector_recipes (model, recipe) "
            "SELECT DISTINCT model, 'first-window' FROM chunk_embeddings"
        )
    first = run_cli("-w", str(root), "curate", "--json")
    assert first.code == 0, first.err
    assert first.json()["counts"]["chunks embedded"] == vectors  # type: ignore[index]
    assert first.json()["counts"]["llm calls"] == 0  # type: ignore[index]
    again = run_cli("-w", str(root), "curate", "--json")
    assert again.json()["counts"]["chunks embedded"] == 0  # type: ignore[index]
