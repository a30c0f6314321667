"""The results table: values parsed, metric families, names resolved to canonical ones, and
`frontier results` / `frontier export --what results` over a KB stored through the store."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli
from typer.testing import CliRunner

from frontier.cli import app as APP
from frontier.model import Claim, EntityInfo, SourceRecord
from frontier.store.curation import save_claims, save_triage
from frontier.store.db import connect, transaction
from frontier.store.papers import save_paper
from frontier.store.results import ResultClaim, result_claims, topic_papers
from frontier.store.runs import finish_run, start_run
from frontier.synthesize.conflicts import factor_apart
from frontier.synthesize.measurement import family_name
from frontier.synthesize.names import name_table
from frontier.synthesize.results import (
    MAX_DISAGREEING,
    RESULT_COLUMNS,
    ParsedValue,
    ResultFilters,
    current_keys,
    keyed_results,
    known_in_title,
    metric_family,
    parse_value,
    refresh_result_keys,
    results_table,
    stored_results,
    unit_name,
)
from frontier.workspace import open_workspace

# --- values ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("printed", "unit", "expected"),
    [
        ("2-4×", "", ParsedValue(2.0, 4.0, "×", "range")),
        ("2.0-4.0", "×", ParsedValue(2.0, 4.0, "×", "range")),
        ("2X-3X", "×", ParsedValue(2.0, 3.0, "×", "range")),
        ("1.5×–2.3×", "", ParsedValue(1.5, 2.3, "×", "range")),
        ("2 to 4 times", "", ParsedValue(2.0, 4.0, "×", "range")),
        ("up to 3.5×", "", ParsedValue(None, 3.5, "×", "upper bound")),
        ("less than 5%", "%", ParsedValue(None, 5.0, "%", "upper bound")),
        ("at least 2x", "", ParsedValue(2.0, None, "×", "lower bound")),
        ("more than 1,000 tokens/s", "", ParsedValue(1000.0, None, "tokens/s", "lower bound")),
        ("~3×", "", ParsedValue(3.0, 3.0, "×", "exact")),
        ("an average of 23%", "", ParsedValue(23.0, 23.0, "%", "exact")),
        ("35", "ms", ParsedValue(35.0, 35.0, "ms", "exact")),
        ("$0.50", "", ParsedValue(0.5, 0.5, "$", "exact")),
    ],
)
def test_values_parse_into_bounds_and_a_unit(
    printed: str, unit: str, expected: ParsedValue
) -> None:
    assert parse_value(printed, unit) == expected


def test_from_a_to_b_keeps_both_in_their_order() -> None:
    parsed = parse_value("from 180 seconds to less than 6 seconds", "seconds")
    assert parsed == ParsedValue(6.0, 180.0, "s", "from-to", start=180.0, end=6.0)


def test_times_and_percent_are_different_units() -> None:
    assert unit_name("x") == unit_name("X") == unit_name("×") == unit_name("times") == "×"
    assert unit_name("%") == unit_name("percent") == "%"
    assert parse_value("30%").unit != parse_value("30×").unit  # type: ignore[union-attr]
    assert unit_name("gb") == "GB" and unit_name("GiB") == "GiB" and unit_name("") is None


def test_a_value_without_a_number_is_unknown_unless_one_is_stored() -> None:
    assert parse_value("several") is None
    assert parse_value("", "×") is None
    assert parse_value("twice", "×", 2.0) == ParsedValue(2.0, 2.0, "×", "exact")


def test_bounds_sort_numerically_a_lone_bound_standing_for_both() -> None:
    values = [parse_value(t) for t in ("12×", "2-4×", "up to 3.5×", "2×", "at least 10×")]
    ordered = sorted(values, key=lambda v: v.sort_key())  # type: ignore[union-attr]
    assert [v.low if v.low is not None else v.high for v in ordered] == [2, 2, 3.5, 10, 12]  # type: ignore[union-attr]
    assert ordered[0].form == "exact" and ordered[1].form == "range"  # type: ignore[union-attr]


# --- metric families ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "unit", "family"),
    [
        ("throughput", "×", "throughput"),
        ("request throughput", "req/s", "throughput"),
        ("time to first token", "ms", "ttft"),
        ("TTFT", "ms", "ttft"),
        ("P99 TPOT", "ms", "tbt"),
        ("time between tokens", "ms", "tbt"),
        ("end-to-end latency", "s", "latency"),
        ("goodput", "×", "goodput"),
        ("serving capacity", "×", "request-rate"),
        ("request rate", "req/s", "request-rate"),
        ("peak memory usage", "GB", "memory"),
        ("accuracy losses", "%", "accuracy"),
        ("perplexity", "", "perplexity"),
        ("energy", "J", "energy"),
        ("cost", "$", "cost"),
        ("decoding speedup", "×", "speedup"),
        ("", "tokens/s", "throughput"),
        ("", "GB", "memory"),
        ("memory bandwidth", "GB/s", None),
        ("", "×", None),
        ("batch size", "", None),
    ],
)
def test_metric_families(metric: str, unit: str, family: str | None) -> None:
    assert metric_family(metric, unit) == family


def test_families_as_a_user_types_them() -> None:
    assert family_name("TTFT") == "ttft" and family_name("request rate") == "request-rate"
    assert family_name("TPOT") == "tbt" and family_name("Throughput") == "throughput"
    assert family_name("bandwidth") is None


# --- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "names"),
    [
        ("vllm", ("vLLM",)),
        ("the vLLM baseline", ("vLLM",)),
        ("vLLM v0.2.7", ("vLLM",)),
        ("FasterTransformer and Orca", ("FasterTransformer", "Orca")),
        ("Orca, FasterTransformer", ("FasterTransformer", "Orca")),
        ("Hugging Face Transformers", ("HF Transformers",)),
        ("TRT-LLM", ("TensorRT-LLM",)),
        ("DeepSpeed-MII", ("DeepSpeed-FastGen",)),
        ("cuBLAS FP16", ("FP16",)),
        ("NVIDIA A100 (80GB)", ("A100",)),
        ("8× A100 GPUs", ("A100",)),
        ("A100-SXM4-80GB", ("A100",)),
        ("A10G", ("A10",)),
        ("H800", ("H800",)),
        ("OPT-13B", ("OPT-13B",)),
        ("opt 13b", ("OPT-13B",)),
        ("Llama 2 7B", ("Llama-2-7B",)),
        ("meta-llama/Llama-2-7b-hf", ("Llama-2-7B",)),
        ("Mixtral-8x7B", ("Mixtral-8x7B",)),
        ("T5-XXL", ("T5-XXL",)),
        # not known as a whole: no key, so never grouped with vLLM or a base model
        ("vLLM with prefix caching", ()),
        ("vLLM and our naive baseline", ()),
        ("Llama-2-7b-chat-hf", ()),
        ("", ()),
    ],
)
def test_names_resolve_to_canonical_ones_only_when_known(
    field: str, names: tuple[str, ...]
) -> None:
    assert name_table().names_in(field) == names


def test_user_aliases_extend_and_override_the_table() -> None:
    table = name_table({"vLLM": ["our vLLM port"], "A10G": ["A10G"], "Sarathi": ["sarathi"]})
    assert table.names_in("our vLLM port") == ("vLLM",)
    assert table.names_in("A10G") == ("A10G",) and table.names_in("A10") == ("A10",)
    assert table.names_in("SARATHI") == ("Sarathi",)


def test_tracked_entities_add_names_the_table_does_not_know() -> None:
    entities = [
        EntityInfo("a100", "NVIDIA A100", "hardware", ("A100",)),
        EntityInfo("h100", "NVIDIA H100", "hardware", ("H100", "H800")),
        EntityInfo("spec", "Speculative decoding", "method", ("speculative sampling",)),
    ]
    table = name_table(None, entities)
    assert table.names_in("speculative sampling") == ("Speculative decoding",)
    # the built-in names stay: an entity does not merge the H800 into the H100
    assert table.names_in("A100") == ("A100",) and table.names_in("NVIDIA A100") == ("A100",)
    assert table.names_in("H800") == ("H800",)


# --- `frontier results` and the export over a stored KB ---------------------------------------

VLLM_PAPERS = [
    ("2401.00011", "Chunked Prefills for Serving", "serving"),
    ("2401.00012", "Paged Prefix Sharing", "serving"),
    ("2401.00013", "Low-bit Kernels on Hopper", "models"),
]


def _claim(metric: str, value_text: str, unit: str, baseline: str, **fields: Any) -> Claim:
    """A claim as curation stores one: verified, typed by code, quoted on page 3."""
    defaults: dict[str, Any] = {
        "value": None,
        "direction": "higher",
        "model_name": "",
        "hardware": "",
        "condition": "",
        "page": 3,
        "quote": f"{metric} {value_text} over {baseline}",
        "verified": True,
        "verify_note": "",
        "model": "code",
        "prompt_version": "claim@1",
    }
    return Claim(metric, value_text=value_text, unit=unit, baseline=baseline, **defaults | fields)


STORED_CLAIMS = {
    "2401.00011": [
        _claim("throughput", "up to 5.6×", "×", "vLLM", hardware="A100", model_name="OPT-13B"),
        _claim("P99 latency", "12 ms", "ms", "Orca", direction="lower"),
        _claim("throughput", "10×", "×", "vLLM", verified=False, verify_note="not on page 3"),
    ],
    "2401.00012": [
        _claim("throughput", "2-4×", "×", "the vLLM baseline", hardware="NVIDIA A100 80GB"),
        _claim("throughput", "2.5×", "×", "vLLM with prefix caching"),
        _claim(
            "time to first token",
            "from 180 seconds to less than 6 seconds",
            "seconds",
            "FasterTransformer and vLLM",
            direction="lower",
        ),
    ],
    "2401.00013": [
        _claim("throughput", "1.9×", "×", "vllm v0.2.7", hardware="8× H100 GPUs"),
        _claim("throughput", "35%", "%", "vLLM", hardware="H100"),
        _claim("perplexity", "5.47", "", "GPTQ", direction="lower", model_name="Llama 2 7B"),
    ],
}


def _store_kb(root: Path) -> None:
    """Papers, their triage and their claims written through the store's own functions."""
    ws = open_workspace(root)
    with contextlib.closing(connect(ws.db_path)) as conn:
        run_id = start_run(conn, "curate")
        for paper_id, title, topic in VLLM_PAPERS:
            record = SourceRecord(source="arxiv", source_ref="test", arxiv_id=paper_id, title=title)
            save_paper(conn, record, None, None)
            row = {
                "topic": topic,
                "stage": "embedding",
                "reason": "close",
                "scope_line": "",
                "score": 0.5,
            }
            save_triage(conn, paper_id, [row], "h", run_id)
            save_claims(conn, paper_id, STORED_CLAIMS[paper_id], "h", run_id)
        finish_run(conn, run_id, "ok", {})


