"""`frontier demo`: a workspace from the packaged sample corpus, offline, with counts printed."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

from helpers import run_cli


def sample_records() -> list[dict[str, object]]:
    text = resources.files("frontier.data").joinpath("sample_papers.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_sample_corpus_is_arxiv_metadata_of_the_field() -> None:
    records = sample_records()
    assert 30 <= len(records) <= 40
    for record in records:
        assert set(record) >= {"title", "authors", "date", "categories", "abstract"}
        assert len(str(record["abstract"])) >= 300 and record["authors"]
    ids = [r["id"] for r in records if "id" in r]
    assert len(ids) == len(set(ids)) >= 30


def test_demo_builds_a_searchable_workspace(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    result = run_cli("demo", str(target), "--no-curate", env={"HTTPS_PROXY": "http://127.0.0.1:9"})
    assert result.code == 0, result.out + result.err
    assert str(target.resolve()) in result.out
    n = len(sample_records())
    assert f"papers {n}" in result.out
    assert re.search(r"^Stages: ingest \d+\.\d s$", result.out, re.MULTILINE), result.out
    status = run_cli("-w", str(target), "status", "--json").json()
    assert status["counts"]["papers"] == n
    hits = run_cli("-w", str(target), "search", "paged attention KV cache memory", "--json").json()
    assert hits[0]["id"] == "2309.06180"
    again = run_cli("demo", str(target), "--no-curate")
    assert again.code == 0 and "Nothing new was stored" in again.out
