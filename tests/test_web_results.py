"""The results pages over the web KB plus papers that measure one system against one baseline:
filters combined, plots and their links, disagreements marked on both rows, the comparison
graph, escaping, the static site, and `frontier results --graph --json`."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from helpers import run_cli
from starlette.testclient import TestClient
from web_kb import VLLM, built_kb, copy_kb

from frontier.model import SourceRecord
from frontier.store.curation import save_claims, save_triage
from frontier.store.db import connect, transaction
from frontier.store.papers import save_paper
from frontier.store.runs import finish_run, start_run
from frontier.synthesize.results import current_keys, refresh_result_keys
from frontier.web.app import create_app
from frontier.workspace import open_workspace

FIRST, AGAIN, ELSEWHERE = "2401.10001", "2406.10002", "2409.10003"
SCRIPT_QUOTE = "FlexServe reaches 3.0× the throughput of vLLM <script>alert(5)</script> on A100"
PAPERS = [
    (FIRST, "FlexServe: Fast LLM Serving on One GPU", dt.date(2024, 1, 15)),
    (AGAIN, "Reproducing FlexServe on Commodity Clusters", dt.date(2024, 6, 3)),
    (ELSEWHERE, "FlexServe at Scale", dt.date(2024, 9, 20)),
]


def _claim(value_text: str, quote: str, **fields: Any) -> SimpleNamespace:
    """A verified throughput claim against vLLM, typed as curation stores one."""
    defaults: dict[str, Any] = {
        "metric": "throughput",
        "value": None,
        "value_text": value_text,
        "unit": "×",
        "direction": "higher",
        "baseline": "vLLM",
        "model_name": "Llama 2 7B",
        "hardware": "A100",
        "condition": "",
        "page": 5,
        "quote": quote,
        "verified": True,
        "verify_note": "",
        "model": "code",
        "prompt_version": "claim@1",
        "headline": True,
        "setup_page": None,
        "setup_fields": "",
        "section": "",
    }
    return SimpleNamespace(**defaults | fields)


CLAIMS = {
    FIRST: [_claim("3.0×", SCRIPT_QUOTE)],
    # the same system, baseline, model and hardware: 1.2× is 2.5 times below 3.0×
    AGAIN: [
        _claim(
            "1.2×",
            "FlexServe gives 1.2× the throughput of the vLLM v0.2 baseline",
            baseline="the vLLM v0.2 baseline",
            model_name="meta-llama/Llama-2-7b-hf",
            hardware="NVIDIA A100 80GB",
        )
    ],
    # another GPU: a different setting, compared with neither
    ELSEWHERE: [_claim("1.1×", "FlexServe is 1.1× faster than vLLM on H100", hardware="H100")],
}


def _add_flexserve(root: Path) -> None:
    """Three papers on one system, triaged into serving, their claims through the store."""
    ws = open_workspace(root)
    with contextlib.closing(connect(ws.db_path)) as conn:
        run_id = start_run(conn, "curate")
        for paper_id, title, published in PAPERS:
            record = SourceRecord(
                source="arxiv",
                source_ref="test",
                arxiv_id=paper_id,
                title=title,
                published=published,
            )
            save_paper(conn, record, None, None)
            row = {"topic": "serving", "stage": "embedding", "reason": "close", "scope_line": ""}
            save_triage(conn, paper_id, [row | {"score": 0.5}], "h", run_id)
            save_claims(conn, paper_id, CLAIMS[paper_id], "h", run_id)
        finish_run(conn, run_id, "ok", {})


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_kb(built_kb(tmp_path_factory), tmp_path_factory.mktemp("results-web") / "kb")
    _add_flexserve(root)
    return root


@pytest.fixture(scope="module", params=["keys read per request", "keys stored"])
def client(
    request: pytest.FixtureRequest, kb: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    """The same pages whether each claim's keys are read when the KB is loaded or stored (as
    `frontier serve`, `curate` and `results` store them): a filtered table then reads only the
    claims it shows."""
    root = copy_kb(kb, tmp_path_factory.mktemp("results-keys") / "kb")
    ws = open_workspace(root)
    with contextlib.closing(connect(ws.db_path)) as conn:
        with transaction(conn):  # `frontier results` in another test may have stored them
            conn.execute("DELETE FROM result_keys")
        if request.param == "keys stored":
            assert refresh_result_keys(conn, ws.settings) > 0
        assert (current_keys(conn, ws.settings) is not None) == (request.param == "keys stored")
    with TestClient(create_app(ws), base_url="http://127.0.0.1") as c:
        yield c


def _rows(html: str) -> dict[str, str]:
    """The results table's rows by claim anchor."""
    return dict(re.findall(r'<tr id="(claim-\d+)"[^>]*>(.*?)</tr>', html, re.S))


