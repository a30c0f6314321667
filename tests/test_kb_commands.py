"""The KB commands: papers, claims, gaps, conflicts, entities and render, their JSON/CSV and errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
import typer
from helpers import run_cli
from test_vault import HOSTILE_ID, UNVERIFIED_QUOTE, VLLM_QUOTE, copy_workspace, seed_kb
from typer.testing import CliRunner

from frontier.cli import app as APP
from frontier.store.db import connect, transaction

WIRED = "papers" in typer.main.get_command(APP).commands  # type: ignore[attr-defined]


class Kb:
    """Runs KB commands against one workspace, in process."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def __call__(self, *args: str) -> Any:
        result = CliRunner().invoke(APP, ["-w", str(self.root), *args])
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result

    def json(self, *args: str) -> Any:
        result = self(*args, "--json")
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("template") / "ws"
    assert run_cli("init", str(root)).code == 0
    seed_kb(root)
    return root


@pytest.fixture
def kb(template: Path, tmp_path: Path) -> Kb:
    return Kb(copy_workspace(template, tmp_path))


def test_papers_json_lists_topics_and_triage(kb: Kb) -> None:
    papers = {p["id"]: p for p in kb.json("papers")}
    assert len(papers) == 5
    vllm = papers["2309.06180"]
    assert {"id", "title", "abstract", "topics", "triage"} <= set(vllm)
    assert vllm["topics"] == ["serving"] and VLLM_QUOTE in vllm["abstract"]
    assert vllm["triage"] == [
        {
            "topic": "serving",
            "stage": "llm",
            "reason": "pages the KV cache of running requests",
            "scope_line": "KV-cache memory management, paging, eviction and prefix reuse",
        }
    ]
    assert papers["2402.00002"]["topics"] == [] and papers["2402.00002"]["triage"] == []
    out = papers["2401.00001"]
    assert out["topics"] == [] and out["triage"][0]["topic"] == "" and out["out_of_field"]
    assert list(papers)[:2] == [HOSTILE_ID, "2402.00002"]  # newest first


def test_papers_topic_filter_and_table(kb: Kb) -> None:
    ids = [p["id"] for p in kb.json("papers", "--topic", "serving")]
    assert ids == ["2309.06180", "2211.17192"]
    table = kb("papers", "--topic", "hardware")
    assert table.exit_code == 0 and "<script>alert(1)</script>" in table.stdout
    bad = kb("papers", "--topic", "kernels")
    assert bad.exit_code == 1 and "unknown topic 'kernels'" in bad.stderr
    assert "serving, models, inference-economics, hardware" in bad.stderr


def test_claims_are_verified_only_unless_all(kb: Kb) -> None:
    claims = kb.json("claims")
    assert len(claims) == 3 and all(c["verified"] for c in claims)
    assert UNVERIFIED_QUOTE not in json.dumps(claims)
    everything = kb.json("claims", "--all")
    assert len(everything) == 4
    (unverified,) = [c for c in everything if not c["verified"]]
    assert unverified["quote"] == UNVERIFIED_QUOTE and unverified["verify_note"]
    vllm = next(c for c in claims if c["paper"] == "2309.06180")
    assert vllm["metric"] == "throughput" and vllm["value_text"] == "2.0-4.0"
    assert vllm["unit"] == "×" and vllm["baseline"] == "FasterTransformer and Orca"
    assert vllm["page"] == 1 and vllm["quote"] == VLLM_QUOTE
    table = kb("claims", "--all")
    assert table.exit_code == 0 and "UNVERIFIED" in table.stdout and "1 unverified" in table.stdout


