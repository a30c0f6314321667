"""The answering sentences code ranks over a page: the kind of answer asked for, in the unit asked
for, and sentences read without the section heading a flattened page ran into them."""

from __future__ import annotations

import pytest

from frontier.synthesize.answering import (
    Answering,
    Candidate,
    asked_units,
    distinct,
    holds_kind,
    holds_unit,
    is_answer_like,
    is_read_row,
    page_units,
    premise_words,
    rank,
    without_heading,
)
from frontier.synthesize.ask import MISSING_KIND, quote_lines
from frontier.synthesize.meaning import (
    A_QUESTION,
    ECHO,
    FRAGMENT,
    NOTATION,
    SELF_COMPARED,
    TAUTOLOGY,
    fact_fault,
    facts_in,
    says_nothing,
    shipped_similarity,
)
from frontier.text import prose_sentences as sentences_of


def _candidates(sentences: list[str]) -> list[Candidate]:
    return [Candidate(1, "p1", 4, s, " ".join(sentences), "Efficient inference") for s in sentences]


def _ranked(question: str, sentences: list[str]) -> list[Answering]:
    """The sentences of one page, best answer to the question first."""
    return rank(question, _candidates(sentences), shipped_similarity())


def test_a_how_much_slower_question_is_answered_by_the_ratio_not_the_models_size() -> None:
    question = (
        "How much slower is decoding on PaLM 540B with a serial block instead of a parallel one?"
    )
    sentences = [
        "We consider a variant of PaLM 540B with the serial block in place of the parallel block.",
        "The serial block incurs 14% higher decoding latency per step than the parallel block.",
        "We use a context length of 2048 tokens and sweep over the batch size for PaLM 540B.",
    ]
    best = _ranked(question, sentences)[0]
    assert "14%" in best.text


def test_a_how_long_question_wants_a_time() -> None:
    question = "How long does it take to quantize LLaMA-65B with the method?"
    assert asked_units(question)
    sentences = [
        "We quantize LLaMA-65B with 3-bit weights and report perplexity on three datasets.",
        "To quantize each layer, the method solves a small least-squares problem per row.",
        "We quantize the models with a group size of 16 and keep outliers in 16 bits.",
        "Our implementation takes around 4.5 hours on the largest model (65B) on one A100.",
        "Quantized models keep their accuracy within 1% of the 16-bit baseline.",
    ]
    assert "4.5 hours" in _ranked(question, sentences)[0].text


def test_a_number_the_question_gives_or_a_model_size_is_no_quantity_answer() -> None:
    given = frozenset({"540"})
    assert not holds_kind("quantity", "A variant of PaLM 540B is served.", given)
    assert not holds_kind("quantity", "We serve LLaMA 65B on the cluster.", frozenset())
    assert holds_kind("quantity", "It adds 14% to the latency of PaLM 540B.", given)


def test_a_numbered_heading_run_into_its_first_sentence_is_cut_off() -> None:
    assert (
        without_heading("4.3 Parallel attention layers We consider a variant of the model.")
        == "We consider a variant of the model."
    )
    assert (
        without_heading("5.3 A Note on Power Consumption In evaluating our method, we compare.")
        == "In evaluating our method, we compare."
    )
    # a heading that opens with a coined name written in lower case
    assert (
        without_heading("5 vAttention: Design and Implementation Our primary goal is speed.")
        == "Our primary goal is speed."
    )
    # a sentence that opens with a number is not a heading
    assert without_heading("16 GPUs are used. We run") == "16 GPUs are used. We run"
    assert without_heading("2 Preliminaries.") == "2 Preliminaries."
    # a heading with no number before a sentence opening on a pointer at a figure
    assert (
        without_heading("Finetuning on Task-Specific Dataset In Figure 10b, we compare runs.")
        == "In Figure 10b, we compare runs."
    )
    # a heading before a sentence opening on a participle
    assert (
        without_heading("5.3.1 Analysis of Cache Capacity Considering the model, it is 320 KB.")
        == "Considering the model, it is 320 KB."
    )
    assert without_heading("3 Table 3 shows a 2.4× speed-up.") == "Table 3 shows a 2.4× speed-up."
    # a footnote's mark run into its sentence
    note = "1 It is notable that, by data, we often refer to the weights of the network."
    assert without_heading(note) == note[2:]
    assert without_heading("2 GPUs share one cache.") == "2 GPUs share one cache."
    assert without_heading("8 Figure-level gains") == "8 Figure-level gains"
    units = page_units("7 Conclusion We introduce a kernel that fuses prefill and decode.")
    assert units == ["We introduce a kernel that fuses prefill and decode."]


def test_praise_around_the_question_s_own_words_is_an_echo() -> None:
    """'More efficient', 'scalable', 'a key aspect of the new architecture' add no fact to the
    question's words; a mechanism, however briefly named, does."""
    question = "How does a router cut the cost of moving requests between replicas?"
    praise = (
        "This policy allows for a more efficient and scalable moving of requests between "
        "replicas, which is a key aspect of the new architecture of the router [2]."
    )
    assert says_nothing(praise, question) == ECHO
    answer = "The router copies the KV cache of a request while it keeps decoding [1]."
    assert says_nothing(answer, question) == ""


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        # replies of the embedded model that the other checks let through
        ("183% more expensive than 183% less efficient [3].", SELF_COMPARED),
        ("The speedup of T5-XXL compared to T5-XXL is due to a small model [1].", SELF_COMPARED),
        ("Block-sparse FlashAttention is 2-4x faster than FlashAttention [2].", ""),
        ("The T5 sizes used as target and draft were 3B and 3B, respectively [3].", SELF_COMPARED),
        ("The draft and target sizes were 60M and 11B, respectively [2].", ""),
        # a number said again away from its comparison is no comparison with itself
        (
            "REST first tries a suffix of 16 tokens, setting nmax to 16, since only few cases "
            "lead to a maximum match of more than 16 tokens.",
            "",
        ),
        (
            "Logical blocks 0 and 1 are mapped to physical blocks 7 and 1, holding four and three "
            "tokens respectively.",
            "",
        ),
        # notation names symbols; a setting written with a symbol is a fact
        ("We use x ∈ V to denote a token where V is the vocabulary.", NOTATION),
        ("Let M_p be the target model and M_q the approximation model.", NOTATION),
        ("Let the batch size b be 32.", ""),
        ('We use the term "prefill" to denote the first iteration of a request.', ""),
        ("We denote the method as FlashAttention-2.", ""),
        ("Here, V denotes the vocabulary and x a token.", NOTATION),
        ("The latency grows linearly with L, where L denotes the sequence length.", ""),
        ("N is the target bit number.", NOTATION),
        ("Where d represents the head dimension of the model.", NOTATION),
        ("N is the target bit number, set to 4 in all runs.", ""),
    ],
)
def test_a_number_or_a_name_set_against_itself_says_nothing(sentence: str, reason: str) -> None:
    assert says_nothing(sentence) == reason


