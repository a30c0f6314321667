"""Conflicts between verified claims: found by code in a comparable setting, labelled by the
model, shown on the topic's frontier page with both quotes and pages, and later measurements."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from fake_openai import FakeOpenAI, Reply
from helpers import db, run_cli

from frontier.commands.curate import flag_conflicts
from frontier.store.runs import start_run
from frontier.workspace import open_workspace

PAPERS = [
    (
        "2301.00001",
        "2023-01-10",
        "Batching for serving",
        2.0,
        "2.0×",
        5,
        "On A100 GPUs with a 7B model in FP16, our batching raises throughput by 2.0× over vLLM.",
    ),
    (
        "2306.00002",
        "2023-06-02",
        "Speculative serving",
        24.0,
        "24×",
        7,
        "With a 7B model on A100 GPUs in FP16, throughput rises by 24× over the HuggingFace baseline.",
    ),
    (
        "2303.00003",
        "2023-03-15",
        "Big model serving",
        10.0,
        "10×",
        2,
        "On H100 GPUs with a 70B model in FP8, throughput improves by 10×.",
    ),
    (
        "2402.00004",
        "2024-02-20",
        "A later measurement",
        3.1,
        "3.1×",
        3,
        "We measure 3.1× higher throughput on A100 for 7B models in FP16 against vLLM.",
    ),
]
LABEL = '{"label": "different conditions", "reason": "The two papers measure against different baselines."}'


def build(tmp_path: Path) -> Path:
    ws = tmp_path / "kb"
    assert run_cli("init", str(ws)).code == 0
    records = tmp_path / "records.jsonl"
    records.write_text(
        "".join(
            json.dumps(
                {
                    "id": pid,
                    "title": title,
                    "date": date,
                    "authors": ["A. Author"],
                    "abstract": f"{title}: a system for serving language models faster. " * 4,
                }
            )
            + "\n"
            for pid, date, title, *_ in PAPERS
        )
    )
    assert run_cli("-w", str(ws), "ingest", str(records)).code == 0
    conn = db(ws)
    with conn:
        for pid, _, _, value, value_text, page, quote in PAPERS:
            conn.execute(
                "INSERT INTO claims (paper_id, metric, value, value_text, unit, direction, page, "
                "quote, verified, at) VALUES (?, 'throughput', ?, ?, '×', 'higher', ?, ?, 1, '')",
                (pid, value, value_text, page, quote),
            )
    return ws


def test_disagreeing_claims_are_flagged_once_with_quotes_pages_and_later_papers(
    tmp_path: Path,
) -> None:
    ws = build(tmp_path)
    with FakeOpenAI([Reply(content=LABEL)]) as server:
        env = {"FRONTIER_LLM__BASE_URL": server.url, "FRONTIER_LLM__BACKEND": "vllm"}
        first = run_cli("-w", str(ws), "conflicts", "detect", "--json", env=env)
        assert first.code == 0, first.err
        assert first.json() == {
            "pairs": 2,
            "new": 2,
            "labelled": 2,
            "label failures": 0,
            "withdrawn": 0,
        }
        calls = len(server.requests)
        again = run_cli("-w", str(ws), "conflicts", "detect", "--json", env=env)
        assert again.json()["new"] == 0 and len(server.requests) == calls
    rows = (
        db(ws)
        .execute("SELECT paper_a, paper_b, label, later FROM conflict_claims ORDER BY conflict_id")
        .fetchall()
    )
    pairs = {(r["paper_a"], r["paper_b"]): r for r in rows}
    # the 70B/H100/FP8 claim is another setting; 2.0x vs 3.1x is within the factor
    assert set(pairs) == {("2301.00001", "2306.00002"), ("2306.00002", "2402.00004")}
    assert pairs[("2301.00001", "2306.00002")]["label"] == "different conditions"
    later = json.loads(pairs[("2301.00001", "2306.00002")]["later"])
    assert [item["paper_id"] for item in later] == ["2402.00004"]
    assert run_cli("-w", str(ws), "render").code == 0
    page = (ws / "kb" / "topics" / "serving" / "frontier.md").read_text()
    assert "raises throughput by 2.0× over vLLM" in page and ", p. 5" in page and ", p. 7" in page
    assert "Judged different conditions" in page
    assert "Later papers measuring this setting" in page and "3.1×" in page
    listed = run_cli("-w", str(ws), "conflicts", "list", "--json").json()
    assert len(listed) == 2 and all(c["source"] == "claims" for c in listed)


def test_curation_pairs_only_claims_not_paired_before_and_refreshes_later_measurements(
    tmp_path: Path,
) -> None:
    ws = build(tmp_path)
    conn = db(ws)
    with conn:  # the later paper's claim arrives after the first pass
        later_claim = conn.execute("SELECT * FROM claims WHERE paper_id = '2402.00004'").fetchone()
        conn.execute("DELETE FROM claims WHERE paper_id = '2402.00004'")
    workspace = open_workspace(ws)
    with FakeOpenAI([Reply(content=LABEL)]) as server:
        workspace.settings.llm.base_url = server.url
        workspace.settings.llm.backend = "vllm"

        def detect() -> dict[str, int]:
            run_id = start_run(conn, "curate", "")
            return asyncio.run(flag_conflicts(workspace, conn, run_id))

        assert detect() == {
            "pairs": 1,
            "new": 1,
            "labelled": 1,
            "label failures": 0,
            "withdrawn": 0,
        }
        assert (
            conn.execute("SELECT COUNT(*) FROM claims WHERE conflicts_seen = 0").fetchone()[0] == 0
        )
        calls = len(server.requests)
        assert detect()["pairs"] == 0 and len(server.requests) == calls  # nothing unseen
        with conn:
            conn.execute(
                "INSERT INTO claims (paper_id, metric, value, value_text, unit, direction, page, "
                "quote, verified, at) VALUES (?, 'throughput', ?, ?, '×', 'higher', ?, ?, 1, '')",
                tuple(later_claim[k] for k in ("paper_id", "value", "value_text", "page", "quote")),
            )
        assert detect() == {
            "pairs": 2,
            "new": 1,
            "labelled": 1,
            "label failures": 0,
            "withdrawn": 0,
        }
        assert len(server.requests) == calls + 1
    rows = conn.execute("SELECT paper_a, paper_b, later FROM conflict_claims").fetchall()
    pairs = {(r["paper_a"], r["paper_b"]): json.loads(r["later"]) for r in rows}
    assert set(pairs) == {("2301.00001", "2306.00002"), ("2306.00002", "2402.00004")}
    assert [item["paper_id"] for item in pairs[("2301.00001", "2306.00002")]] == ["2402.00004"]


def test_a_conflict_whose_claims_no_longer_disagree_is_withdrawn_not_lost(tmp_path: Path) -> None:
    ws = build(tmp_path)
    with FakeOpenAI([Reply(content=LABEL)]) as server:
        env = {"FRONTIER_LLM__BASE_URL": server.url, "FRONTIER_LLM__BACKEND": "vllm"}
        assert run_cli("-w", str(ws), "conflicts", "detect", "--json", env=env).code == 0
        conn = db(ws)
        with conn:  # typed again, the 24x claim is gone: both of its conflicts no longer hold
            conn.execute("DELETE FROM claims WHERE paper_id = '2306.00002'")
            conn.execute("UPDATE claims SET conflicts_seen = 0")
        again = run_cli("-w", str(ws), "conflicts", "detect", "--json", env=env).json()
    assert again["withdrawn"] == 2 and again["new"] == 0
    statuses = [r[0] for r in db(ws).execute("SELECT status FROM conflicts")]
    assert statuses == ["withdrawn", "withdrawn"]
    assert run_cli("-w", str(ws), "render").code == 0
    page = (ws / "kb" / "topics" / "serving" / "frontier.md").read_text()
    assert "24×" not in page


def test_a_paper_bears_on_a_conflict_when_it_measures_the_disputed_setting() -> None:
    from frontier.curate.steps.relations import measured_conflicts

    conflicts = {"4": ("conflict", "4", "serving", "throughput (7B, A100, fp16): 2.0× vs 24×")}
    later = {4: [{"paper_id": "2402.00004", "page": 3, "quote": "We measure 3.1× on A100."}]}
    (found,) = measured_conflicts("2402.00004", conflicts, later)
    item, relation = found
    assert item == conflicts["4"] and relation.kind == "conflict" and relation.target == "4"
    assert relation.evidence == "We measure 3.1× on A100." and relation.page == 3
    # a paper that does not measure it, whatever words it shares with the label, does not
    assert measured_conflicts("2301.00009", conflicts, later) == []


def test_relative_values_against_different_named_baselines_are_not_set_against_each_other(
    tmp_path: Path,
) -> None:
    ws = build(tmp_path)
    conn = db(ws)
    with conn:  # 2.0× over vLLM, 24× over a HuggingFace baseline, 3.1× against vLLM
        for pid, baseline in (("2301.00001", "vLLM"), ("2306.00002", "the HuggingFace baseline")):
            conn.execute("UPDATE claims SET baseline = ? WHERE paper_id = ?", (baseline, pid))
        conn.execute("UPDATE claims SET baseline = 'vLLM' WHERE paper_id = '2402.00004'")
    with FakeOpenAI([Reply(content=LABEL)]) as server:
        env = {"FRONTIER_LLM__BASE_URL": server.url, "FRONTIER_LLM__BACKEND": "vllm"}
        found = run_cli("-w", str(ws), "conflicts", "detect", "--json", env=env).json()
        assert found["pairs"] == 0 and not server.requests
        with conn:  # the same two values, both against vLLM: 12 times apart
            conn.execute("UPDATE claims SET baseline = 'the vLLM' WHERE paper_id = '2306.00002'")
            conn.execute("UPDATE claims SET conflicts_seen = 0")
        found = run_cli("-w", str(ws), "conflicts", "detect", "--json", env=env).json()
    assert found["new"] >= 1
    pairs = {(r[0], r[1]) for r in db(ws).execute("SELECT paper_a, paper_b FROM conflict_claims")}
    assert ("2301.00001", "2306.00002") in pairs