def _row_of(html: str, paper_id: str) -> str:
    """The row of the paper's result (other rows may link to it in their marks)."""
    (row,) = [r for r in _rows(html).values() if _paper_of(r) == paper_id]
    return row


def _paper_of(row: str) -> str:
    found = re.search(r'<a class="paper" href="/paper/([^"]+)"', row)
    return found[1] if found else ""


def test_filters_combine_and_name_canonical_systems(client: TestClient) -> None:
    page = client.get(
        "/results", params={"metric": "throughput", "baseline": "VLLM", "hardware": "a100"}
    )
    assert page.status_code == 200
    html = page.text
    rows = _rows(html)
    assert len(rows) == 2 and '<span id="result-count">2</span>' in html
    assert "throughput — vs vLLM" in html
    assert 'option value="throughput" selected' in html and 'value="VLLM"' in html
    # the topic narrows the same table; a topic none of them is in leaves nothing
    serving = client.get("/results", params={"hardware": "A100", "topic": "serving"}).text
    assert f'href="/paper/{FIRST}"' in serving and f'href="/paper/{AGAIN}"' in serving
    models = client.get("/results", params={"hardware": "A100", "topic": "models"}).text
    assert f'href="/paper/{FIRST}"' not in models
    assert "FlexServe" in _row_of(html, AGAIN)  # the system, named from the paper's title
    unknown = client.get("/results", params={"metric": "bandwidth"}).text
    assert "No metric family &#39;bandwidth&#39;" in unknown and not _rows(unknown)
    assert client.get("/results", params={"topic": "nope"}).status_code == 404


def test_two_papers_reporting_different_values_are_both_marked(client: TestClient) -> None:
    html = client.get("/results", params={"baseline": "vLLM"}).text
    first, again = _row_of(html, FIRST), _row_of(html, AGAIN)
    assert "disagrees with" in first and "Reproducing FlexServe on Commodity Clusters" in first
    assert "disagrees with" in again and "FlexServe: Fast LLM Serving on One GPU" in again
    assert "values 2.5x apart" in first and "1.2×" in first and "3.0×" in again
    elsewhere = _row_of(html, ELSEWHERE)
    assert "disagrees with" not in elsewhere  # measured on H100: another setting
    # each mark points at the other row on the page
    first_id = next(k for k, v in _rows(html).items() if v == first)
    assert f'href="#{first_id}"' in again


def test_results_json_names_the_disagreements(kb: Path) -> None:
    result = run_cli("-w", str(kb), "results", "--baseline", "vllm", "--json")
    assert result.code == 0, result.err
    rows = {r["paper"]: r for r in json.loads(result.out)}
    assert [d["paper"] for d in rows[FIRST]["disagrees_with"]] == [AGAIN]
    assert [d["paper"] for d in rows[AGAIN]["disagrees_with"]] == [FIRST]
    assert rows[ELSEWHERE]["disagrees_with"] == []
    assert rows[FIRST]["system"] == "FlexServe" and rows[FIRST]["date"] == "2024-01-15"


