"""Claim candidates and verification in code, on the real PDFs: a verified claim is always on
its page; a fabricated value or a quote from another page is never verified."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import corpus, db, run_cli

from frontier.curate.candidates import find_candidates
from frontier.curate.verify import normalize, quote_on_page, value_in_quote, verify_claim
from frontier.store.curation import chunks_of, pages_of


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("claims") / "kb"
    assert run_cli("init", str(root)).code == 0
    assert run_cli("-w", str(root), "ingest", str(corpus("pdfs"))).code == 0
    return root


def test_every_candidate_verifies_on_its_own_page(kb: Path) -> None:
    conn = db(kb)
    papers = [r[0] for r in conn.execute("SELECT id FROM papers")]
    with_eval = {
        r[0]
        for r in conn.execute("SELECT DISTINCT paper_id FROM sections WHERE kind = 'evaluation'")
    }
    covered = set()
    for paper_id in papers:
        pages = dict(pages_of(conn, paper_id))
        for candidate in find_candidates(chunks_of(conn, paper_id), 8):
            assert candidate.page in pages
            # a sentence a page break cuts in two is held to its page and the next one
            page = pages[candidate.page]
            text = f"{page}\n{pages.get(candidate.page + 1, '')}" if candidate.continued else page
            for value in candidate.values:
                ok, note = verify_claim(candidate.sentence, value, text)
                assert ok, (paper_id, candidate.page, value, note, candidate.sentence)
            covered.add(paper_id)
    assert len(with_eval & covered) >= 0.7 * len(with_eval)


def test_fabricated_claims_are_not_verified(kb: Path) -> None:
    conn = db(kb)
    pages = dict(pages_of(conn, "2309.06180"))
    quote = "vLLM improves the throughput of popular LLMs by 2-4× with the same level of latency"
    assert verify_claim(quote, "2-4", pages[1]) == (True, "quote on page, value in quote")
    assert verify_claim(quote, "24", pages[1])[0] is False  # a value the quote does not hold
    assert verify_claim(quote, "2-4", pages[2]) == (False, "quote not found on the cited page")
    made_up = "vLLM improves the throughput of popular LLMs by 9× with the same level of latency"
    assert verify_claim(made_up, "9", pages[1])[0] is False
    assert verify_claim(quote, "2-4", None)[0] is False


def test_matching_ignores_ligatures_hyphenation_and_spacing() -> None:
    page = "We ﬁnd that the through-\nput rises   by 2.5× on A100."
    assert quote_on_page("we find that the throughput rises by 2.5×", page)
    assert normalize("Eﬃcient  Memory") == "efficient memory"
    assert value_in_quote("2.5", "rises by 2.5× on A100")
    assert not value_in_quote("2.5", "rises by 12.5× on A100")
    assert not value_in_quote("5", "rises by 2.5×")
