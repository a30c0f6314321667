"""arXiv source: the real `arxiv` client against the local replay server (no mocks)."""

from __future__ import annotations

import datetime as dt
import json
import socket
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from arxiv_replay import OLD_XML_DIR, RECORDED_JSON_DIR, ArxivReplayServer, require_corpus
from pydantic import ValidationError

from frontier.sources.arxiv_api import (
    ArxivError,
    ArxivQuery,
    build_search_query,
    fetch_arxiv_ids,
    search_arxiv,
)

ATOM = "{http://www.w3.org/2005/Atom}"


def recorded_ids(name: str) -> list[str]:
    """Short ids (with version) of the entries in one recorded JSON exchange, in order."""
    body = json.loads((RECORDED_JSON_DIR / name).read_text(encoding="utf-8"))["body"]
    root = ET.fromstring(body.encode("utf-8"))
    ids = [e.findtext(f"{ATOM}id") or "" for e in root.iter(f"{ATOM}entry")]
    return [i.split("arxiv.org/abs/")[-1] for i in ids]


def short_id(record) -> str:
    return f"{record.arxiv_id}v{record.arxiv_version}"


# build_search_query ---------------------------------------------------------------------


def test_query_terms_only_are_passed_through() -> None:
    assert build_search_query(ArxivQuery(terms="testing")) == "testing"
    assert build_search_query(ArxivQuery(terms='  ti:"KV  cache" ')) == 'ti:"KV cache"'


def test_query_categories_are_ored_and_parenthesised() -> None:
    assert build_search_query(ArxivQuery(categories=["cs.LG"])) == "cat:cs.LG"
    q = ArxivQuery(categories=["cs.LG", "cs.CL", "cs.LG", " "])
    assert build_search_query(q) == "(cat:cs.LG OR cat:cs.CL)"


def test_query_date_window() -> None:
    q = ArxivQuery(since=dt.date(2024, 1, 1), until=dt.date(2024, 3, 31))
    assert build_search_query(q) == "submittedDate:[202401010000 TO 202403312359]"
    since_only = ArxivQuery(since=dt.date(2024, 5, 2))
    assert build_search_query(since_only) == "submittedDate:[202405020000 TO 999912312359]"
    until_only = ArxivQuery(until=dt.date(2001, 2, 3))
    assert build_search_query(until_only) == "submittedDate:[199101010000 TO 200102032359]"


def test_query_combines_everything_with_and() -> None:
    q = ArxivQuery(
        terms='ti:"KV cache" OR abs:quantization',
        categories=["cs.LG", "cs.CL"],
        since=dt.date(2024, 1, 1),
        until=dt.date(2024, 1, 31),
    )
    assert build_search_query(q) == (
        '(ti:"KV cache" OR abs:quantization) AND (cat:cs.LG OR cat:cs.CL) '
        "AND submittedDate:[202401010000 TO 202401312359]"
    )
    assert build_search_query(ArxivQuery(terms="llm", categories=["cs.CL"])) == (
        "llm AND cat:cs.CL"
    )


def test_query_empty_and_inverted_window() -> None:
    assert build_search_query(ArxivQuery()) == ""
    with pytest.raises(ValidationError, match="after until"):
        ArxivQuery(since=dt.date(2024, 2, 1), until=dt.date(2024, 1, 1))


# search_arxiv ------------------------------------------------------------------------------


def test_paged_search_requests_three_pages_in_order(arxiv_server: ArxivReplayServer) -> None:
    settings = arxiv_server.settings(page_size=10)
    records = list(search_arxiv(ArxivQuery(terms="testing", max_results=25), settings))

    queries = arxiv_server.queries()
    assert [(q["start"], q["max_results"]) for q in queries] == [
        ("0", "10"),
        ("10", "10"),
        ("20", "10"),
    ]
    assert all(q["search_query"] == "testing" for q in queries)
    assert all((q["sortBy"], q["sortOrder"]) == ("submittedDate", "descending") for q in queries)
    assert arxiv_server.unmatched == []

    expected = (
        recorded_ids("q_testing_s0_m10_bc5a6c384fe9.json")
        + recorded_ids("q_testing_s10_m10_34e56e15aaac.json")
        + recorded_ids("q_testing_s20_m10_348a237fecab.json")[:5]
    )
    assert len(records) == 25
    assert [short_id(r) for r in records] == expected
    first = records[0]
    assert first.arxiv_id == "2202.12139"
    assert first.source == "arxiv"
    assert first.source_ref == "testing"
    assert first.url == "https://arxiv.org/abs/2202.12139v1"
    assert first.pdf_url == f"{arxiv_server.base_url}/pdf/2202.12139v1"
    assert all(r.title and r.abstract and r.authors and r.published for r in records)
    assert all("\n" not in r.title and "  " not in r.abstract for r in records)