def test_a_question_or_a_sentence_whose_subject_was_cut_is_no_answer() -> None:
    echoed = "Question: How much latency does mapping a page add per iteration in vAttention [1]?"
    assert says_nothing(echoed) == A_QUESTION
    assert says_nothing("Can paging alone close that gap?") == A_QUESTION
    cut = "(2023) suggests that speculative decoding is hard to use with batched inference [7]."
    assert says_nothing(cut) == FRAGMENT
    whole = "Xia et al. (2023) find speculative decoding hard to use with batched inference [7]."
    assert says_nothing(whole) == ""


def test_a_tautology_says_one_thing_twice_with_little_else() -> None:
    empty = (
        "This is a fixed block size that is used to manage the KV cache, which is a fixed-size "
        "KV cache that is used to store the KV cache."
    )
    assert says_nothing(empty) == TAUTOLOGY
    # naming a thing again around new facts says something, and a page's such sentence answers
    full = (
        "We observe that tile-quantization can dramatically increase prefill computation time, "
        "e.g., using chunk size of 257 can increase prefill time by 32% compared to chunk size 256."
    )
    assert says_nothing(full) == ""
    assert page_units(full) == [full]
    # the same words around two numbers are two facts
    paired = "About 183% more area, versus about 53% more area with a 16-bit accumulator."
    assert says_nothing(paired) == ""


def test_a_sentence_citing_others_by_author_and_year_is_still_an_answer() -> None:
    cited = (
        "Our calibration data consists of 128 random 2048-token segments from the C4 dataset "
        "(Raffel et al., 2020), i.e., excerpts from randomly crawled websites."
    )
    assert is_answer_like(cited)
    entry = "[12] A. Author and B. Author. Fast decoding. In Proceedings of MLSys, pp. 1-12, 2023."
    assert not is_answer_like(entry)


def test_a_table_is_read_as_rows_under_its_caption_with_units_kept_in_their_cells() -> None:
    page = "\n".join(
        [
            "Table 2: GPT-2 training time with each implementation on 8 A100 GPUs.",
            "Model implementations OpenWebText (ppl) Training time (speedup)",
            "GPT-2 small - Huggingface [87] 18.2 9.5 days (1.0×)",
            "GPT-2 small - FlashAttention 18.2 2.7 days (3.5×)",
            "Long-range Arena. We compare the vanilla Transformer on the long-range arena.",
            "Batch size 1 2 4 8",
            "vLLM 10.1 20.3 40.2 80.5",
        ]
    )
    units = page_units(page)
    assert "Table 2 row, GPT-2 small FlashAttention: 18.2, 2.7 days, (3.5×)" in units
    assert "Table 2 row, GPT-2 small Huggingface: 18.2, 9.5 days, (1.0×)" in units
    # a sweep's first row names the columns; a caption is used by one table only
    assert (
        "Table row, vLLM: Batch size 1: 10.1, Batch size 2: 20.3, Batch size 4: 40.2, "
        "Batch size 8: 80.5"
    ) in units


def test_a_sentence_a_table_cut_in_two_is_read_whole_and_the_caption_apart() -> None:
    page = "\n".join(
        [
            "Each GPU has 80GB physical memory. We",
            "Yi-6B 1 A100 32 4 32",
            "Yi-34B 2 A100s 56 8 60",
            "Table 5. Models and hardware used for evaluation.",
            "use tensor parallelism of degree two for Yi-34B.",
        ]
    )
    units = page_units(page)
    assert "We use tensor parallelism of degree two for Yi-34B." in units
    assert "Table 5. Models and hardware used for evaluation." in units
    assert "Table 5 row, Yi-6B A100: 1, 32, 4, 32" in units
    assert without_heading("Models and hardware: We evaluate three models.") == (
        "We evaluate three models."
    )


def test_the_top_sentences_say_different_things() -> None:
    ranked = [
        Answering(
            1, "p1", 1, "We introduce Spec-Bench, a benchmark for speculative decoding.", 9.0
        ),
        Answering(
            2,
            "p1",
            2,
            "We introduce Spec-Bench, an extensive benchmark for speculative decoding.",
            8.9,
        ),
        Answering(
            1, "p1", 5, "We composed Spec-Bench from 80 instances of each of six datasets.", 8.0
        ),
    ]
    assert [a.page for a in distinct(ranked)] == [1, 5]


def test_a_how_much_of_question_asks_for_a_share() -> None:
    question = (
        "How much of each iteration does the CPU-side scheduling occupy once it is asynchronous?"
    )
    assert holds_unit(
        asked_units(question), "It cuts the overhead to 2% of the iteration.", frozenset()
    )
    assert not holds_unit(asked_units(question), "It runs within 10 minutes offline.", frozenset())


def test_a_citation_or_an_abbreviation_does_not_end_a_sentence() -> None:
    text = (
        "Leviathan et al. (2023) used T5-small as the drafter, e.g. for XSum. See Fig. 3 for the "
        "speedups. The gains follow Chen et al. [5]. It ends here."
    )
    assert sentences_of(text) == [
        "Leviathan et al. (2023) used T5-small as the drafter, e.g. for XSum.",
        "See Fig. 3 for the speedups.",
        "The gains follow Chen et al. [5].",
        "It ends here.",
    ]


def test_four_and_a_half_hours_is_the_number_four_and_a_half_in_hours() -> None:
    facts = facts_in("It needs roughly four and a half hours on one A100.")
    assert [(f.value, f.unit) for f in facts] == [(4.5, "time")]


def test_half_precision_and_a_named_half_count_nothing_a_half_of_something_does() -> None:
    assert facts_in("All runs use half precision and greedy decoding.") == []
    assert facts_in("Prefill only runs the self-decoder half, then exits.") == []
    assert facts_in("The first half of the layers are skipped.") == []
    assert [f.value for f in facts_in("Paging cuts the cache by half.")] == [0.5]
    assert [f.value for f in facts_in("It uses half the memory of vLLM.")] == [0.5]


def test_a_figures_axis_labels_read_into_the_text_are_no_answer() -> None:
    axis = "Batch Size 0 1000 2000 Execution Time (ms) ft(32) orca(32) ft(128) (b) 101B model."
    assert not is_answer_like(axis)
    assert is_answer_like("It runs each iteration with a max batch size of 2 on 8 A100 GPUs.")


def test_a_question_a_title_block_a_table_head_or_a_bare_heading_is_no_answer() -> None:
    asks = "There are two questions a cache manager must answer here: which blocks should it evict?"
    title = (
        "Fast Decoding of Transformers Ada Lovelace * 1 Alan Turing * 1 Grace Hopper 1 "
        "Abstract Decoding K tokens from a large model takes K serial runs of it."
    )
    head = "Model Tokens/sec ↑ Time (sec) ↓ Speed-up ↑ baseline ours ours on 100 samples."
    heading = "3.4 Analysis Better data-efficiency for the calibration set."
    run_in = "7 Related Work LLM serving optimizations."
    for text in (asks, title, head, heading, run_in):
        assert not is_answer_like(text), text
    assert is_answer_like("3.4 Our calibration set holds 128 segments of 2048 tokens each.")
    assert is_answer_like("2 Both runs are done on 8 A100 GPUs.")
    assert is_answer_like("Our calibration data consists of 128 random segments from C4.")