def test_claim_filters_match_substrings_in_any_case(kb: Kb) -> None:
    assert [c["metric"] for c in kb.json("claims", "--metric", "THROUGH")] == ["throughput"]
    assert [c["paper"] for c in kb.json("claims", "--model", "t5")] == ["2211.17192"]
    assert [c["paper"] for c in kb.json("claims", "--hardware", "h100")] == [HOSTILE_ID]
    assert [c["metric"] for c in kb.json("claims", "--paper", "2309", "--all")] == [
        "throughput",
        "time to first token",
    ]
    assert kb.json("claims", "--hardware", "a100") == []  # only the unverified claim ran on it
    assert len(kb.json("claims", "--hardware", "a100", "--all")) == 1


def test_claims_csv_has_a_header_and_survives_pipes_and_newlines(kb: Kb) -> None:
    result = kb("claims", "--csv", "--all")
    assert result.exit_code == 0
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == [
        "paper",
        "metric",
        "value",
        "unit",
        "baseline",
        "model",
        "hardware",
        "page",
        "quote",
        "verified",
        "headline",
    ]
    assert len(rows) == 5
    by_metric = {row[1]: row for row in rows[1:]}
    assert by_metric["throughput"][2:5] == ["2.0-4.0", "×", "FasterTransformer and Orca"]
    assert by_metric["time to first token"][9] == "0" and by_metric["throughput"][9] == "1"
    assert by_metric["bandwidth | peak"][8] == "peak HBM3 bandwidth is 3.35 TB/s |\nper GPU"
    both = kb("claims", "--csv", "--json")
    assert both.exit_code == 2 and "--json" in both.stderr


def test_gaps_add_list_close_and_duplicates(kb: Kb) -> None:
    added = kb("gaps", "add", "serving", "KV cache  offload to CXL memory")
    assert added.exit_code == 0 and "Added gap 5 to serving" in added.stdout
    again = kb("gaps", "add", "serving", "kv cache offload to CXL memory")
    assert again.exit_code == 0 and "already" in again.stdout and "nothing added" in again.stdout
    gaps = kb.json("gaps", "list", "--topic", "serving")
    assert [g["id"] for g in gaps] == [1, 2, 3, 5]
    assert gaps[-1] | {"created_at": None} == {
        "id": 5,
        "topic": "serving",
        "text": "KV cache offload to CXL memory",
        "status": "open",
        "source": "manual",
        "created_at": None,
        "closed_at": None,
        "evidence": "",
        "papers": [],
    }
    assert gaps[0]["papers"] == ["2309.06180"]
    closed = kb("gaps", "close", "5")
    assert closed.exit_code == 0 and "open → closed" in closed.stdout
    assert [g["id"] for g in kb.json("gaps", "list", "--status", "closed")] == [4, 5]
    assert kb("gaps", "close", "5").exit_code == 0  # already closed: says so
    missing = kb("gaps", "close", "99")
    assert missing.exit_code == 1 and "no gap 99" in missing.stderr


def test_gaps_accept_and_reject_act_on_proposals_only(kb: Kb) -> None:
    wrong = kb("gaps", "accept", "1")
    assert wrong.exit_code == 0 and "already open" in wrong.stdout
    refused = kb("gaps", "reject", "4")
    assert refused.exit_code == 1 and "gap 4 is closed" in refused.stderr
    assert kb("gaps", "close", "3").exit_code == 1  # a proposal is accepted or rejected
    assert kb("gaps", "accept", "3").exit_code == 0
    assert kb.json("gaps", "list", "--status", "open")[-1]["id"] == 3
    kb("gaps", "add", "models", "distilled drafts for speculative decoding")
    conn = connect(kb.root / ".frontier" / "frontier.db")
    with transaction(conn):
        conn.execute("UPDATE gaps SET status = 'proposed' WHERE id = 5")
    conn.close()
    assert kb("gaps", "reject", "5").exit_code == 0
    assert [g["id"] for g in kb.json("gaps", "list", "--status", "rejected")] == [5]
    bad = kb("gaps", "list", "--status", "maybe")
    assert bad.exit_code == 1 and "unknown status" in bad.stderr


