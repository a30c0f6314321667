"""`frontier add <arXiv id>` and `frontier discover` end to end, against the replayed arXiv API."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from arxiv_replay import RECORDED_JSON_DIR, ArxivReplayServer
from helpers import corpus, db, run_cli


def arxiv_env(server: ArxivReplayServer, page_size: int = 100) -> dict[str, str]:
    return {
        "FRONTIER_ARXIV__API_URL": server.api_url,
        "FRONTIER_ARXIV__PDF_URL_TEMPLATE": server.pdf_url_template,
        "FRONTIER_ARXIV__DELAY_SECONDS": "0",
        "FRONTIER_ARXIV__PAGE_SIZE": str(page_size),
        "FRONTIER_INGEST__DOWNLOAD_RETRIES": "1",
    }


def test_add_arxiv_id_stores_metadata_and_full_text(
    workspace: Path, arxiv_server: ArxivReplayServer
) -> None:
    arxiv_server.add_pdf("1111.2011v2", corpus("pdfs", "arxivpy-fixture-1111.2011v2.pdf"))
    env = arxiv_env(arxiv_server, page_size=10)
    result = run_cli("-w", str(workspace), "add", "1111.2011v2", env=env)
    assert result.code == 0, result.out + result.err
    paper = db(workspace).execute("SELECT * FROM papers WHERE id = '1111.2011'").fetchone()
    assert paper["title"].startswith("Quantum Criticality for Extended Nodes on a Bethe Lattice")
    assert paper["arxiv_version"] == 2 and paper["status"] == "fulltext" and paper["n_pages"] == 8
    assert "Del Maestro" in paper["authors"]
    assert "/pdf/1111.2011v2" in arxiv_server.requests

    again = run_cli(
        "-w",
        str(workspace),
        "add",
        str(corpus("pdfs", "arxivpy-fixture-1111.2011v2.pdf")),
        "--json",
    )
    assert again.code == 0
    (item,) = again.json()["items"]
    assert item["outcome"] == "duplicate" and item["paper_id"] == "1111.2011"


def test_add_unknown_and_malformed_ids(workspace: Path, arxiv_server: ArxivReplayServer) -> None:
    env = arxiv_env(arxiv_server)
    missing = run_cli("-w", str(workspace), "add", "0000.0000", "--json", env=env)
    assert missing.code == 2 and "no paper" in missing.json()["items"][0]["message"]
    bogus = run_cli("-w", str(workspace), "add", "not-an-id", "--json", env=env)
    assert bogus.code == 2 and "Traceback" not in bogus.err


def test_pdf_download_failure_keeps_metadata_and_reports(
    workspace: Path, arxiv_server: ArxivReplayServer
) -> None:
    env = arxiv_env(arxiv_server)
    result = run_cli("-w", str(workspace), "add", "1605.08386", "--json", env=env)
    outcomes = {item["outcome"] for item in result.json()["items"]}
    assert outcomes == {"stored", "failed"} and result.code == 1
    paper = (
        db(workspace).execute("SELECT status, title FROM papers WHERE id = '1605.08386'").fetchone()
    )
    assert paper["status"] == "metadata" and paper["title"]


def test_discover_queries_each_topic_window_and_stores_records(
    workspace: Path, arxiv_server: ArxivReplayServer
) -> None:
    env = arxiv_env(arxiv_server, page_size=10)
    today = dt.date.today()
    first = run_cli(
        "-w",
        str(workspace),
        "discover",
        "--topic",
        "serving",
        "--days",
        "7",
        "--max",
        "10",
        "--metadata-only",
        "--json",
        env=env,
    )
    assert first.code == 0, first.err
    (query,) = arxiv_server.queries()
    since = (today - dt.timedelta(days=7)).strftime("%Y%m%d")
    assert f"submittedDate:[{since}0000 TO {today:%Y%m%d}2359]" in query["search_query"]
    assert "cat:cs.DC" in query["search_query"] and query["sortBy"] == "submittedDate"
    assert query["sortOrder"] == "descending"

    body = (RECORDED_JSON_DIR / "q_testing_s0_m10_bc5a6c384fe9.json").read_text()
    arxiv_server.add_response(
        json.loads(body)["body"].encode(),
        search_query=query["search_query"],
        start=0,
        max_results=10,
    )
    second = run_cli(
        "-w",
        str(workspace),
        "discover",
        "--topic",
        "serving",
        "--days",
        "7",
        "--max",
        "10",
        "--metadata-only",
        "--json",
        env=env,
    )
    assert second.code == 0, second.err
    assert second.json()["counts"] == {"stored": 10}
    stored = (
        db(workspace).execute("SELECT COUNT(*) FROM papers WHERE source = 'arxiv'").fetchone()[0]
    )
    assert stored == 10
    third = run_cli(
        "-w",
        str(workspace),
        "discover",
        "--topic",
        "serving",
        "--days",
        "7",
        "--max",
        "10",
        "--metadata-only",
        "--json",
        env=env,
    )
    assert third.json()["counts"] == {"duplicate": 10}


def test_discover_reports_api_failure_without_traceback(
    workspace: Path, arxiv_server: ArxivReplayServer
) -> None:
    env = {**arxiv_env(arxiv_server), "FRONTIER_ARXIV__NUM_RETRIES": "1"}
    arxiv_server.fail_next(10, status=503)
    result = run_cli(
        "-w", str(workspace), "discover", "--topic", "hardware", "--metadata-only", env=env
    )
    assert result.code == 1
    assert "503" in result.out and "Traceback" not in result.err