def test_a_sentence_pointing_at_a_figure_ranks_below_one_stating_the_answer() -> None:
    pointer = (
        "Figure 4 depicts how the iteration-level scheduler can avoid running out of cache memory."
    )
    stating = (
        "It reserves room for the keys and values of a request when it first schedules it, so "
        "no iteration runs out of memory."
    )
    ranked = rank(
        "How does the iteration-level scheduler avoid running out of cache memory?",
        _candidates([pointer, stating]),
        shipped_similarity(),
    )
    assert ranked[0].text == stating


def test_a_list_the_sentence_ends_cut_is_read_as_one_unit() -> None:
    page = (
        "The challenges of batching lie in two aspects: (1) each sequence accepts a different "
        "number of tokens per step. Thus, a batch waits for its slowest sequence; (2) the extra "
        "work of verification grows with the batch size. We study both."
    )
    units = page_units(page)
    assert units[0].startswith("The challenges") and "(2) the extra work" in units[0]
    assert units[1] == "We study both."


def test_a_quotation_never_closed_is_a_fragment_and_a_quote_drops_its_reference_marks() -> None:
    copied = '"We evaluate the impact of the kernel on training. We validate two claims about it.'
    assert says_nothing(copied) == "a fragment, not a sentence"
    assert not says_nothing('This paper introduces "Double Sparsity," a sparse attention method.')
    shown = quote_lines(
        [Answering(2, "p1", 7, "It beats the record [58] by 15%, and Megatron [77].", 9.0)]
    )
    assert shown == '- "It beats the record by 15%, and Megatron." [2]'


def test_quotes_that_hold_no_answer_of_the_kind_asked_say_so_first() -> None:
    question = "Which GPUs was LayerSkip evaluated on?"
    context = [Answering(1, "p1", 3, "LayerSkip speeds up decoding by up to 2.16x on CNN/DM.", 9.0)]
    shown = quote_lines(context, question).splitlines()
    assert shown[0] == MISSING_KIND.format(kind="an accelerator")
    assert shown[1].startswith('- "LayerSkip speeds up')
    answered = [*context, Answering(2, "p1", 5, "All runs use 8 A100 GPUs with 80 GB each.", 8.0)]
    assert quote_lines(answered, question).startswith('- "LayerSkip')
    assert quote_lines(context).startswith('- "LayerSkip')  # no question, no judgement


def test_a_question_asking_what_something_saves_is_answered_by_a_change_not_a_size() -> None:
    question = "How much memory does S-LoRA save by unified paging?"
    size = [Answering(1, "p1", 7, "The S-LoRA host memory ranges from 64 GB to 670 GB.", 9.0)]
    assert quote_lines(size, question).startswith(MISSING_KIND.format(kind="a number"))
    for saving in (
        "Unified paging saves 12 GB of GPU memory per batch.",
        "It reduces the memory held by adapters by 40%.",
        "The pool needs 3.5 GB less than separate allocation.",
    ):
        answered = [*size, Answering(2, "p1", 5, saving, 8.0)]
        assert quote_lines(answered, question).startswith('- "The S-LoRA host'), saving
    # a question without a change asked for takes any size in its unit
    assert quote_lines(size, "How much host memory does the testbed have?").startswith('- "')


def test_quotes_about_another_system_than_the_one_asked_about_say_so_first() -> None:
    from frontier.synthesize.ask import MISSING_SUBJECT
    from frontier.synthesize.bundle import Bundle, Source

    question = "What speed-up does Medusa get over autoregressive decoding on GPUs?"
    other = [Answering(1, "p1", 3, "EAGLE keeps a 2.4× speed-up over autoregressive decoding.", 9)]
    shown = quote_lines(other, question).splitlines()
    assert shown[0] == MISSING_SUBJECT.format(names="Medusa")
    named = [*other, Answering(2, "p2", 5, "Medusa-2 reaches a 2.8× speed-up on Vicuna.", 8.0)]
    assert quote_lines(named, question).startswith('- "EAGLE')
    # a sentence of the paper whose title names the system is about it
    bundle = Bundle([Source(1, "p1", "Medusa: Simple LLM Inference Acceleration", "", (3,), "")])
    assert quote_lines(other, question, bundle).startswith('- "EAGLE')
    # and of a paper whose abstract names it as its own work
    titled = Source(1, "p1", "Efficient Drafting with Multiple Heads", "", (3,), "")
    bundle = Bundle([titled], abstracts={"p1": "We present Medusa, a method that drafts ..."})
    assert quote_lines(other, question, bundle).startswith('- "EAGLE')
    # a page that cites the system in its related work is not about it, unless the sentence
    # beside the answering one names it
    cited = "Medusa (Cai et al., 2023) trains extra heads. Lookahead uses n-grams. " + (
        "We study other drafters. EAGLE keeps a 2.4× speed-up over autoregressive decoding."
    )
    bundle = Bundle([Source(1, "p1", "Drafting", "", (3,), cited)], {("p1", 3): cited})
    assert quote_lines(other, question, bundle).startswith(MISSING_SUBJECT.format(names="Medusa"))
    beside = "Medusa trains extra heads. " + cited.split(". ", 3)[3]
    bundle = Bundle([Source(1, "p1", "Drafting", "", (3,), beside)], {("p1", 3): beside})
    assert quote_lines(other, question, bundle).startswith('- "EAGLE')


def test_an_acronym_is_a_subject_when_a_sources_title_gives_it_as_its_system() -> None:
    from frontier.synthesize.ask import MISSING_SUBJECT
    from frontier.synthesize.bundle import Bundle, Source

    question = "What bit widths does AWQ quantize weights to?"
    other = [Answering(1, "p1", 3, "Prior formats quantize outliers to 8 bits as well.", 9.0)]
    titles = [
        Source(1, "p1", "SpQR: A Sparse-Quantized Representation", "", (3,), ""),
        Source(2, "p2", "AWQ: Activation-aware Weight Quantization", "", (1,), ""),
    ]
    shown = quote_lines(other, question, Bundle(titles))
    assert shown.startswith(MISSING_SUBJECT.format(names="AWQ"))
    # with no source naming it its system, an acronym may be the field's ("TTFT", "GPU")
    assert quote_lines(other, question, Bundle(titles[:1])).startswith('- "Prior formats')
    ttft = "What TTFT does SpQR reach on GPUs?"
    assert not quote_lines(other, ttft, Bundle(titles)).startswith(MISSING_SUBJECT[:20])


