"""All 38 real paper PDFs: stored with pages, sections and chunks, searchable, idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import corpus, db, kb_snapshot, run_cli

# (phrase from the title, file) — searched verbatim, must come back at rank 1
TITLE_PHRASES = [
    ("Efficient Memory Management for Large Language Model Serving", "vllm-pagedattention.pdf"),
    ("Disaggregating Prefill and Decoding for Goodput-optimized", "distserve.pdf"),
    ("Activation-aware Weight Quantization", "awq.pdf"),
    ("Fast and Memory-Efficient Exact Attention with IO-Awareness", "flashattention.pdf"),
    ("Serving Thousands of Concurrent LoRA Adapters", "s-lora.pdf"),
    ("Retrieval-Based Speculative Decoding", "rest-retrieval-speculative.pdf"),
    ("Dynamic Scheduling for Large Language Model Serving", "llumnix.pdf"),
    ("Decoder-Decoder Architectures for Language Models", "yoco.pdf"),
    ("Multi-Tenant LoRA Serving", "punica.pdf"),
    ("Bandwidth-Efficient LLM Inference", "sparq-attention.pdf"),
]


@pytest.fixture(scope="module")
def full_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus") / "kb"
    assert run_cli("init", str(root)).code == 0
    result = run_cli("-w", str(root), "ingest", str(corpus("pdfs")))
    assert result.code == 0, result.out + result.err
    assert "Summary: 38 stored." in result.out
    return root


def test_every_pdf_is_stored_with_pages_sections_and_chunks(full_kb: Path) -> None:
    conn = db(full_kb)
    papers = conn.execute("SELECT * FROM papers").fetchall()
    assert len(papers) == 38
    for paper in papers:
        pid = paper["id"]
        assert paper["status"] == "fulltext"
        pages = conn.execute("SELECT COUNT(*) FROM pages WHERE paper_id = ?", (pid,)).fetchone()[0]
        assert pages == paper["n_pages"] > 0
        kinds = {r[0] for r in conn.execute("SELECT kind FROM sections WHERE paper_id = ?", (pid,))}
        assert {"introduction", "references"} <= kinds, (paper["title"], kinds)
        chunk_pages = [
            r[0] for r in conn.execute("SELECT page FROM chunks WHERE paper_id = ?", (pid,))
        ]
        assert chunk_pages and all(1 <= page <= pages for page in chunk_pages)


def test_chunks_are_sized_and_keep_references_out(full_kb: Path) -> None:
    conn = db(full_kb)
    tokens = [r[0] for r in conn.execute("SELECT n_tokens FROM chunks")]
    assert max(tokens) <= 500
    in_band = sum(1 for t in tokens if 250 <= t <= 500)
    assert in_band / len(tokens) > 0.75
    assert (
        conn.execute("SELECT COUNT(*) FROM chunks WHERE section = 'references'").fetchone()[0] == 0
    )


def test_first_page_gives_title_arxiv_id_and_date(full_kb: Path) -> None:
    conn = db(full_kb)
    vllm = conn.execute("SELECT * FROM papers WHERE id = '2309.06180'").fetchone()
    assert (
        vllm["title"]
        == "Efficient Memory Management for Large Language Model Serving with PagedAttention"
    )
    assert vllm["arxiv_version"] == 1
    assert vllm["published"] == "2023-09-12"
    orca = conn.execute("SELECT * FROM papers WHERE title LIKE 'Orca:%'").fetchone()
    assert (
        orca["title"]
        == "Orca: A Distributed Serving System for Transformer-Based Generative Models"
    )
    assert orca["arxiv_id"] is None  # the camera-ready version carries no arXiv stamp


def test_pages_are_physical_and_cleaned(full_kb: Path) -> None:
    conn = db(full_kb)
    page4 = conn.execute(
        "SELECT text FROM pages WHERE paper_id = '2309.06180' AND page = 4"
    ).fetchone()[0]
    assert "\ufffe" not in page4
    assert "reserving this space for the entire request" in page4  # soft hyphen joined
    assert not page4.rstrip().endswith("\n4")  # page number dropped


@pytest.mark.parametrize(("phrase", "filename"), TITLE_PHRASES)
def test_search_finds_paper_by_title_phrase_at_rank_one(
    full_kb: Path, phrase: str, filename: str
) -> None:
    result = run_cli("-w", str(full_kb), "search", phrase, "--json", "--limit", "5")
    assert result.code == 0, result.err
    hits = result.json()
    assert isinstance(hits, list) and hits
    assert set(hits[0]) >= {"id", "title", "page", "snippet", "score"}
    conn = db(full_kb)
    expected = conn.execute(
        "SELECT paper_id FROM paper_sources WHERE source_ref LIKE ?", (f"%{filename}",)
    ).fetchone()[0]
    assert hits[0]["id"] == expected, (phrase, [h["title"] for h in hits])


def test_second_run_stores_nothing_new(full_kb: Path) -> None:
    before = kb_snapshot(full_kb)
    result = run_cli("-w", str(full_kb), "ingest", str(corpus("pdfs")))
    assert result.code == 0
    assert "38 duplicate" in result.out and "Nothing new was stored" in result.out
    assert kb_snapshot(full_kb) == before


def test_status_json_counts(full_kb: Path) -> None:
    status = run_cli("-w", str(full_kb), "status", "--json").json()
    counts = status["counts"]
    assert counts["papers"] == 38 and counts["rejected_files"] == 0
    assert counts["pages"] == sum(r[0] for r in db(full_kb).execute("SELECT n_pages FROM papers"))
    assert counts["chunks"] > 38 * 10
    assert status["runs"][0]["command"] == "ingest"


def test_show_prints_metadata_and_a_page(full_kb: Path) -> None:
    shown = run_cli("-w", str(full_kb), "show", "2309.06180", "--json").json()
    assert shown["n_pages"] == 16 and shown["sections"][0]["kind"] == "abstract"
    page = run_cli("-w", str(full_kb), "show", "2309.06180", "--page", "1")
    assert "PagedAttention" in page.out
    missing = run_cli("-w", str(full_kb), "show", "9999.99999")
    assert missing.code == 1 and "No paper" in missing.out


def test_abstracts_are_found_with_or_without_a_heading(full_kb: Path) -> None:
    conn = db(full_kb)
    with_abstract = conn.execute(
        "SELECT COUNT(*) FROM papers WHERE length(abstract) >= 300"
    ).fetchone()[0]
    assert with_abstract >= 37  # one paper (FP8 vs INT8) prints no abstract at all
    layerskip = conn.execute(
        "SELECT abstract FROM papers WHERE title LIKE 'LayerSkip%'"
    ).fetchone()[0]
    assert layerskip.startswith("We present LayerSkip") and layerskip.endswith(
        "semantic parsing task."
    )
