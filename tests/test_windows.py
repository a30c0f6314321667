"""BM25 over overlapping sentence windows of candidate pages: every sentence is covered, the
counts are those of the index's terms, and on real papers the page holding a passage ranks
first even when the passage straddles two chunks."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from helpers import db, ingest_pdfs

from frontier.synthesize.retrieve import Fusion, Retriever
from frontier.synthesize.windows import (
    SENTENCES,
    STRIDE,
    page_windows,
    rank_pages,
    sentence_spans,
    term_weights,
)


@pytest.mark.parametrize("count", [0, 1, SENTENCES, SENTENCES + 1, 2 * SENTENCES + 5, 61])
def test_windows_cover_every_sentence_and_overlap(count: int) -> None:
    spans = sentence_spans(count)
    assert sorted({i for span in spans for i in span}) == list(range(count))
    assert all(len(span) <= SENTENCES for span in spans)
    assert [span.start for span in spans] == [STRIDE * i for i in range(len(spans))]
    if count > SENTENCES:  # neighbours share STRIDE sentences, so no passage is cut everywhere
        assert all(a.stop - b.start == SENTENCES - STRIDE for a, b in itertools.pairwise(spans))


def test_window_counts_are_stemmed_terms_and_lengths_are_words() -> None:
    sentences = [f"Sentence {i} says nothing much." for i in range(SENTENCES + STRIDE)]
    sentences[STRIDE + 1] = "The schedulers were scheduling decode batches."
    windows = page_windows(" ".join(sentences), {"schedul", "decod"})
    assert len(windows) == 2
    assert windows[0].counts == windows[1].counts == {"schedul": 2, "decod": 1}
    assert windows[0].length == 5 * (SENTENCES - 1) + 6


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingest_pdfs(tmp_path_factory.mktemp("windows") / "kb", ["distserve.pdf", "gptq.pdf"])


def _straddling_passage(kb: Path) -> tuple[str, int, str]:
    """(paper, page, text) of the end of one chunk and the start of the next on the same page."""
    conn = db(kb)
    rows = conn.execute(
        "SELECT paper_id, page, text FROM chunks WHERE page IS NOT NULL ORDER BY paper_id, id"
    ).fetchall()
    for (paper, page, first), (paper2, page2, second) in itertools.pairwise(rows):
        if (paper, page) == (paper2, page2) and len(first) > 400 and len(second) > 400:
            return paper, page, " ".join([*first.split()[-25:], *second.split()[:25]])
    raise AssertionError("no page with two chunks")


def test_the_page_holding_a_straddling_passage_ranks_first(kb: Path) -> None:
    paper, page, passage = _straddling_passage(kb)
    conn = db(kb)
    pages = [tuple(row) for row in conn.execute("SELECT paper_id, page FROM pages")]
    assert len(pages) > 20
    ranked = rank_pages(conn, passage, pages)  # type: ignore[arg-type]
    assert ranked[0] == (paper, page)
    assert set(ranked) <= set(pages)


def test_rare_words_weigh_more_than_the_field_s_common_ones(kb: Path) -> None:
    weights = term_weights(db(kb), "goodput of disaggregated prefill on the GPU model")
    assert weights["goodput"] > weights["gpu"] > 0
    assert weights["model"] < weights["disaggreg"]
    assert rank_pages(db(kb), "zzzunseen qqqnothing", [("x", 1)]) == []


def test_hybrid_retrieval_uses_the_window_ranks(kb: Path) -> None:
    paper, page, passage = _straddling_passage(kb)
    top = Retriever(db(kb)).retrieve(passage, 5)
    assert (top[0].paper_id, top[0].page) == (paper, page)
    assert top[0].ranks["window"] == 1
    plain = Retriever(db(kb), fusion=Fusion(window=0)).retrieve(passage, 5)
    assert all("window" not in p.ranks for p in plain)