def test_a_paper_asked_for_by_its_authors_or_lab_is_about_them_and_models_are_no_subject() -> None:
    from frontier.synthesize.ask import MISSING_SUBJECT, subject_names
    from frontier.synthesize.bundle import Bundle, Source

    question = "In Dettmers and Zettlemoyer's scaling study, does perplexity track accuracy?"
    found = [Answering(1, "p1", 4, "Perplexity and zero-shot accuracy correlate closely.", 9.0)]
    paper = [Source(1, "p1", "The case for 4-bit precision", "", (4,), "")]
    byline = {"p1": "Tim Dettmers 1 Luke Zettlemoyer 1 University of Washington"}
    assert quote_lines(found, question, Bundle(paper, bylines=byline)).startswith('- "Perplexity')
    assert quote_lines(found, question, Bundle(paper)).startswith(MISSING_SUBJECT[:20])
    # a model the system runs, or a number format, is not what the question is about
    assert subject_names("On what GPUs were LLaMA 7B and Vicuna run by Orca?") == ["Orca"]
    assert subject_names("Does LLM.int8() run attention in Int8 or FP8-E4M3?") == ["LLM.int8()"]


def test_a_sentence_the_page_ends_inside_is_no_answer() -> None:
    assert not is_answer_like(
        '"vLLM++" has the same performance as "vLLM" because we find the de-11'
    )
    assert is_answer_like('"vLLM++" has the same performance as "vLLM" on every trace we replay.')


def test_a_section_and_subsection_heading_run_in_before_a_sentence_are_cut_off() -> None:
    chain = (
        "4.4 Dynamic Scheduling Policy 4.4.1 Goals and Definitions Llumnix's scheduling policy "
        "is designed with the following goals."
    )
    assert (
        without_heading(chain)
        == "Llumnix's scheduling policy is designed with the following goals."
    )
    assert without_heading("We run 4 GPUs on 2 nodes and 1.5 TB of memory in total.").startswith(
        "We run"
    )


def test_a_sentence_calling_a_model_a_gpu_or_a_gpu_a_model_is_not_its_source() -> None:
    """A small model copies the names right and says wrong what they are."""
    source = (
        "We evaluate across models and hardware: Mistral-7B on a single A100, and Falcon-180B "
        "with 2-way pipeline parallelism across 8 A100 GPUs."
    )
    wrong = "It was evaluated on Falcon-180B, which is a GPU that supports pipeline parallelism."
    assert fact_fault(wrong, source) == "calls the model Falcon-180B a GPU"
    assert fact_fault("The A100 model serves Mistral-7B.", source) == (
        "calls the hardware A100 a model"
    )
    assert fact_fault("Falcon-180B runs across 8 A100 GPUs.", source) == ""
    assert fact_fault("The OPT-13B GPU memory holds the KV cache.", "The OPT-13B GPU memory") == ""


def test_what_improvement_or_a_long_noun_phrase_asks_for_a_quantity() -> None:
    from frontier.synthesize.answering import asked_kinds, lacks_asked_kind

    assert "quantity" in asked_kinds("What throughput improvement does the system report?")
    assert "quantity" in asked_kinds("What default KV-cache block size does the engine use?")
    assert asked_units("What latency reduction does early exit give?")
    assert "quantity" not in asked_kinds("What scheduling policy does the engine use?")
    # a metric after "what" asks for its value: a sentence without a number does not answer it
    question = "What accuracy does the quantizer lose at W4A4 on the 7B model?"
    assert asked_kinds(question) == ["quantity"]
    assert lacks_asked_kind(question, "The quantizer calibrates weights and activations.")
    assert not lacks_asked_kind(question, "At W4A4 it loses 1.2 points of average accuracy.")
    assert "quantity" in asked_kinds("What is the end-to-end throughput of the engine?")
    assert "quantity" not in asked_kinds("What bounds the optimal throughput?")
    assert "model" not in asked_kinds("What batch size did the engine use for the 175B model?")
    assert "model" in asked_kinds("What model sizes were evaluated?")


def test_a_heading_without_a_number_run_into_a_sentence_is_cut_off() -> None:
    assert (
        without_heading("Serving 70B models with tensor parallelism We run the model on 8 GPUs.")
        == "We run the model on 8 GPUs."
    )
    assert without_heading(
        "3.2 The Core of LLM.int8(): Mixed-precision Decomposition In our analysis, we find x."
    ).startswith("In our analysis")
    # a sentence that opens with "We" or has a comma before it keeps every word
    for sentence in ("We run the model. We stop.", "Unlike prior work, We do x."):
        assert without_heading(sentence) == sentence


def test_the_items_of_a_bulleted_list_flattened_into_a_line_are_read_apart() -> None:
    units = page_units(
        "It improves serving throughput by up to 1.23× over FlashInfer • We show that the "
        "memory manager works with a kernel it was not written for."
    )
    assert units == [
        "It improves serving throughput by up to 1.23× over FlashInfer.",
        "We show that the memory manager works with a kernel it was not written for.",
    ]


def test_a_denial_its_source_does_not_make_is_a_fault_and_one_it_makes_in_other_words_is_not() -> (
    None
):
    source = (
        "With iteration-level scheduling, the scheduler decides which requests run in each "
        "iteration, so a new request starts after the current iteration."
    )
    made_up = "The scheduler does not decide which requests run in each iteration."
    assert fact_fault(made_up, source, "", "") == "denies something its source does not deny"
    limited = "The cache holds only the most recent four blocks of each sequence."
    said = "Older blocks of a sequence are not kept."
    assert fact_fault(said, limited, "", "") == ""


def test_a_what_precision_question_is_answered_by_a_numeric_format() -> None:
    question = "What precision does the method keep its outlier features in?"
    sentences = [
        "These outlier features are sparse, making up only about 0.1% of all feature dimensions.",
        "The outlier features of every layer are multiplied in 16-bit while the rest use 8-bit.",
        "Outlier features emerge in all layers of transformers beyond 6.7B parameters.",
    ]
    best = _ranked(question, sentences)[0]
    assert "16-bit" in best.text


def test_the_next_sections_heading_run_onto_a_sentences_end_is_cut_off() -> None:
    sentence = (
        "Virtual memory is abundant: a 64-bit system gives each process 128TB of it.2 "
        "5.1.1 Pre-reserving virtual memory."
    )
    assert without_heading(sentence) == (
        "Virtual memory is abundant: a 64-bit system gives each process 128TB of it."
    )
    assert without_heading("It rises 2.5 times. 3.1 is the version.") == (
        "It rises 2.5 times. 3.1 is the version."
    )