def test_search_empty_result_yields_nothing(arxiv_server: ArxivReplayServer) -> None:
    q = ArxivQuery(terms="no such thing anywhere", max_results=5)
    assert list(search_arxiv(q, arxiv_server.settings())) == []
    assert len(arxiv_server.requests) == 1
    assert arxiv_server.unmatched == arxiv_server.requests


def test_date_window_and_categories_reach_the_server(arxiv_server: ArxivReplayServer) -> None:
    q = ArxivQuery(
        terms='ti:"KV cache"',
        categories=["cs.LG", "cs.CL"],
        since=dt.date(2024, 1, 1),
        until=dt.date(2024, 3, 31),
        max_results=50,
    )
    assert list(search_arxiv(q, arxiv_server.settings(page_size=50))) == []

    (path,) = arxiv_server.requests
    assert path.startswith("/api/query?")
    assert "cat%3Acs.LG+OR+cat%3Acs.CL" in path
    assert "submittedDate%3A%5B202401010000+TO+202403312359%5D" in path
    (sent,) = arxiv_server.queries()
    assert sent["search_query"] == (
        '(ti:"KV cache") AND (cat:cs.LG OR cat:cs.CL) '
        "AND submittedDate:[202401010000 TO 202403312359]"
    )
    assert sent["max_results"] == "50"
    assert sent["id_list"] == ""


def test_search_without_any_criteria_is_an_error(arxiv_server: ArxivReplayServer) -> None:
    with pytest.raises(ArxivError, match="needs terms"):
        list(search_arxiv(ArxivQuery(), arxiv_server.settings()))
    assert arxiv_server.requests == []


def test_2016_feed_layout_search(arxiv_server: ArxivReplayServer) -> None:
    settings = arxiv_server.settings(page_size=10)
    q = ArxivQuery(terms="au:del_maestro AND ti:checkerboard", max_results=10)
    (record,) = search_arxiv(q, settings)
    assert record.arxiv_id == "cond-mat/0603029"
    assert record.arxiv_version == 1
    assert record.title == (
        "From stripe to checkerboard order on the square lattice in the presence "
        "of quenched disorder"
    )
    assert record.published == dt.date(2006, 3, 2)
    assert record.url == "https://arxiv.org/abs/cond-mat/0603029v1"

    many = list(search_arxiv(ArxivQuery(terms="au:del_maestro", max_results=10), settings))
    raw = (OLD_XML_DIR / "search_query_au_del_maestro.xml").read_bytes()
    entries = list(ET.fromstring(raw).iter(f"{ATOM}entry"))
    assert len(many) == len(entries) == 10
    assert [short_id(r) for r in many] == [
        (e.findtext(f"{ATOM}id") or "").split("/abs/")[-1] for e in entries
    ]
    assert many[0].title == "A Luttinger Liquid Core Inside Helium-4 Filled Nanopores"
    assert len(arxiv_server.requests) == 2


# fetch_arxiv_ids -----------------------------------------------------------------------------


def test_fetch_new_style_id(arxiv_server: ArxivReplayServer) -> None:
    (record,) = fetch_arxiv_ids(["1605.08386"], arxiv_server.settings())
    assert record.arxiv_id == "1605.08386"
    assert record.arxiv_version == 1
    assert record.title == "Heat-bath random walks with Markov bases"
    assert record.authors == ["Caprice Stanley", "Tobias Windisch"]
    assert record.published == dt.date(2016, 5, 26)
    assert record.source_ref == "id_list=1605.08386"
    (sent,) = arxiv_server.queries()
    assert (sent["id_list"], sent["search_query"], sent["start"]) == ("1605.08386", "", "0")