def test_gap_and_conflict_topics_are_checked(kb: Kb) -> None:
    for group in ("gaps", "conflicts"):
        result = kb(group, "add", "kernels", "anything")
        assert result.exit_code == 1 and "unknown topic 'kernels'" in result.stderr
        assert "known topics: serving, models, inference-economics, hardware" in result.stderr
    assert kb("gaps", "add", "serving", "   ").exit_code == 1


def test_conflicts_add_list_close(kb: Kb) -> None:
    added = kb("conflicts", "add", "hardware", "HBM bandwidth figures differ by vendor")
    assert added.exit_code == 0 and "Added conflict 2" in added.stdout
    same = kb("conflicts", "add", "hardware", "HBM bandwidth figures differ by vendor")
    assert "nothing added" in same.stdout
    conflicts = kb.json("conflicts", "list")
    assert [(c["id"], c["topic"], c["status"]) for c in conflicts] == [
        (1, "serving", "open"),
        (2, "hardware", "open"),
    ]
    assert conflicts[0]["papers"] == ["2211.17192"]
    assert kb("conflicts", "close", "2").exit_code == 0
    assert kb.json("conflicts", "list")[1]["status"] == "closed"


def test_entities_count_related_papers(kb: Kb) -> None:
    entities = {e["slug"]: e for e in kb.json("entities")}
    assert entities["vllm"] == {
        "slug": "vllm",
        "name": "vLLM",
        "kind": "method",
        "aliases": ["vLLM", "PagedAttention"],
        "papers": 1,
    }
    assert entities["h100"]["papers"] == 1 and entities["nvidia"]["papers"] == 0
    assert list(entities) == sorted(entities)
    table = kb("entities")
    assert table.exit_code == 0 and "speculative-decoding" in table.stdout


def test_render_command_reports_counts_and_path(kb: Kb) -> None:
    first = kb.json("render")
    assert first["written"] > 10 and first["removed"] == 0
    assert Path(first["kb"]) == kb.root / "kb"
    second = kb.json("render")
    assert second["written"] == 0 and second["unchanged"] == first["written"]
    plain = kb("render")
    assert plain.exit_code == 0 and "0 written" in plain.stdout


def test_every_kb_command_has_help() -> None:
    for args in (
        ["papers"],
        ["claims"],
        ["entities"],
        ["render"],
        ["gaps", "add"],
        ["gaps", "list"],
        ["gaps", "close"],
        ["gaps", "accept"],
        ["gaps", "reject"],
        ["conflicts", "add"],
        ["conflicts", "list"],
    ):
        result = CliRunner().invoke(APP, [*args, "--help"])
        assert result.exit_code == 0 and "Usage" in result.stdout, args


@pytest.mark.skipif(not WIRED, reason="cli.py does not register the KB commands yet")
def test_the_real_cli_runs_the_kb_commands(kb: Kb) -> None:
    papers = run_cli("-w", str(kb.root), "papers", "--json")
    assert papers.code == 0 and len(papers.json()) == 5  # type: ignore[arg-type]
    bad = run_cli("-w", str(kb.root), "gaps", "add", "kernels", "x")
    assert bad.code == 1 and "unknown topic 'kernels'" in bad.err and "Traceback" not in bad.err
    rendered = run_cli("-w", str(kb.root), "render", "--json")
    assert rendered.code == 0 and rendered.json()["removed"] == 0  # type: ignore[index]


def test_update_without_network_goes_on_and_logs(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    assert run_cli("init", str(root)).code == 0
    closed = {
        "FRONTIER_ARXIV__API_URL": "http://127.0.0.1:9/api/query",
        "FRONTIER_ARXIV__NUM_RETRIES": "0",
        "FRONTIER_ARXIV__DELAY_SECONDS": "0",
    }
    result = run_cli("-w", str(root), "update", env=closed)
    assert result.code == 1, result.out + result.err
    assert "arXiv is unreachable" in result.out and "Traceback" not in result.err
    assert (root / "kb" / "index.md").exists()
    assert list((root / ".frontier" / "logs").glob("update-*.log"))