def test_beside_a_quote_naming_the_accelerator_asked_for_none_without_one_is_shown() -> None:
    from frontier.synthesize.answering import best_answering

    question = "Which GPUs did DistServe evaluate on?"
    sentences = [
        "Each node has 8 NVIDIA SXM A100-80GB GPUs connected with NVLINK.",
        "We evaluate the performance of DistServe on the chatbot application for all three OPT "
        "models.",
    ]
    ranked = _ranked(question, sentences)
    shown = best_answering(ranked, question=question)
    assert [a.text for a in shown] == [sentences[0]]


def test_a_cluster_told_by_its_size_answers_which_cluster_beside_a_named_accelerator() -> None:
    from frontier.synthesize.answering import _kind_score, best_answering

    question = "What GPU cluster was the system evaluated on, and what was the bandwidth?"
    sentences = [
        "Modern GPU clusters are often equipped with InfiniBand links of 800 Gbps.",
        "We deploy the system on a cluster with 4 nodes and 32 GPUs.",
        "We evaluate the performance of the system on the chatbot application.",
    ]
    shown = [a.text for a in best_answering(_ranked(question, sentences), question=question)]
    assert sentences[1] in shown
    assert sentences[2] not in shown
    # a cluster told by its size holds the kind asked, but less than an accelerator's name
    named = "Each node has 8 NVIDIA A100-80GB GPUs connected with NVLink."
    assert _kind_score(["hardware"], sentences[1]) < _kind_score(["hardware"], named) == 1.0
    generic = "Every run uses the GPUs of one cluster."
    assert _kind_score(["hardware"], sentences[1]) > _kind_score(["hardware"], generic) > 0


def test_a_number_pointing_at_a_figure_or_a_question_counts_nothing() -> None:
    assert not holds_kind("quantity", "We analyze the average GPU time, as shown in Figure 8.")
    assert not holds_kind("quantity", "To address Question 2, we examine the global cache pool.")
    assert holds_kind("quantity", "The prefill pool uses 16 GPUs, as Figure 8 shows.")


def test_the_words_a_question_grants_before_it_asks_weigh_less_than_what_it_asks() -> None:
    question = (
        "When the scheduler runs out of GPU memory for new requests, does it drop whole "
        "requests or swap their state to the host?"
    )
    assert {"sched", "memor"} <= premise_words(question)
    assert not premise_words("In the paper's setup, which GPUs were used?")
    sentences = [
        "The scheduler runs out of GPU memory for new requests when many long prompts arrive.",
        "In that case we swap the state of the newest requests to host memory and resume them "
        "later.",
    ]
    assert "swap" in _ranked(question, sentences)[0].text


def test_a_question_asking_for_the_best_is_answered_by_the_sentence_that_names_one() -> None:
    question = "Which draft length gives the largest speedup for the 7B target model?"
    sentences = [
        "We evaluate draft lengths of 2, 4 and 8 tokens with a 7B target model on an A100 GPU.",
        "A draft length of 4 gives the highest speedup, 2.1x over plain decoding.",
        "Longer drafts are rejected more often as the target model's distribution drifts.",
    ]
    assert "highest" in _ranked(question, sentences)[0].text


def test_a_how_question_is_answered_in_words_not_by_a_number_on_its_subject() -> None:
    question = "How does the server avoid recomputing a prompt prefix that many requests share?"
    sentences = [
        "Shared prompt prefixes take 4096 KV blocks on each of the 8 GPUs.",
        "It keeps the KV blocks of a shared prefix once and maps each later request onto them.",
        "Many requests share a long system prompt.",
    ]
    assert _ranked(question, sentences)[0].text.startswith("It keeps")


def test_a_configuration_question_is_answered_by_the_sentence_that_adjusts_the_setting() -> None:
    question = (
        "How was the 1B student model configured relative to its 7B teacher (width and depth)?"
    )
    sentences = [
        "We use 20B tokens of web text to distill the student.",
        "We adjust the hidden size to 2048 and the depth to 16 layers, half of the teacher's.",
        "The teacher has a width and a depth that suit large GPU clusters.",
    ]
    assert _ranked(question, sentences)[0].text.startswith("We adjust")


def test_numbers_restated_in_brackets_or_inside_a_hyphenated_word_keep_their_place() -> None:
    """'(about 900 ms)', 'model,' and 'batch-16' are the words 'about', 'model' and 16 of the
    source, not other words around another number."""
    source = (
        "On the 70B model, a prompt of 8k tokens takes about 900 ms to run, while a decode-only "
        "iteration with batch size 16 takes about 150 ms. Mixing the two can leave a bubble of "
        "about 750 ms."
    )
    said = (
        "Mixing an 8k-token prompt (about 900 ms) with a batch-16 decode-only iteration (about "
        "150 ms) on the 70B model can leave a bubble of about 750 ms."
    )
    assert fact_fault(said, source) == ""


def test_a_how_or_what_does_it_do_question_asks_for_a_mechanism_after_its_premise() -> None:
    from frontier.synthesize.answering import asked_kinds

    assert asked_kinds("The driver maps memory in 2MB pages; how does the engine map less?") == [
        "mechanism"
    ]
    assert "mechanism" in asked_kinds("What does the router do with a request it cannot place?")
    assert "mechanism" not in asked_kinds("What does the paper propose?")


FLIPPED = "states the opposite direction of its source"


def test_a_superlative_or_an_amount_said_the_other_way_is_a_flipped_direction() -> None:
    """'Smallest' for 'largest', 'negligible' for 'significant', 'trails' for 'outperforms':
    the same thing said to go the other way."""
    placing = "The router sends a new request to the replica with the largest batch that fits."
    assert fact_fault("It sends a new request to the replica with the smallest batch.", placing)
    assert not fact_fault("It sends a new request to the replica with the largest batch.", placing)
    overhead = "Copying the cache while decoding adds a significant overhead to each step."
    assert fact_fault("Copying while decoding adds a negligible overhead to each step.", overhead)
    ahead = "On long prompts the new kernel outperforms the paged kernel by 1.2x."
    assert fact_fault("On long prompts the new kernel trails the paged kernel by 1.2x.", ahead)
    # an adverb of degree says how, not how much: no direction of its own
    faster = "Fusing the two kernels greatly reduces the latency of each decoding step."
    assert not fact_fault("Fusing the two kernels significantly reduces the latency.", faster)


def test_a_word_of_the_same_kind_on_the_same_thing_is_no_flip_beside_an_opposite_elsewhere() -> (
    None
):
    """'The gap narrows' for 'the difference shrinks' says the same, though 'increased' stands
    on another quantity of the same sentence."""
    source = (
        "The serial block has higher latency because of the increased communication time. "
        "In prefill, this difference shrinks because the layouts incur less communication."
    )
    paraphrase = "In prefill the gap narrows because the layouts communicate less."
    assert fact_fault(paraphrase, source) == ""
    grows = "In prefill, this difference grows because the layouts incur less communication."
    assert fact_fault(grows, source) == FLIPPED