def test_plots_mark_each_paper_with_its_value_linking_to_its_quote(client: TestClient) -> None:
    html = client.get("/results", params={"baseline": "vLLM", "metric": "throughput"}).text
    plot = re.search(r'<svg class="chart".*?</svg>', html, re.S)
    assert plot, "a plot of the group"
    marks = re.findall(r'<a class="mark" href="([^"]+)">.*?<text[^>]*>([^<]+)</text>', plot[0])
    assert sorted(label for _href, label in marks) == ["1.1×", "1.2×", "3.0×"]
    assert all(href.startswith("/paper/") for href, _label in marks)


def test_every_quote_link_answers(client: TestClient) -> None:
    for path in ("/results", "/results/graph"):
        html = client.get(path).text
        links = set(re.findall(r'class="(?:quote-link|paper|mark)" href="([^"]+)"', html))
        assert len(links) >= 5, path
        for link in links:
            assert client.get(unescape(link)).status_code == 200, link
    # the vLLM paper's pages are stored: its quote opens its page with the claim marked
    html = client.get("/results", params={"baseline": "Orca"}).text
    link = re.search(rf'class="quote-link" href="(/paper/{VLLM}/page/1\?claim=\d+)"', html)
    assert link, "a quote on a stored page links to that page"
    shown = client.get(unescape(link[1])).text
    assert '<mark id="quote">' in shown


def test_quotes_are_escaped_in_the_table_and_the_plots(client: TestClient) -> None:
    for path in ("/results", "/results/graph", "/results?hardware=a100"):
        html = client.get(path).text
        assert "<script>alert" not in html and "<img src=x" not in html, path
    html = client.get("/results").text
    assert "vLLM &lt;script&gt;alert(5)&lt;/script&gt; on A100" in html


def test_the_graph_shows_who_measures_against_whom(client: TestClient, kb: Path) -> None:
    html = client.get("/results/graph").text
    svg = re.search(r'<svg class="chart".*?</svg>', html, re.S)
    assert svg and '<a class="node"' in svg[0] and 'marker-end="url(#arrow)"' in svg[0]
    nodes = re.findall(r'<a class="node"[^>]*><title>([^:<]+):', svg[0])
    assert nodes[0] == "vLLM"  # the most measured: drawn first, at the top
    assert {"FlexServe", "FasterTransformer", "Orca"} <= set(nodes)
    assert "<td>FlexServe</td><td>vLLM</td><td>throughput</td>" in html
    result = run_cli("-w", str(kb), "results", "--graph", "--json")
    assert result.code == 0, result.err
    graph = json.loads(result.out)
    edge = next(e for e in graph["edges"] if (e["system"], e["baseline"]) == ("FlexServe", "vLLM"))
    assert edge["family"] == "throughput" and edge["count"] == 3
    assert {c["value_text"] for c in edge["claims"]} == {"3.0×", "1.2×", "1.1×"}
    # their pages are not stored: the quote links lead to the papers
    assert {c["quote_link"] for c in edge["claims"]} == {f"/paper/{p}" for p, _t, _d in PAPERS}
    assert all(c["page"] == 5 and c["paper"] for c in edge["claims"])
    # measured against by FlexServe (3) and another paper (1), itself over two baselines (2)
    assert graph["nodes"][0] == {"name": "vLLM", "kind": "both", "claims": 6}
    text = run_cli("-w", str(kb), "results", "--graph")
    assert "FlexServe over vLLM on throughput: " in text.out
    assert run_cli("-w", str(kb), "results", "--graph", "--csv").code == 2


def test_the_static_site_writes_both_pages(kb: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert run_cli("-w", str(kb), "site", str(out)).code == 0
    for name in ("results.html", "results/graph.html"):
        html = (out / name).read_text()
        assert '<svg class="chart"' in html and "<script>alert" not in html, name
        assert "<form" not in html, name
        for href in set(re.findall(r'href="([^"#:]+)"', html)):
            assert (out / Path(name).parent / unescape(href)).resolve().is_file(), (name, href)
    results = (out / "results.html").read_text()
    assert results.count("disagrees with") == 2