def test_fetch_old_style_id(arxiv_server: ArxivReplayServer) -> None:
    (record,) = fetch_arxiv_ids(["astro-ph/0601001"], arxiv_server.settings())
    assert record.arxiv_id == "astro-ph/0601001"
    assert record.arxiv_version == 1
    assert record.title.startswith("Frequency of Hot Jupiters and Very Hot Jupiters")
    assert record.authors == [
        "Andrew Gould",
        "Susan Dorsher",
        "B. Scott Gaudi",
        "Andrzej Udalski",
    ]
    assert record.published == dt.date(2006, 1, 2)
    assert record.categories == ["astro-ph"]
    assert record.pdf_url == f"{arxiv_server.base_url}/pdf/astro-ph/0601001v1"
    assert record.url == "https://arxiv.org/abs/astro-ph/0601001v1"
    assert "V_max<17.5" in record.abstract


@pytest.mark.parametrize(
    "given",
    ["hep-ex/0406020v1", "arXiv:hep-ex/0406020v1", "https://arxiv.org/abs/hep-ex/0406020v1"],
)
def test_fetch_versioned_old_style_id(arxiv_server: ArxivReplayServer, given: str) -> None:
    (record,) = fetch_arxiv_ids([given], arxiv_server.settings())
    assert (record.arxiv_id, record.arxiv_version) == ("hep-ex/0406020", 1)
    assert record.title == "Sparticle Reconstruction at LHC"
    assert record.authors == ["Alessia Tricomi"]
    assert record.categories == ["hep-ex"]
    assert record.published == record.updated == dt.date(2004, 6, 7)
    assert arxiv_server.queries()[0]["id_list"] == "hep-ex/0406020v1"


def test_fetch_several_ids_and_odd_titles(arxiv_server: ArxivReplayServer) -> None:
    settings = arxiv_server.settings()
    (quant,) = fetch_arxiv_ids(["quant-ph/0201082v1"], settings)
    assert (quant.arxiv_id, quant.arxiv_version) == ("quant-ph/0201082", 1)
    (zero,) = fetch_arxiv_ids(["2104.12255v1"], settings)
    assert zero.title == "0"  # a real paper title, not a missing one
    assert zero.authors == ["Quan Thoi Minh Nguyen"]
    # 0808.05394 does not exist: the API answers only the other id.
    found = fetch_arxiv_ids(["0808.05394", "1707.08567"], settings)
    assert [short_id(r) for r in found] == ["1707.08567v1"]
    assert found[0].title.startswith("Proceedings of Workshop AEW10")
    body = json.loads(
        (RECORDED_JSON_DIR / "id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.json").read_text()
    )["body"]
    names = [n.text for n in ET.fromstring(body.encode()).iter(f"{ATOM}name")]
    assert found[0].authors == names
    assert len(names) == 34


def test_fetch_unknown_id_is_empty(arxiv_server: ArxivReplayServer) -> None:
    assert fetch_arxiv_ids(["0000.0000"], arxiv_server.settings()) == []
    assert fetch_arxiv_ids([], arxiv_server.settings()) == []
    assert len(arxiv_server.requests) == 1
    assert arxiv_server.unmatched == []


def test_fetch_2016_feed_layout(arxiv_server: ArxivReplayServer) -> None:
    (record,) = fetch_arxiv_ids(["1111.2011v2"], arxiv_server.settings(page_size=10))
    assert (record.arxiv_id, record.arxiv_version) == ("1111.2011", 2)
    assert record.title == (
        "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit"
    )
    assert record.authors == ["James M. Murray", "Adrian Del Maestro", "Zlatko Tesanovic"]
    assert record.published == dt.date(2011, 11, 8)
    assert record.updated == dt.date(2012, 4, 2)
    assert record.doi == "10.1103/physrevb.85.115117"
    assert record.categories == ["cond-mat.str-el", "cond-mat.stat-mech"]
    assert record.url == "https://arxiv.org/abs/1111.2011v2"
    assert record.abstract.startswith("Theoretical description of anisotropic systems")
    assert record.abstract.endswith("describing a single node.")


# errors and retries --------------------------------------------------------------------------


