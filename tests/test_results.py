"""The results table: values parsed, metric families, names resolved to canonical ones, and
`frontier results` / `frontier export --what results` over a KB stored through the store."""

from __future__ import annotations

import pytest

from frontier.store.kb import EntityInfo
from frontier.synthesize.names import name_table
from frontier.synthesize.results import (
    ParsedValue,
    family_name,
    metric_family,
    parse_value,
    unit_name,
)

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