def test_a_comparison_turned_round_is_a_flipped_direction() -> None:
    """'A scales better than B' where the page says B still scales better: the same word, on
    the same thing, of the other item."""
    source = "Outlier handling helps 3-bit models. Yet 4-bit precision still gives better scaling."
    assert fact_fault("3-bit models give better scaling than 4-bit ones.", source) == FLIPPED
    assert fact_fault("4-bit models give better scaling than 3-bit ones.", source) == ""
    throughput = "DistServe serves 2x more requests than vLLM on the chat workload."
    assert fact_fault("vLLM serves 2x more requests than DistServe.", throughput) == FLIPPED
    assert fact_fault("DistServe serves 2x more requests than vLLM.", throughput) == ""


def test_a_source_doing_away_with_something_is_said_as_a_negation() -> None:
    source = "QuillKV keeps its cache contiguous, eliminating the need for a page table."
    assert fact_fault("QuillKV needs no page table since its cache is contiguous.", source) == ""
    states = "QuillKV keeps its cache contiguous and looks up a page table on every step."
    assert fact_fault("QuillKV needs no page table since its cache is contiguous.", states)


def test_the_two_things_just_named_are_no_count_and_the_faster_of_the_two_is_held() -> None:
    source = "A prompt takes 1150 ms and a decode step takes 200 ms."
    assert fact_fault("Mixing the two can stall decodes for a while.", source) == ""
    nccl = "A potential alternative is NCCL, which is generally faster than Gloo on GPUs."
    assert fact_fault("NCCL is generally the faster of the two on GPUs.", nccl) == ""
    assert fact_fault("Gloo is generally the faster of the two on GPUs.", nccl) == FLIPPED


@pytest.mark.parametrize(
    ("source", "faithful", "turned"),
    [
        (  # a gain word against a quantity that goes the other way
            "The serial layout incurs 14% higher latency per step than the parallel one.",
            "The serial layout makes each step about 14% slower than the parallel one.",
            "The serial layout makes each step about 14% faster than the parallel one.",
        ),
        (  # the same gain word, turned by "less"
            "The overhead could be reduced by a more efficient implementation.",
            "A more efficient implementation could cut the overhead.",
            "A less efficient implementation could cut the overhead.",
        ),
        (  # "batches" and "batch" are one thing
            "The extra computation of drafting grows with larger batch sizes.",
            "The extra computation grows as batches get larger.",
            "The extra computation grows as batches get smaller.",
        ),
        (  # a comparative written onto its noun
            "It requires writing kernels in a considerably lower-level language than PyTorch.",
            "Kernels must be written in a much lower-level language than PyTorch.",
            "Kernels must be written in a much higher-level language than PyTorch.",
        ),
        (  # maximize and minimize are directions too
            "Reading several streams at once is meant to maximize read throughput.",
            "Several streams are read at once for higher read throughput.",
            "Several streams are read at once for lower read throughput.",
        ),
    ],
)
def test_a_direction_said_in_other_words_is_held_and_its_opposite_is_a_flip(
    source: str, faithful: str, turned: str
) -> None:
    assert fact_fault(faithful, source) == ""
    assert fact_fault(turned, source) == FLIPPED


def test_a_typeset_apostrophe_still_negates() -> None:
    """'isn’t increased' on a PDF page denies as 'isn't increased' does."""
    source = "When the draft is accepted, the total number of operations isn’t increased."
    assert (
        fact_fault(
            "When the draft is accepted, the number of operations does not increase.", source
        )
        == ""
    )


@pytest.mark.parametrize(
    ("sentence", "source"),
    [
        # 'reduced by a leaner implementation or amortized over larger models': larger is said
        # of the models, not of what a leaner implementation cuts
        (
            "The 35% Python overhead is a cost a leaner implementation could cut or bigger "
            "models could spread out.",
            "Our implementation has 35% overhead from Python, which could be reduced by a more "
            "efficient implementation or amortized over larger models.",
        ),
        # 'cannot be fetched while that layer runs': 'while' and what follows it are when, not
        # what is denied; the page saying the layer runs is no contradiction
        (
            "MoE experts cannot be fetched while that layer runs.",
            "Dense models pre-load the next layer while the previous layer is still running. "
            "MoE models pick experts from the previous layer's outputs, so they cannot be "
            "pre-fetched in parallel.",
        ),
    ],
    ids=["a change word ends at its clause", "a negation denies its verb, not the clause after"],
)
def test_a_word_is_read_within_its_clause(sentence: str, source: str) -> None:
    assert fact_fault(sentence, source) == ""


def test_still_below_a_limit_says_what_has_not_reached_it_says() -> None:
    source = "A request goes to a replica that has not yet reached the max batch size."
    below = "A request goes to a replica whose batch is still below the max batch size."
    assert fact_fault(below, source) == ""
    assert fact_fault("A request goes to a replica at the max batch size.", source) == (
        "drops the negation of its source"
    )


def test_lacking_something_denies_having_it() -> None:
    source = "The scheduler has a global view of the state of all the GPUs."
    assert fact_fault("The scheduler lacks a global view of the GPUs.", source).startswith("denies")
    assert fact_fault("The scheduler has a global view of all the GPUs.", source) == ""


def test_a_line_ending_in_a_list_of_citations_is_prose_not_a_table_row() -> None:
    """'parallel decoding [16, 69, 39, 59] has been explored' holds numbers only as citations:
    shown as a 'row' it would be a list of bare numbers."""
    page = (
        "Decoding is slow.\nTo overcome this, parallel decoding [16, 69, 39, 59, 70, 52, 37, 15, 19] "
        "has been explored\nbut it needs training.\nTable 1: Results.\nOPT-13B 1.2 3.4 5.6 [12]"
    )
    units = page_units(page)
    assert not any(is_read_row(u) and "parallel decoding" in u for u in units)
    assert any(u.startswith("To overcome this") and u.endswith("training.") for u in units)
    assert "Table 1 row, OPT-13B: 1.2, 3.4, 5.6" in units


def test_an_algorithms_listing_read_as_one_line_is_no_answer() -> None:
    listing = (
        "1: Input: Context s, datastore D, maximum suffix length nmax 2: Initialize n ← nmax "
        "3: Initialize S ← ∅ 4: while S = ∅ do 5: q ← suffix(s, n) 6: n ← n − 1."
    )
    assert not is_answer_like(listing)
    assert is_answer_like("We set nmax as 16 in our experiments, as few matches are longer.")


def test_a_pointer_to_a_later_section_or_an_artifact_ranks_below_the_answer() -> None:
    question = "How does the engine keep the KV cache of one request in one place?"
    pointer = "We first introduce how the engine keeps the KV cache of one request in §3.2.1."
    artifact = "This artifact includes the scripts that measure the KV cache of each request."
    stating = (
        "The engine keeps the KV cache of a request in one virtual range, mapping physical "
        "pages into it on demand."
    )
    ranked = rank(question, _candidates([pointer, artifact, stating]), shipped_similarity())
    assert ranked[0].text == stating
    assert ranked[0].score - ranked[1].score > 1.0, "each loses what pointing costs"