@pytest.fixture(scope="module")
def results_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("results") / "kb"
    assert run_cli("init", str(root)).code == 0
    _store_kb(root)
    return root


def _invoke(root: Path, *args: str) -> Any:
    return CliRunner().invoke(APP, ["-w", str(root), *args])


def _json(root: Path, *args: str) -> list[dict[str, Any]]:
    result = _invoke(root, "results", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_results_against_vllm_are_grouped_and_sorted_by_value(results_kb: Path) -> None:
    rows = _json(results_kb, "--baseline", "vLLM")
    shown = [(r["family"], r["baseline_canonical"], r["value_text"]) for r in rows]
    assert shown == [
        ("ttft", "FasterTransformer + vLLM", "from 180 seconds to less than 6 seconds"),
        ("throughput", "vLLM", "35%"),  # another unit: never between the × values
        ("throughput", "vLLM", "1.9×"),
        ("throughput", "vLLM", "2-4×"),
        ("throughput", "vLLM", "up to 5.6×"),
    ]
    ttft, share, first, ranged, upper = rows
    assert (ttft["value_low"], ttft["value_high"]) == (6.0, 180.0)
    assert (ttft["value_from"], ttft["value_to"], ttft["value_unit"]) == (180.0, 6.0, "s")
    assert (ranged["value_low"], ranged["value_high"], ranged["value_form"]) == (2.0, 4.0, "range")
    assert (upper["value_low"], upper["value_high"], upper["value_form"]) == (
        None,
        5.6,
        "upper bound",
    )
    assert share["value_unit"] == "%" and first["value_unit"] == "×"
    assert ranged["baseline"] == "the vLLM baseline" and ranged["hardware_canonical"] == "A100"
    assert first["hardware"] == "8× H100 GPUs" and first["hardware_canonical"] == "H100"
    assert upper["paper"] == "2401.00011" and upper["title"] == "Chunked Prefills for Serving"
    assert upper["model_canonical"] == "OPT-13B" and upper["page"] == 3
    assert upper["quote"] == "throughput up to 5.6× over vLLM" and upper["direction"] == "higher"
    assert set(upper) == set(RESULT_COLUMNS)
    # not known as a whole, and not verified: neither is a result against vLLM
    assert "2.5×" not in {r["value_text"] for r in rows}
    assert "10×" not in {r["value_text"] for r in rows}
    assert "10×" in {r["value_text"] for r in _json(results_kb, "--baseline", "vLLM", "--all")}


def test_results_csv_parses_back_to_the_same_rows(results_kb: Path) -> None:
    rows = _json(results_kb, "--baseline", "vLLM")
    result = run_cli("-w", str(results_kb), "results", "--baseline", "vLLM", "--csv")
    assert result.code == 0, result.err
    parsed = list(csv.DictReader(io.StringIO(result.out)))
    assert list(parsed[0]) == list(RESULT_COLUMNS)
    assert parsed == [{k: _cell(v) for k, v in row.items()} for row in rows]
    assert float(parsed[3]["value_low"]) == 2.0 and parsed[4]["value_low"] == ""


def _cell(value: Any) -> str:
    """A JSON value as the CSV writes it: nothing for null, 1/0 for a flag, the papers a
    result disagrees with by id."""
    if value is None:
        return ""
    if isinstance(value, list):
        return "; ".join(other["paper"] for other in value)
    return str(int(value)) if isinstance(value, bool) else str(value)


def test_filters_combine_and_ignore_case(results_kb: Path) -> None:
    assert _json(results_kb, "--baseline", "vllm") == _json(results_kb, "--baseline", "VLLM")
    a100 = _json(results_kb, "--baseline", "vllm", "--hardware", "a100")
    assert [r["value_text"] for r in a100] == ["2-4×", "up to 5.6×"]
    h100 = _json(results_kb, "--hardware", "NVIDIA H100", "--metric", "Throughput")
    assert [r["value_text"] for r in h100] == ["35%", "1.9×"]
    assert [r["value_text"] for r in _json(results_kb, "--baseline", "FasterTransformer")] == [
        "from 180 seconds to less than 6 seconds"
    ]
    llama = _json(results_kb, "--model", "meta-llama/Llama-2-7b-hf")
    assert [(r["family"], r["baseline_canonical"]) for r in llama] == [("perplexity", "GPTQ")]
    assert [r["paper"] for r in _json(results_kb, "--topic", "models", "--baseline", "vLLM")] == [
        "2401.00013",
        "2401.00013",
    ]
    assert _json(results_kb, "--metric", "ttft", "--hardware", "A100") == []


def test_unknown_keys_stay_out_of_the_groups(results_kb: Path) -> None:
    rows = _json(results_kb, "--metric", "throughput")
    assert [r["baseline_canonical"] for r in rows] == ["vLLM"] * 4 + [None]
    assert rows[-1]["baseline"] == "vLLM with prefix caching"


def test_results_table_and_refusals(results_kb: Path) -> None:
    table = _invoke(results_kb, "results")
    assert table.exit_code == 0, table.output
    assert "throughput — vs vLLM" in table.stdout and "TTFT — vs FasterTransformer + vLLM" in (
        table.stdout
    )
    assert "throughput — vs baseline unknown" in table.stdout
    assert "2–4 ×" in table.stdout and "≤ 5.6 ×" in table.stdout and "180 → 6 s" in table.stdout
    assert "8 results in 5 groups." in table.stdout
    bad = _invoke(results_kb, "results", "--metric", "bandwidth")
    assert bad.exit_code == 1 and "unknown metric family 'bandwidth'" in bad.stderr
    assert _invoke(results_kb, "results", "--topic", "kernels").exit_code == 1
    assert _invoke(results_kb, "results", "--json", "--csv").exit_code == 2


def test_user_aliases_from_the_settings_group_results(results_kb: Path, tmp_path: Path) -> None:
    root = tmp_path / "kb"
    shutil.copytree(results_kb, root)
    config = root / "frontier.toml"
    text = config.read_text().replace(
        "aliases = {}", 'aliases = { "vLLM" = ["vLLM with prefix caching"] }'
    )
    config.write_text(text)
    values = [r["value_text"] for r in _json(root, "--baseline", "vLLM", "--metric", "throughput")]
    assert values == ["35%", "1.9×", "2-4×", "2.5×", "up to 5.6×"]


def test_export_writes_the_results_table_as_csv_and_jsonl(results_kb: Path) -> None:
    everything = _json(results_kb, "--all")
    lines = run_cli("-w", str(results_kb), "export", "jsonl", "--what", "results")
    assert lines.code == 0, lines.err
    assert [json.loads(line) for line in lines.out.splitlines()] == everything
    table = run_cli("-w", str(results_kb), "export", "csv", "--what", "results")
    assert table.code == 0, table.err
    parsed = list(csv.DictReader(io.StringIO(table.out)))
    assert parsed == [{k: _cell(v) for k, v in row.items()} for row in everything]
    assert {r["verified"] for r in parsed} == {"0", "1"}


KEYED_FILTERS = [
    ResultFilters(),
    ResultFilters(baseline="vllm"),
    ResultFilters(baseline="VLLM", hardware="a100"),
    ResultFilters(family="throughput", hardware="NVIDIA H100"),
    ResultFilters(model="meta-llama/Llama-2-7b-hf"),
    ResultFilters(baseline="FasterTransformer"),
    ResultFilters(family="ttft", hardware="A100"),
]


def test_stored_keys_give_the_table_each_claims_keys_give(results_kb: Path, tmp_path: Path) -> None:
    root = tmp_path / "kb"
    shutil.copytree(results_kb, root)
    ws = open_workspace(root)
    with contextlib.closing(connect(ws.db_path)) as conn:
        claims = result_claims(conn, include_unverified=True)
        with transaction(conn):  # as a KB stored before the keys were
            conn.execute("DELETE FROM result_keys")
        assert current_keys(conn, ws.settings) is None
        assert refresh_result_keys(conn, ws.settings) == len(claims)
        assert refresh_result_keys(conn, ws.settings) == 0  # idempotent
        keys = current_keys(conn, ws.settings)
        assert keys is not None
        for filters in KEYED_FILTERS:
            for topic in (None, "models"):
                papers = None if topic is None else topic_papers(conn, topic)
                expected = results_table(claims, keys.table, filters, papers)
                expected = [r for r in expected if r.claim.verified]
                assert keyed_results(conn, keys, filters, topic) == expected, (filters, topic)
        everything = results_table(claims, keys.table, ResultFilters())
        assert stored_results(conn, ws.settings, include_unverified=True) == everything


def test_stored_keys_are_read_again_when_a_paper_or_the_names_change(
    results_kb: Path, tmp_path: Path
) -> None:
    root = tmp_path / "kb"
    shutil.copytree(results_kb, root)
    ws = open_workspace(root)
    with contextlib.closing(connect(ws.db_path)) as conn:
        refresh_result_keys(conn, ws.settings)
        total = len(result_claims(conn, include_unverified=True))
        with transaction(conn):
            conn.execute("UPDATE papers SET title = 'Renamed' WHERE id = '2401.00013'")
        assert current_keys(conn, ws.settings) is None
        assert refresh_result_keys(conn, ws.settings) == len(STORED_CLAIMS["2401.00013"])
    config = root / "frontier.toml"
    config.write_text(
        config.read_text().replace(
            "aliases = {}", 'aliases = { "vLLM" = ["vLLM with prefix caching"] }'
        )
    )
    ws = open_workspace(root)
    with contextlib.closing(connect(ws.db_path)) as conn:
        assert current_keys(conn, ws.settings) is None
        assert refresh_result_keys(conn, ws.settings) == total
        vllm = keyed_results(conn, current_keys(conn, ws.settings), ResultFilters(baseline="vLLM"))
    assert "vLLM with prefix caching" in {r.claim.baseline for r in vllm}


@pytest.mark.parametrize(
    ("a", "b", "apart"),
    [
        ((2.0, 4.0), (3.0, 3.0), 1.0),  # inside the range: they may meet
        ((None, 5.6), (2.0, 2.0), 1.0),  # "up to 5.6×" holds 2×
        ((1.2, 1.2), (3.0, 3.0), 2.5),
        ((2.0, None), (1.0, 1.0), 2.0),  # "at least 2×" against 1×
        ((0.0, 0.0), (3.0, 3.0), 1.0),  # no factor from a zero
    ],
)
def test_values_are_apart_by_their_nearer_bounds(
    a: tuple[float | None, float | None], b: tuple[float | None, float | None], apart: float
) -> None:
    assert factor_apart(a, b) == pytest.approx(apart)
    assert factor_apart(b, a) == pytest.approx(apart)


def test_a_title_that_coins_no_name_is_named_by_the_known_system_it_names() -> None:
    table = name_table()
    title = "Taming the Throughput-Latency Tradeoff in Serving with Sarathi-Serve"
    assert known_in_title(title, table) == "Sarathi-Serve"
    assert known_in_title("Efficiently Scaling Transformer Inference", table) is None


def _speedup(claim_id: int, paper: str, value: float, direction: str = "higher") -> ResultClaim:
    return ResultClaim(
        id=claim_id, paper_id=paper, title=f"FlexServe study {paper}", metric="throughput",
        value=value, value_text=f"{value}×", unit="×", direction=direction, baseline="vLLM",
        model_name="Llama-2-7B", hardware="A100", page=1,
        quote=f"FlexServe reaches {value}× higher throughput than vLLM.", verified=True,
        headline=False, abstract="We present FlexServe.",
    )  # fmt: skip


def test_disagreements_are_read_from_the_ends_of_a_large_group_and_capped() -> None:
    claims = [_speedup(n, f"p{n}", 1.0 + n / 10) for n in range(1, 60)]
    claims.append(_speedup(100, "p100", 1.5, direction="lower"))
    found = {r.claim.id: r for r in results_table(claims, name_table())}
    lowest = found[1]  # 1.1×: every paper from 1.65× up is 1.5× or more above it
    assert len(lowest.disagrees) == MAX_DISAGREEING
    assert lowest.disagrees[0].paper_id == "p100"  # the opposite direction comes first
    assert all(d.paper_id in {"p100", "p59", "p58", "p57", "p56"} for d in lowest.disagrees)
    middle = found[10]  # 2.0×: the farthest above it come first, nothing is 1.5× below it
    assert [d.paper_id for d in middle.disagrees] == ["p100", "p59", "p58", "p57", "p56"]
    assert middle.disagrees[1].why == "values 3.5x apart"