def test_http_400_error_feed_names_the_api_reason(arxiv_server: ArxivReplayServer) -> None:
    with pytest.raises(ArxivError) as info:
        fetch_arxiv_ids(["abc"], arxiv_server.settings(num_retries=3))
    message = str(info.value)
    assert "incorrect id format for abc" in message
    assert "HTTP 400" in message
    assert "\n" not in message
    assert len(arxiv_server.requests) == 1  # a 4xx is not retried


def test_503_once_then_success(arxiv_server: ArxivReplayServer) -> None:
    arxiv_server.fail_next(1, status=503)
    (record,) = fetch_arxiv_ids(["1605.08386"], arxiv_server.settings(num_retries=2))
    assert record.arxiv_id == "1605.08386"
    assert len(arxiv_server.requests) == 2
    assert arxiv_server.requests[0] == arxiv_server.requests[1]


def test_503_mid_pagination_is_retried(arxiv_server: ArxivReplayServer) -> None:
    settings = arxiv_server.settings(page_size=10, num_retries=1)
    first = list(search_arxiv(ArxivQuery(terms="testing", max_results=10), settings))
    arxiv_server.requests.clear()
    pages = search_arxiv(ArxivQuery(terms="testing", max_results=20), settings)
    got = [next(pages) for _ in range(10)]
    arxiv_server.fail_next(1, status=502)
    got += list(pages)
    assert got[:10] == first
    assert [short_id(r) for r in got[10:]] == recorded_ids("q_testing_s10_m10_34e56e15aaac.json")
    assert [q["start"] for q in arxiv_server.queries()] == ["0", "10", "10"]


def test_persistent_5xx_gives_up_with_arxiv_error(arxiv_server: ArxivReplayServer) -> None:
    arxiv_server.fail_next(10, status=503)
    with pytest.raises(ArxivError, match=r"HTTP 503 after 3 attempt"):
        fetch_arxiv_ids(["1605.08386"], arxiv_server.settings(num_retries=2))
    assert len(arxiv_server.requests) == 3


def test_non_feed_answer_is_an_error(arxiv_server: ArxivReplayServer) -> None:
    arxiv_server.add_response(b"<html>maintenance</html>", search_query="x", max_results=100)
    with pytest.raises(ArxivError, match="no Atom feed"):
        list(search_arxiv(ArxivQuery(terms="x"), arxiv_server.settings()))


def test_unreachable_api_is_an_arxiv_error(arxiv_server: ArxivReplayServer) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = arxiv_server.settings(api_url=f"http://127.0.0.1:{port}/api/query", num_retries=1)
    with pytest.raises(ArxivError, match="could not reach the arXiv API"):
        fetch_arxiv_ids(["1605.08386"], settings)


def test_ids_with_separators_are_rejected_locally(arxiv_server: ArxivReplayServer) -> None:
    with pytest.raises(ArxivError, match="not an arXiv id"):
        fetch_arxiv_ids(["1605.08386,1707.08567"], arxiv_server.settings())
    assert arxiv_server.requests == []


# the replay server itself --------------------------------------------------------------------


def test_replay_serves_pdfs(arxiv_server: ArxivReplayServer, tmp_path: Path) -> None:
    import requests

    (tmp_path / "1111.2011v2.pdf").write_bytes(b"%PDF-1.4 test\n")
    arxiv_server.serve_pdfs(tmp_path)
    ok = requests.get(arxiv_server.pdf_url_template.format(id="1111.2011v2"), timeout=5)
    assert ok.status_code == 200
    assert ok.content.startswith(b"%PDF")
    missing = requests.get(f"{arxiv_server.base_url}/pdf/..%2Fsecret", timeout=5)
    assert missing.status_code == 404


def test_politeness_delay_is_honoured(arxiv_server: ArxivReplayServer) -> None:
    settings = arxiv_server.settings(page_size=10, delay_seconds=0.3)
    started = time.monotonic()
    records = list(search_arxiv(ArxivQuery(terms="testing", max_results=20), settings))
    assert len(records) == 20
    assert time.monotonic() - started >= 0.3
    assert len(arxiv_server.requests) == 2


def test_missing_corpus_fails_loudly(tmp_path: Path) -> None:
    with pytest.raises(pytest.fail.Exception, match="corpus not found"):
        require_corpus(tmp_path / "no-corpus-here")