def test_a_unit_written_onto_a_number_or_a_name_after_the_verb_is_given_not_asked() -> None:
    from frontier.synthesize.answering import asked_kinds

    question = "What magnitude threshold does LLM.int8() use to pick the outliers kept in 16-bit?"
    assert asked_kinds(question)[0] == "quantity" and "model" not in asked_kinds(question)
    assert not asked_units(question)
    assert asked_units("How many bits does each outlier weight cost?")
    assert "model" in asked_kinds("Which draft model gave the largest speed-up?")
    assert asked_kinds("What is the longest suffix it tries to match first?") == ["quantity"]


def test_a_sentence_a_plot_cut_in_two_is_read_whole_and_the_plot_s_words_apart() -> None:
    page = "\n".join(
        [
            "We built the benchmark by sampling 80 prompts from each of six",
            "public datasets, including ChatSet (Lee et al.,",
            "1 1.2 1.4 1.6 1.8 2",
            "Dialogue",
            "Translation",
            "Draft-A Draft-B",
            "Figure 5: Speed-up of each method on the",
            "benchmark (T = 0). Runs use one GPU with",
            "batch size 1. Details are in Appendix C.",
            "2023), NewsSum (Kim et al., 2021), and MathQA.",
            "The next paragraph starts here.",
        ]
    )
    units = page_units(page)
    assert (
        "We built the benchmark by sampling 80 prompts from each of six public datasets, "
        "including ChatSet (Lee et al., 2023), NewsSum (Kim et al., 2021), and MathQA."
    ) in units
    caption = next(unit for unit in units if unit.startswith("Figure 5"))
    assert caption.endswith("Details are in Appendix C.")
    assert not any("Dialogue" in unit for unit in units)
    assert units[-1] == "The next paragraph starts here."


def test_what_the_source_says_of_one_item_said_of_another_fails() -> None:
    source = (
        "Short prompts are served best by the 4-bit kernel, while long prompts run fastest "
        "with the 8-bit kernel because its dequantization cost is hidden behind memory reads."
    )
    swapped = (
        "Short prompts are served best by the 8-bit kernel, while long prompts run fastest "
        "with the 4-bit kernel."
    )
    faithful = "The 8-bit kernel is fastest for long prompts, and the 4-bit one for short ones."
    assert fact_fault(swapped, source) == "says of one item what its source says of another"
    assert fact_fault(faithful, source) == ""


def test_a_sentence_stating_what_its_source_denies_with_an_adverb_drops_the_negation() -> None:
    source = "Today's serving engines do not fully utilize the memory bandwidth of the GPU."
    dropped = "Today's serving engines make full use of the GPU's memory bandwidth."
    assert fact_fault(dropped, source) == "drops the negation of its source"
    assert fact_fault("The engines leave part of the GPU's memory bandwidth unused.", source) == ""


def test_a_small_share_where_the_source_says_most_is_the_opposite() -> None:
    source = "Even with the larger pool, most of the requests are still served from the host cache."
    wrong = (
        "With the larger pool, only a small share of the requests are served from the host cache."
    )
    assert fact_fault(wrong, source) == "states the opposite direction of its source"
    assert fact_fault("The host cache still serves most of the requests.", source) == ""


def test_a_sentence_announcing_the_reasons_after_it_ranks_below_one_giving_them() -> None:
    question = "Why does the scheduler split long prompts into chunks?"
    announcing = "Prompt chunking in the scheduler is hinged on two key insights."
    giving = (
        "A chunk of a few hundred tokens already saturates the GPU's compute, so splitting a long "
        "prompt costs little while decodes ride along in the same batch."
    )
    ranked = rank(question, _candidates([announcing, giving]), shipped_similarity())
    assert ranked[0].text == giving
    assert ranked[0].score - ranked[1].score > 1.0, "announcing costs what pointing costs"


def test_a_question_naming_a_system_is_answered_only_by_sentences_about_it() -> None:
    from frontier.synthesize.ask import answering_sentences
    from frontier.synthesize.bundle import Bundle, Source

    other = (
        "We run the compressed OPT-175B model on a single NVIDIA A100 GPU for the first time. "
        "Quantization to 3 bits keeps perplexity within 0.3 points of the FP16 model."
    )
    own = (
        "For OPT-175B, DistServe places prefill and decoding instances on 4 nodes with "
        "8 NVIDIA A100 GPUs each. The KV cache moves over NVLink within a node."
    )
    sources = [
        Source(1, "p1", "Accurate Post-Training Quantization", "", (2,), other),
        Source(2, "p2", "DistServe: Disaggregating Prefill and Decoding", "", (9,), own),
    ]
    bundle = Bundle(sources, {("p1", 2): other, ("p2", 9): own})
    shown = answering_sentences(bundle, "How many GPUs does DistServe use for OPT-175B?")
    assert shown and all(a.paper_id == "p2" for a in shown)
    assert "4 nodes" in shown[0].text
    # with no system named, the closest sentence leads whoever it is about
    unnamed = answering_sentences(bundle, "On how many GPUs has OPT-175B been run?")
    assert {a.paper_id for a in unnamed} == {"p1", "p2"}


def test_each_part_of_a_question_asking_two_things_gets_a_sentence_that_answers_it() -> None:
    from frontier.synthesize.answering import question_parts

    question = "Which long-context model and which GPUs did the LoongServe evaluation use?"
    assert question_parts(question) == [
        "Which long-context model",
        "which GPUs did the LoongServe evaluation use",
    ]
    assert question_parts("How does paging trade memory and latency?") == [
        "How does paging trade memory and latency?"
    ]
    page = (
        "We evaluate LoongServe on servers each with eight NVIDIA A800 80GB GPUs, 128 CPUs and "
        "four 200 Gbps InfiniBand NICs. Most experiments run on a single server of the cluster, "
        "and the servers of the cluster are linked by InfiniBand. We use the LWM-1M-Text model "
        "as the long-context LLM in our evaluation."
    )
    shown = _shown_for(question, page)
    assert any("A800" in text for text in shown) and any("LWM-1M-Text" in text for text in shown)
    # a part asked in words is answered by a sentence holding what only it asks about
    question = "Which library does LoongServe use to move KV caches, and why not NCCL?"
    page = (
        "LoongServe moves KV caches with the Gloo library between instances. Gloo copies each "
        "cache through host memory, in its own CUDA stream. Concurrent calls into NCCL are "
        "unsafe while inference kernels run on the same GPUs."
    )
    shown = _shown_for(question, page)
    assert "Gloo library" in shown[0] and any("NCCL" in text for text in shown)


