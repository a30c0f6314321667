"""Claims typed by code: every field a span of its sentence, the value as printed, direction
from the sentence's own verb or comparative, baselines after a comparison cue."""

from __future__ import annotations

import pytest

from frontier.curate.candidates import ClaimCandidate, find_candidates
from frontier.curate.claims import (
    code_claims,
    gate,
    headline_score,
    mark_headlines,
    reads_as_prose,
    system_names,
    with_setup,
    worse_result,
)
from frontier.curate.spans import propose, setup_names
from frontier.curate.support import plain_math
from frontier.curate.verify import quote_on_page
from frontier.model import Claim

# (sentence, value as printed, unit, direction, metric, baseline)
TYPED = [
    (
        "Our tests show that QuillServe raises the throughput of common LLMs by 3-5× at equal "
        "latency relative to current systems such as TurboServe and Helix.",
        "3-5×", "×", "higher", "throughput", "TurboServe and Helix",
    ),
    (
        "BlockCache cuts the time-to-first-token by up to 85% compared to standard prefill.",
        "up to 85%", "%", "lower", "time-to-first-token", "standard prefill",
    ),
    (
        "It lifts LLM serving throughput by up to 1.4× over the paged kernels of FastAttn.",
        "up to 1.4×", "×", "higher", "LLM serving throughput", "the paged kernels of FastAttn",
    ),
    (
        "We reduce single-batch decoding latency by 2.7x with a 1B parameter model.",
        "2.7x", "×", "lower", "single-batch decoding latency", "",
    ),
    (
        "The scheduler serves 3.1× more requests than RoundRobin under the same SLO.",
        "3.1×", "×", "higher", "requests", "RoundRobin",
    ),
    (
        "Our kernel is 1.6× faster than the cuBLAS FP16 baseline.",
        "1.6×", "×", "higher", "faster", "the cuBLAS FP16 baseline",
    ),
    (
        "The pooled store reaches a hit rate up to 1.9× higher than that of the per-node cache.",
        "up to 1.9×", "×", "higher", "hit rate", "the per-node cache",
    ),
    (
        "Transfers run about 3.2× faster than those achieved using the socket protocol.",
        "about 3.2×", "×", "higher", "faster", "the socket protocol",
    ),
    (
        "The fused block adds 9% more decoding latency than the split version.",
        "9%", "%", "higher", "decoding latency", "the split version",
    ),
    (  # a comparative's own noun names what is measured when the vocabulary names nothing
        "The fused kernel issues up to 6× fewer DRAM transactions than the two-pass kernel.",
        "up to 6×", "×", "lower", "DRAM transactions", "the two-pass kernel",
    ),
    (  # a bare "(up to 4× fewer)" speaks of what the same comparative named before it
        "Tiling needs many times fewer HBM reads than the naive kernel (up to 4× fewer).",
        "up to 4×", "×", "lower", "HBM reads", "the naive kernel",
    ),
    (  # "at batch size 32" is the setting of another number, not what 14 ms measures
        "QuillServe reaches 14 ms per token at batch size 32 on one accelerator.",
        "14 ms", "ms", "", "", "",
    ),
    (  # the metric's own number is the value: "a speedup of 3.1×" is no setting
        "Altogether we achieved an average speedup of 3.1x over plain single-batch decoding.",
        "3.1x", "×", "higher", "average speedup", "plain single-batch decoding",
    ),
    (  # a share of a bound to reach is measured against that bound
        "QuillServe reaches 81% of the peak decoding throughput of the accelerator.",
        "81%", "%", "", "peak decoding throughput", "the peak decoding throughput",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("sentence", "value", "unit", "direction", "metric", "baseline"), TYPED)
def test_fields_are_spans_of_the_sentence(
    sentence: str, value: str, unit: str, direction: str, metric: str, baseline: str
) -> None:
    proposal = propose(sentence)[0]
    assert proposal.value.text == value
    assert sentence[proposal.value.start : proposal.value.end].strip() == value
    assert (proposal.unit, proposal.direction) == (unit, direction)
    assert (proposal.metrics[0].text if proposal.metrics else "") == metric
    assert (proposal.baselines[0].text if proposal.baselines else "") == baseline
    for span in [*proposal.metrics, *proposal.baselines]:
        assert sentence[span.start : span.end] == span.text


def test_numbers_inside_names_are_not_claims() -> None:
    sentence = "We serve Llama-2-70B and Mixtral 8×7B on A100-80GB GPUs with 2.1× lower latency."
    proposals = propose(sentence)
    assert [p.value.text for p in proposals] == ["2.1×"]
    assert {m.text for m in proposals[0].models} == {"Llama-2-70B", "Mixtral 8×7B"}
    assert proposals[0].hardware[0].text == "A100-80GB"


def test_a_gain_spelled_as_n_fold_or_n_to_m_times_is_a_value() -> None:
    fold = propose("QuillServe reaches a 12-fold acceleration compared to HostSwap.")
    assert [(p.value.text, p.unit) for p in fold] == [("12-fold", "×")]
    times = propose("It achieves 2 to 3 times speed-up over baseline decoding.")
    assert [p.value.text for p in times] == ["2 to 3 times"]
    longer = propose("The layout fits up to 16–32 times longer contexts than the naive one.")
    assert [p.value.text for p in longer] == ["up to 16–32 times"]


def test_what_a_change_verb_changes_by_the_value_is_its_metric() -> None:
    """Outside the field's words for metrics: 'cuts <what> by <value>'."""
    (cut,) = propose("The adapter cuts unanswerable-question errors by 64% on long prompts.")
    assert [m.text for m in cut.metrics] == ["unanswerable-question errors"]
    (named,) = propose("It improves decoding throughput by 1.4× on one GPU.")
    assert [m.text for m in named.metrics] == ["decoding throughput"]


def test_each_value_keeps_its_own_clause() -> None:
    sentence = "The system serves 4.2× more requests or meets a 9.5× tighter SLO than prior work."
    first, second = propose(sentence)
    assert (first.metrics[0].text, first.direction) == ("requests", "higher")
    assert (second.metrics[0].text, second.direction) == ("SLO", "lower")


def test_parallel_values_share_the_metric() -> None:
    sentence = "We measure speedups of up to 2.2× on translation, 1.7× on code, and 1.9× on QA."
    assert [p.metrics[0].text for p in propose(sentence)] == ["speedup"] * 3


def test_a_measurement_is_no_baseline() -> None:
    sentence = "Its memory use grows 3× more slowly than the capacity of one accelerator."
    assert not propose(sentence)[0].baselines


def _claim(sentence: str, page: int | None = 1, section: str = "abstract") -> list[Claim]:
    candidate = ClaimCandidate(page, section, sentence, (), (), 0.0)
    return [c for c, _ in code_claims(candidate, sentence, {})]


def _page_claims(page: str, number: int = 4) -> list[Claim]:
    """Every claim code types on a page of an evaluation section."""
    found = find_candidates([(number, "evaluation", page)])
    return [c for candidate in found for c, _ in code_claims(candidate, page, {})]


def test_gate_empties_fields_that_are_not_in_the_quote() -> None:
    claim = _claim("QuillServe raises throughput by 3× over TurboServe.")[0]
    assert claim.verified and claim.metric == "throughput" and claim.baseline == "TurboServe"
    claim.metric, claim.baseline, claim.hardware = "LIMITED_RESP", "3×", "H100"
    gated = gate(claim)
    assert (gated.metric, gated.baseline, gated.hardware) == ("", "", "")


def test_setup_supplies_model_and_hardware_with_its_page() -> None:
    chunks = [(7, "evaluation", "We run OPT-13B and OPT-66B on NVIDIA A100 GPUs.")]
    setup = setup_names(chunks)
    assert setup == {"model": ("OPT-13B", 7), "hardware": ("NVIDIA A100", 7)}
    candidate = ClaimCandidate(1, "abstract", "It raises throughput by 2× over Orca.", (), (), 0.0)
    claim = code_claims(candidate, candidate.sentence, {})[0][0]
    assert with_setup(claim, setup).model_name == ""  # background numbers get no setup
    claim.headline = True
    claim = with_setup(claim, setup)
    assert (claim.model_name, claim.hardware, claim.setup_page) == ("OPT-13B", "NVIDIA A100", 7)
    assert gate(claim).model_name == "OPT-13B"  # from the setup, not the quote: kept, marked


def test_headlines_are_the_papers_own_main_results() -> None:
    claims = [
        *_claim("QuillServe raises throughput by 3× over TurboServe."),
        *_claim("Prior systems [4] waste 60% of memory.", page=2, section="introduction"),
        *_claim("Table 3 uses 4-bit weights.", page=9, section="evaluation"),
        *_claim("QuillServe raises throughput by 3× over TurboServe.", 2, "introduction"),
    ]
    marked = mark_headlines(claims, "QuillServe: Fast Serving")
    assert [c.headline for c in marked] == [True, False, False, True]  # restated: one result
    assert system_names("QuillServe: Fast Serving of LLMs with PagedKV") == [
        "QuillServe",
        "PagedKV",
    ]


def test_the_papers_own_system_is_no_baseline() -> None:
    claim = _claim("QuillServe reaches 900 tok/s, higher throughput than QuillServe without reuse.")
    claim = next(c for c in claim if c.value_text == "900 tok/s")
    claim.baseline = "QuillServe"
    assert gate(claim, ["QuillServe"]).baseline == ""


def test_a_name_the_title_sets_its_system_against_is_not_its_own() -> None:
    title = "QuillCache: Dynamic KV Memory for Serving LLMs without BlockTable"
    assert system_names(title) == ["QuillCache"]
    assert system_names("HostSwap versus OffloadNet: Two Ways to Page KV") == ["HostSwap"]


def test_a_number_that_says_worse_is_never_a_headline() -> None:
    claims = [
        *_claim("QuillServe kernels are up to 2.8× slower than FlashAttention-2 at short context."),
        *_claim("QuillServe adds up to 5% higher latency than TurboServe."),
        *_claim("QuillServe raises throughput by 1.9× over TurboServe."),
        *_claim("At 32K tokens, the memory overhead of attention is reduced by 40X."),
        *_claim("The kernel has a 7% overhead at short context."),
    ]
    assert [worse_result(c) for c in claims] == [True, True, False, False, True]
    marked = mark_headlines(claims, "QuillServe: Fast Serving")
    assert [c.headline for c in marked] == [False, False, True, True, False]


def test_a_list_cut_short_and_the_next_subject_are_no_baselines() -> None:
    cut = "Our kernels achieve 1.45× and 2× speedup over GPTQ and GPTQ with reordering on A100."
    assert all(not p.baselines for p in propose(cut))
    subject = "Compared to the full autoregressive decoding, QuillSpec achieved up to 1.8× speedup."
    assert [b.text for b in propose(subject)[0].baselines] == ["the full autoregressive decoding"]
    stringent = "It serves 4.5× higher rates and 10.2× more stringent SLO than vLLM."
    assert [p.direction for p in propose(stringent)] == ["higher", "lower"]


def test_figure_labels_and_shares_are_not_typed_as_results() -> None:
    caption = (
        "Copyright 2025. dense 1 2 1 4 512 MB 256 MB 128 MB transfers per token 0.2 0.4 "
        "Figure 1: accuracy versus transfers."
    )
    assert not reads_as_prose(caption)
    appendix = "Batch size 1× 10× Speedup Figure F1: speedup over the dense baseline, across sizes."
    assert not reads_as_prose(appendix)
    assert reads_as_prose("QuillServe raises throughput by 1.9× over TurboServe.")
    (equation,) = _claim("the latency is T4 = C5 · n · 3s B−1 ∑ i=0 li = C5 · 3ht", 16, "appendix")
    equation = gate(equation)
    assert (equation.value_text, equation.metric, equation.hardware) == ("3s", "", "")
    (share,) = propose("Keeping only 1% of salient weights in FP16 greatly reduces the error.")
    assert not share.metrics and share.direction == ""
    (of_peak,) = propose("The kernel reaches 72% of peak memory bandwidth on one GPU.")
    assert [m.text for m in of_peak.metrics] == ["peak memory bandwidth"]


def test_a_baseline_ends_where_the_next_value_begins() -> None:
    sentence = "Our kernels reach 1.45× speedup over GPTQ and 1.85× speedup over cuBLAS FP16."
    first, second = propose(sentence)
    assert first.baselines[0].text == "GPTQ" and second.baselines[0].text == "cuBLAS FP16"


def test_a_baseline_is_named_plainly_after_its_cue() -> None:
    """A name with its capitals inside ("vLLM", "cuBLAS"), a setting ("a decode-only batch"),
    "the <metric> of X", and a cue that opens the sentence for every value in it."""
    plain = "QuillServe sustains 2.2×–3.1× higher request rate compared to vLLM."
    assert [b.text for b in propose(plain)[0].baselines] == ["vLLM"]
    setting = "Mixed batches raise the TBT latency by up to 12.5× compared to a decode-only batch."
    assert [b.text for b in propose(setting)[0].baselines] == ["a decode-only batch"]
    share = "QuillServe reaches 1.7× the throughput of vLLM on one node."
    assert [b.text for b in propose(share)[0].baselines] == ["vLLM"]
    opening = "Compared to vLLM, we serve 2.1× more requests and up to 3.2× higher capacity."
    assert [[b.text for b in p.baselines] for p in propose(opening)] == [["vLLM"], ["vLLM"]]
    each = "It raises throughput by up to 2.9× compared to chunked prefill and 4.1× compared to TurboServe."
    assert [[b.text for b in p.baselines] for p in propose(each)] == [
        ["chunked prefill"],
        ["TurboServe"],
    ]
    surpassed = "QuillServe reaches 2.1× throughput, which surpasses vLLM by a wide margin."
    assert [b.text for b in propose(surpassed)[0].baselines] == ["vLLM"]
    exceeded = "Its 1.9× speedup exceeds Medusa on every task."
    assert [b.text for b in propose(exceeded)[0].baselines] == ["Medusa"]


def test_a_baseline_named_away_from_its_value_is_still_found() -> None:
    """A short name with a digit inside ("Q7X"), "the <metric> of X" after 'outperforming', a
    second value of the same metric, a subject that holds the comparison, and a lead-in before
    a colon."""
    short = "Given spare compute we see 1.8X-2.6X speedups in practice vs Q7X, a tuned runtime."
    assert [b.text for b in propose(short)[0].baselines] == ["Q7X"]
    metric_of = "It cut KV memory to 1/8, outperforming the throughput of prior offloading systems by 9 times."
    assert [b.text for b in propose(metric_of)[-1].baselines] == ["prior offloading systems"]
    same = (
        "It reaches a 2-3× speedup over HostSwap on short prompts, and a 7× speedup on long ones."
    )
    assert [[b.text for b in p.baselines] for p in propose(same)] == [["HostSwap"], ["HostSwap"]]
    subject = (
        "The gain of QuillServe over Helix on chat grows from 1.2× at batch 8 to 1.9× at batch 64."
    )
    assert [[b.text for b in p.baselines] for p in propose(subject)] == [["Helix"], ["Helix"]]
    lead_in = (
        "It trains models faster than prior kernels: 12% lower step time on short inputs "
        "compared to the vendor library, 1.6× speedup on long inputs."
    )
    assert [b.text for b in propose(lead_in)[1].baselines] == ["prior kernels"]


def test_a_baseline_said_without_a_comparison_word_is_found() -> None:
    """A lead-in 'when comparing with X' (not X's authors), the setting a change starts from,
    the other side of a contrast (whose own value has no baseline), and what the paper says it
    compares its own with before the value it found."""
    leading = (
        "When comparing with DraftCheck Lee et al. (2024) on the shared tasks, we are faster on "
        "news (1.7× vs. 1.4×) and slower on dialogue (1.2× vs. 1.3×)."
    )
    assert {b.text for p in propose(leading) for b in p.baselines} == {"DraftCheck"}
    moved = (
        "Running the 3-bit model on 2 GPUs cuts latency from 600 milliseconds for FP16 inference "
        "(on 8 GPUs) to 140 milliseconds, a 4.3× latency reduction."
    )
    assert [b.text for b in propose(moved)[-1].baselines] == ["FP16 inference"]
    contrast = (
        "We reach 20.5ms/token with int8 weights at batch 32, while we reach 31.0ms/token with "
        "bfloat16 weights."
    )
    first, second = propose(contrast)
    assert [b.text for b in first.baselines] == ["bfloat16 weights"] and not second.baselines
    compared = (
        "We compare walltimes for our kernel to those of the vendor implementation, showing a "
        "latency improvement of 1.8X-2.4X."
    )
    assert [b.text for b in propose(compared)[0].baselines] == ["the vendor implementation"]
    # what an aside adds to a comparison is against the same system; a speed-up that keeps
    # another method's output is against that method
    aside = (
        "On one cluster, TileServe achieves 9x higher throughput compared to current multi-model "
        "servers while only adding 3ms latency per token."
    )
    assert [[b.text for b in p.baselines] for p in propose(aside)] == [
        ["current multi-model servers"],
        ["current multi-model servers"],
    ]
    kept = "Our method produces the same outputs as standard sampling but runs over 3× faster."
    assert [b.text for b in propose(kept)[0].baselines] == ["standard sampling"]
    own = "It keeps the same outputs as standard sampling and reaches 3× the speed of CopyDecode."
    assert [b.text for b in propose(own)[0].baselines] == ["CopyDecode"]


def test_listed_values_over_as_many_listed_baselines_are_paired_in_order() -> None:
    """'1.2× and 1.4× over the paged kernels of Blaze and Ember': each value has its own
    baseline, as "respectively" would say; modifiers of one head noun stay one baseline."""
    listed = (
        "It raises throughput by up to 1.2× and 1.4× over the paged kernels of Blaze and Ember."
    )
    assert [[b.text for b in p.baselines] for p in propose(listed)] == [
        ["the paged kernels of Blaze"],
        ["Ember"],
    ]
    three = "It is 2×, 3× and 5× faster than Helix, Quill and Orca."
    assert [[b.text for b in p.baselines] for p in propose(three)] == [
        ["Helix"],
        ["Quill"],
        ["Orca"],
    ]
    bullet = "It is 1.3× faster than Ember • We also port it to a second GPU."
    assert [b.text for b in propose(bullet)[0].baselines] == ["Ember"]  # a list item ends it
    one_head = "It serves 4.1× and 3.2× more load than Helix's TP-only and hybrid-parallel setups."
    assert {b.text for p in propose(one_head) for b in p.baselines} == {
        "Helix's TP-only and hybrid-parallel setups"
    }


def test_a_result_inside_the_paper_is_a_headline_only_when_nothing_else_is() -> None:
    """A variant against the paper's own system, or a setting such as a memory size, gives way
    to a result against the outside world."""
    title = "QuillAttention: Exact Attention with Fewer Reads"
    variant = _claim("Sparse QuillAttention is 2-4× faster than QuillAttention.")
    memory = _claim("Our model needs a memory of 120GB on one node.", section="abstract")
    outside = _claim("QuillAttention trains GPT-2 1.7× faster than the HuggingFace baseline.")
    marked = mark_headlines([*variant, *memory, *outside], title)
    assert [c.headline for c in marked] == [False, False, True]
    share = _claim(
        "QuillAttention serves 3.1× more requests while meeting the SLO for > 90% of requests."
    )
    marked = mark_headlines(share, title)
    assert [(c.value_text, c.headline) for c in marked] == [("3.1×", True), ("> 90%", False)]
    loss = _claim("QuillAttention keeps accuracy losses of less than 1% at 3 bits.")
    assert loss[0].metric == "accuracy losses"
    alone = mark_headlines(variant, title)
    assert [c.headline for c in alone] == [True]  # nothing else: the variant is the result


def test_a_gain_or_boost_over_a_baseline_is_a_claim_sentence() -> None:
    page = (
        "With sampling, QuillSpec retains its lead, providing an average performance boost of "
        "1.98x over baseline and 1.36x again over standard speculative sampling. "
        "(The performance gain on the shown prompt is approximately 2.5x over baseline.)"
    )
    assert sorted((c.value_text, c.baseline) for c in _page_claims(page)) == [
        ("1.36x", "standard speculative sampling"),
        ("1.98x", "baseline"),
        ("approximately 2.5x", "baseline"),
    ]


def test_a_sentence_a_page_break_cuts_in_two_is_one_claim_sentence_on_its_first_page() -> None:
    first = (
        "We ran every method on the same prompts. With sampling, QuillSpec provides an average "
        "speedup of 3.16x over our reference"
    )
    second = "implementation, and 1.36x over standard speculative sampling. Figure 3 shows more."
    found = find_candidates([(3, "evaluation", first), (4, "evaluation", second)])
    assert [(c.page, c.continued) for c in found] == [(3, True)]
    assert found[0].sentence.endswith("1.36x over standard speculative sampling.")
    claims = [c for c, _ in code_claims(found[0], f"{first}\n{second}", {})]
    assert [(c.value_text, c.baseline, c.verified) for c in claims] == [
        ("3.16x", "our reference implementation", True),
        ("1.36x", "standard speculative sampling", True),
    ]
    ended = find_candidates([(3, "evaluation", f"{first} code."), (4, "evaluation", second)])
    assert all(not c.continued for c in ended)  # a page that ends its sentence takes nothing


def test_list_items_run_into_one_line_are_claim_sentences_of_their_own() -> None:
    line = (
        "It improves serving throughput by up to 1.18× over paged kernels • We demonstrate "
        "the portability benefit with a newer kernel, which runs 1.3× faster than before."
    )
    assert sorted(c.sentence for c in find_candidates([(2, "introduction", line)])) == [
        "It improves serving throughput by up to 1.18× over paged kernels",
        "We demonstrate the portability benefit with a newer kernel, which runs 1.3× faster "
        "than before.",
    ]


def test_a_list_of_values_after_one_cue_shares_its_baseline_and_names_hold_no_values() -> None:
    page = (
        "In long contexts, PagedQuill outperforms FlatKV by 1.22×, 1.27× and 1.21× for Qwen-7B, "
        "Mistral-2-12B and Yi-34B, and SlabKV by 1.31×, 1.18×, and 1.16× respectively."
    )
    found = find_candidates([(6, "evaluation", page)])
    assert found[0].values == ("1.22", "1.27", "1.21", "1.31", "1.18", "1.16")
    claims = [c for c, _ in code_claims(found[0], page, {})]
    assert [(c.value_text, c.baseline) for c in claims][:3] == [
        ("1.22×", "FlatKV"),
        ("1.27×", "FlatKV"),
        ("1.21×", "FlatKV"),
    ]


def test_inline_tex_of_an_abstract_is_read_as_the_characters_it_prints() -> None:
    abstract = (
        r"QuillKV cuts memory usage by up to $2.7\times$ and speeds up decoding by $1.9\times$ "
        r"over full attention, with $\sim$3\% accuracy loss and $\alpha$ fixed."
    )
    plain = plain_math(abstract)
    assert "up to 2.7× and" in plain and "∼3% accuracy" in plain and r"$\alpha$" in plain
    (candidate,) = find_candidates([(None, "abstract", plain)])
    claims = [c for c, _ in code_claims(candidate, abstract, {})]
    assert [c.value_text for c in claims][:2] == ["up to 2.7×", "1.9×"]
    assert all(c.verified for c in claims)  # the quote is on the abstract as the source gave it
    assert quote_on_page("speeds up decoding by 1.9× over full attention", abstract)


def test_the_task_a_gain_was_measured_on_is_the_span_after_its_value() -> None:
    listed = propose(
        "QuillSpec shows speedups of up to 2.1× on summarization, 1.8× on coding, and 1.6× on "
        "semantic parsing."
    )
    assert [p.tasks[0].text for p in listed] == [
        "on summarization",
        "on coding",
        "on semantic parsing",
    ]
    (part, _) = propose(
        "It brings up to a 9.1× acceleration in attention operations and a 1.7× improvement in "
        "end-to-end inference."
    )
    assert [t.text for t in part.tasks] == ["in attention operations"]
    after_metric = propose("QuillServe sustains 6.2× tighter SLO for chatbot applications.")
    assert [t.text for t in after_metric[0].tasks] == ["for chatbot applications"]
    named = propose("QuillServe gives 2.3× lower latency on a single A100 GPU on average.")
    assert named[0].tasks == []  # the hardware is its own field
    for setting in ("It runs 2× faster on GPUs.", "It is 3× faster on average than vLLM."):
        assert propose(setting)[0].tasks == []


def test_a_value_with_a_task_of_its_own_takes_no_model_named_after_another_value() -> None:
    sentence = (
        "It trains faster than the baselines: a 15% speedup on BERT-large, a 3× speedup on "
        "GPT-2, and a 2.4× speedup on long-range arena."
    )
    models = {p.value.text: [m.text for m in p.models] for p in propose(sentence)}
    assert models["2.4×"] == [] and models["3×"][:1] == ["GPT-2"]
    shared = "On Llama-2-70B, it improves throughput by 2.1x and cuts latency by 35% on chat."
    assert all(p.models[:1] and p.models[0].text == "Llama-2-70B" for p in propose(shared))


# (sentence, the second value, its metric, its baseline)
SECOND_VALUES = [
    (  # what the sentence says beside the claim after "while" is not its metric
        "QuillServe sustains 2× higher request rates than Helix and 3× compared to TurboServe, "
        "while keeping similar latencies.",
        "3×", "request rate", "TurboServe",
    ),
    (  # a value that follows from a comparison shares its baseline
        "Its prefix hit rate is 3.1× higher than that of a per-node cache, resulting in 41% "
        "savings in prefill time.",
        "41%", "prefill", "a per-node cache",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("sentence", "value", "metric", "baseline"), SECOND_VALUES)
def test_a_second_value_takes_its_fields_from_what_the_sentence_ties_it_to(
    sentence: str, value: str, metric: str, baseline: str
) -> None:
    second = propose(sentence)[1]
    assert second.value.text == value
    assert [m.text for m in second.metrics][:1] == [metric]
    assert [b.text for b in second.baselines] == [baseline]
    assert propose("Only 1% of salient weights need protecting.")[0].baselines == []


def test_of_results_scored_alike_the_one_stated_first_is_the_headline() -> None:
    """Two results worth the same: the abstract's, on an earlier page, goes before the body's."""
    title = "QuillCache: A Shared Prefix Store for Chat Serving"
    body = _claim(
        "In our runs, the prefix hit rate is up to 2.1× higher than that of a per-node cache.",
        page=5,
        section="introduction",
    )
    first = _claim(
        "Request capacity is 1.8× higher compared to baseline servers.", page=2, section="abstract"
    )
    names = system_names(title)
    assert headline_score(body[0], names) == headline_score(first[0], names)
    marked = mark_headlines([*body, *first], title, limit=1)
    assert [(c.value_text, c.headline) for c in marked] == [("up to 2.1×", False), ("1.8×", True)]


def test_a_metric_is_named_in_the_singular_on_the_quote() -> None:
    """'22× higher request rates': the request rate is what is 22× higher; a plural that is not
    its singular plus "s" stays as written, so the metric is still words of the quote."""
    sentence = "KiteServe sustains up to 22× higher request rates and 3× lower latencies than Orca."
    assert [p.metrics[0].text for p in propose(sentence)] == ["request rate", "latencies"]


def test_a_value_listed_after_one_tied_to_its_metric_measures_that_metric() -> None:
    """'increases the serving capacity by 4.3× and 3.6× … under strict SLOs': the second value
    is a serving capacity too, not the SLOs named after it."""
    sentence = (
        "HeronServe increases the serving capacity of Falcon-180B by 4.3× and 3.6× over "
        "vLLM's two configurations under strict SLOs."
    )
    assert [p.metrics[0].text for p in propose(sentence)] == ["serving capacity"] * 2


def test_a_second_system_beaten_by_its_own_values_after_and_is_their_baseline() -> None:
    sentence = (
        "QuillAttn outperforms FlatKV by 1.18× and 1.15×, and SlabKV by up to 1.23× and 1.14× "
        "for both models."
    )
    assert [(p.value.text, [b.text for b in p.baselines]) for p in propose(sentence)] == [
        ("1.18×", ["FlatKV"]),
        ("1.15×", ["FlatKV"]),
        ("up to 1.23×", ["SlabKV"]),
        ("1.14×", ["SlabKV"]),
    ]
    # a second verb ends the comparison: what follows it names its own measure, no system
    other = propose("QuillAttn outperforms FlatKV by 1.5× and reduces latency by 2.1×.")
    assert [[b.text for b in p.baselines] for p in other] == [["FlatKV"], []]


def test_a_score_change_told_without_a_unit_is_a_claim_and_a_count_of_points_is_not() -> None:
    page = (
        "QuillDecode reaches a 0.61 higher BLEU score at the same speed, and at 4K context it "
        "achieves 0.7 better perplexity than the 1K baseline. Plain rounding drops 2.2 points. "
        "We sampled 4 points of the sweep and ran each twice for the speedups of 1.5×."
    )
    claims = [(c.value_text, c.metric) for c in _page_claims(page)]
    assert ("0.61", "BLEU score") in claims
    assert ("0.7", "perplexity") in claims
    assert any(value == "2.2" for value, _ in claims)
    assert not any(value == "4" for value, _ in claims)