def _shown_for(question: str, page: str) -> list[str]:
    """The answering sentences `ask` shows for a question over one page of a paper."""
    from frontier.synthesize.ask import answering_sentences
    from frontier.synthesize.bundle import Bundle, Source

    source = Source(1, "p1", "LoongServe: Elastic Sequence Parallelism", "", (9,), page)
    return [a.text for a in answering_sentences(Bundle([source], {("p1", 9): page}), question)]


def test_a_number_after_an_arrow_is_a_fact_not_part_of_a_name() -> None:
    source = (
        "We can see that FP8-E4->16-bit requires 53% more gates, and FP8-E4->32-bit requires "
        "183% more gates for an implementation in hardware."
    )
    said = "Building FP8-E4 in hardware takes 53% more gates with a 16-bit accumulator."
    assert fact_fault(said, source, "", "") == ""
    assert fact_fault(said.replace("16-bit", "24-bit"), source, "", "")


def test_a_dash_after_a_sentences_end_opens_a_list_item_elsewhere_it_sets_off_a_phrase() -> None:
    page = (
        "Our INT8 model achieves up to 5.19x speedup on A100 GPUs. – The distillation step "
        "takes 31 seconds per task. We present QuillKV – a cache manager for long prompts."
    )
    assert page_units(page) == [
        "Our INT8 model achieves up to 5.19x speedup on A100 GPUs.",
        "The distillation step takes 31 seconds per task.",
        "We present QuillKV – a cache manager for long prompts.",
    ]


def test_a_section_heading_on_its_own_line_ends_the_sentence_before_it() -> None:
    page = (
        "The distillation costs about 0.02% of the full pre-training cost (128 GPUs for 120 hours)\n"
        "5.3 Latency Reduction of BERT and GPT-3-style Models\n"
        "We compare the inference speed of BERT between FP16 and INT8 on a single GPU.\n"
        "3.4 Analysis\n"
        "Better data-efficiency for the calibration set. Our method requires a smaller set.\n"
        "Each node of the cluster holds\n"
        "8 NVIDIA A100 GPUs\n"
        "connected with NVLink."
    )
    assert page_units(page) == [
        "The distillation costs about 0.02% of the full pre-training cost (128 GPUs for 120 hours)",
        "We compare the inference speed of BERT between FP16 and INT8 on a single GPU.",
        "Better data-efficiency for the calibration set.",
        "Our method requires a smaller set.",
        "Each node of the cluster holds 8 NVIDIA A100 GPUs connected with NVLink.",
    ]
    assert not is_answer_like("Better data-efficiency for the calibration set.")
    assert is_answer_like("Our method requires a smaller calibration set.")


def test_a_why_question_ranks_a_reason_above_sentences_that_only_say_what() -> None:
    question = "What makes speculative decoding hard to use with batched inference?"
    reason = (
        "The sequences of a batch accept different numbers of drafted tokens; thus the "
        "latency of a batch depends on its slowest sequence."
    )
    sentences = [
        "Speculative decoding with batched inference warrants further investigation.",
        "Speculative decoding has been combined with contrastive decoding for better quality.",
        "Only a few speculative decoding implementations support batched inference so far.",
        reason,
    ]
    ranked = _ranked(question, sentences)
    assert ranked.index(next(a for a in ranked if a.text == reason)) < 3


def test_faster_or_slower_is_held_to_the_times_its_source_gives() -> None:
    source = (
        "For the largest model, a single prompt of 4k tokens takes about 1150 ms to execute "
        "compared to a decode-only iteration with batch size 32 which would take about 200 ms."
    )
    flipped = "A 4k-token prompt executes faster than a decode-only iteration with batch size 32."
    assert fact_fault(flipped, source, "", "") != ""
    kept = "A 4k-token prompt executes slower than a decode-only iteration with batch size 32."
    assert fact_fault(kept, source, "", "") == ""
    turned = "A decode-only iteration with batch size 32 runs faster than a 4k-token prompt."
    assert fact_fault(turned, source, "", "") == ""


def test_a_value_given_by_its_symbol_answers_when_a_sentence_beside_it_names_the_symbol() -> None:
    question = "What threshold does QuillQuant use to decide which dimensions are outliers?"
    value = "In our work, we find that α = 6.0 is sufficient to keep the degradation close to zero."
    sentences = [
        "We separate the outlier dimensions, those with a magnitude larger than the threshold α.",
        value,
        "Outliers emerge in every layer of models beyond 6.7B parameters.",
        "QuillQuant multiplies the outlier dimensions in 16-bit and the rest in 8-bit.",
    ]
    from frontier.synthesize.answering import best_answering

    shown = best_answering(_ranked(question, sentences), question=question)
    assert value in [a.text for a in shown]


def test_a_value_written_as_a_symbol_of_a_number_answers_when_a_sentence_names_it() -> None:
    question = "How much bandwidth does QuillCache need before loading a prefix beats recomputing?"
    value = "For a 70B model on eight GPUs, Equation 2 yields a minimum required B of 6 GB/s."
    sentences = [
        "Loading pays off when the bandwidth B keeps up with the computation throughput G.",
        value,
        "We recommend a network of 100 Gbps for the best performance of the whole system.",
        "The transfer engine reaches 87 GB/s when it moves 40 GB of cache between nodes.",
        "When the network falls below 100 Gbps, the whole system slows down noticeably.",
    ]
    from frontier.synthesize.answering import best_answering

    shown = best_answering(_ranked(question, sentences), question=question)
    assert shown[0].text == value


def test_a_system_named_with_numbers_its_source_gives_of_another_is_moved() -> None:
    source = (
        "Our implementation takes around 4.5 hours on the largest model on an A100. "
        "To control for model size, we compare it with QuillQuant at 4 bits."
    )
    given = "Quantizing the largest model takes around 4.5 hours on an A100."
    assert fact_fault(given, source, "SpaceQ: near-lossless compression") == ""
    moved = "Quantizing the largest model with QuillQuant takes around 4.5 hours on an A100."
    assert "QuillQuant" in fact_fault(moved, source, "SpaceQ: near-lossless compression")
    # the paper's own system, named by its title, may stand for "our implementation"
    own = "Quantizing the largest model with SpaceQ takes around 4.5 hours on an A100."
    assert fact_fault(own, source, "SpaceQ: near-lossless compression") == ""


def test_a_citations_year_or_a_list_items_number_is_no_answer_to_how_much() -> None:
    from frontier.synthesize.answering import asked_kinds, lacks_asked_kind

    question = "What acceptance rate does QuillSpec reach with a small draft model?"
    assert asked_kinds(question) == ["quantity"]
    assert asked_kinds("What limits throughput in QuillSpec?") == []
    cited = "We use a suffix array (Manber and Myers, 1993) as Leviathan et al. (2023) did."
    assert lacks_asked_kind(question, cited) == "a number"
    listed = "We evaluate: 1) decoder-only models and 2) encoder-decoder models."
    assert lacks_asked_kind(question, listed) == "a number"
    assert lacks_asked_kind(question, "QuillSpec accepts 71% of drafted tokens.") == ""
