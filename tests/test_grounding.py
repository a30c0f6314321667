"""An answer keeps only what one or two adjacent sentences of a source bear out: repeats,
untraceable numbers and fluent prose no source sentence holds go, each with its reason; a
sentence a source bears out is cited to it; an answer left without citations gets cited quotes
that answer the question. A map's uncited prose brings no name and few words of its own. A map's
theme keeps the model's name only when the name fits its papers."""

from __future__ import annotations

import functools
import re

from helpers import corpus

from frontier.extract.pdf import extract_pdf
from frontier.synthesize.ask import without_lead_ins
from frontier.synthesize.bundle import Bundle, Source
from frontier.synthesize.citations import cited_numbers
from frontier.synthesize.grounding import (
    Grounded,
    check_sentences,
    ground_answer,
    unsupported_numbers,
)
from frontier.synthesize.themes import key_phrase, name_misfit

PAGED = (
    "vLLM stores the KV cache in blocks of 16 tokens [12]. Internal fragmentation stays below "
    "4% of the cache. The scheduler preempts whole sequences and swaps them to CPU memory."
)
SPLIT = (
    "DistServe places prefill and decode on different GPUs. It serves 7.4 times more requests "
    "within the latency target, and its placement search runs in 1,024 steps on four nodes."
)
QUESTION = "How do serving systems manage KV cache memory?"


def bundle() -> Bundle:
    return Bundle(
        [
            Source(1, "2309.06180", "Paged attention", "2023-09-12", (4,), PAGED),
            Source(2, "2401.09670", "Disaggregated serving", "2024-01-18", (6,), SPLIT),
        ]
    )


CITED_AS = "cited as: "  # a reason column value: the sentence stays, rewritten to cite its source
NO_SENTENCE = "no sentence of the sources it cites bears it out"
UNBORNE = "cites no source, and no source sentence bears it out"
BORROWED = "joins words of other source sentences to its closest one"


def assert_checked(
    *sentences: tuple[str, str], sources: Bundle | None = None, question: str = QUESTION
) -> Grounded:
    """Ground one paragraph of (sentence, reason) pairs: those with no reason stay as written,
    those with CITED_AS stay as given after it, in order; the others go, each with its reason."""
    text = " ".join(text for text, _ in sentences)
    grounded = ground_answer(text, sources or bundle(), question)
    kept = [
        reason.removeprefix(CITED_AS) if reason else text
        for text, reason in sentences
        if not reason or reason.startswith(CITED_AS)
    ]
    assert grounded.text.split("The sources' own sentences")[0].strip() == " ".join(kept)
    assert [(d.sentence, d.reason) for d in grounded.dropped] == [
        (text, reason) for text, reason in sentences if reason and not reason.startswith(CITED_AS)
    ]
    return grounded


def test_repeats_are_removed_and_reported() -> None:
    paragraph = "vLLM keeps the KV cache in blocks [1]. The scheduler swaps sequences to CPU [1]."
    grounded = ground_answer(f"{paragraph}\n\n{paragraph}\n\n{paragraph}", bundle(), QUESTION)
    assert grounded.text == paragraph
    assert [d.reason for d in grounded.dropped] == ["repeats an earlier sentence"] * 4


def test_a_number_must_be_in_a_source_that_bears_the_sentence_out() -> None:
    assert_checked(
        ("Blocks hold 16 tokens [1].", ""),
        ("Internal fragmentation stays below 4% [1].", ""),
        (
            "DistServe serves 7.4 times more requests [1].",
            CITED_AS + "DistServe serves 7.4 times more requests [2].",
        ),
        (
            "DistServe serves 9.1 times more requests [2].",
            "states 9.1, which the sources it cites do not give",
        ),
        ("It serves 7 times more requests [2].", ""),  # 7.4 rounded
        ("Its placement search runs in 1024 steps [2].", ""),
    )


def test_numbers_are_matched_as_values() -> None:
    sources = "a 3.46x gain on 1,024 GPUs, four nodes, batch sizes 8, 16 and 32"
    assert unsupported_numbers("a 3.5x gain on 1024 GPUs and 4 nodes", sources) == []
    assert unsupported_numbers("batch sizes 8,16", sources) == []
    assert unsupported_numbers("a 3.4x gain on 2,048 GPUs", sources) == ["3.4", "2,048"]
    # numbers inside names, citations and list marks are not claims of the sentence
    assert unsupported_numbers("1. GPT-3 on A100 with Llama-2-70B [7]", sources) == []


def test_uncited_sentences_are_cited_to_the_source_that_bears_them_out_or_go() -> None:
    grounded = assert_checked(
        (
            "The scheduler preempts whole sequences and swaps them to CPU memory.",
            CITED_AS + "The scheduler preempts whole sequences and swaps them to CPU memory [1].",
        ),
        ("Prefill runs 9 times faster.", "states 9, which the sources cited beside it do not give"),
        (
            "Quantum annealing schedules photonic interconnect bandwidth across datacentres.",
            UNBORNE,
        ),
        ("In short:", ""),  # a transition, continued by the next sentence
        (
            "vLLM stores the KV cache in blocks, and DistServe places prefill and decode on "
            "different GPUs [1][2].",
            "",  # a comparison: each source bears out its half
        ),
    )
    assert not grounded.quoted


def test_the_sources_cited_beside_an_uncited_sentence_are_tried_first() -> None:
    assert_checked(
        ("vLLM uses blocks of 16 tokens.", CITED_AS + "vLLM uses blocks of 16 tokens [1]."),
        ("Internal fragmentation stays below 4% [1].", ""),
        (
            "DistServe serves 7.4 times more requests.",
            CITED_AS + "DistServe serves 7.4 times more requests [2].",
        ),
        ("DistServe places prefill and decode on different GPUs [2].", ""),
        ("It also reaches 16 GPUs.", "states 16, which the sources cited beside it do not give"),
        ("Both matter.", ""),  # a short transition without numbers stays as written
    )


def test_a_cited_sentence_needs_one_source_sentence_not_the_pages_words() -> None:
    assert_checked(
        ("Waste stays under 4% [1].", NO_SENTENCE),  # "waste" is not the source's word
        ("Prefill and decode are merged into one batch on each node [2].", NO_SENTENCE),
        ("Prefill and decode split [2].", ""),
        (
            "The scheduler swaps the KV cache blocks of the prefill instances to CPU memory [1].",
            BORROWED,  # every word is in the sources, not in one sentence of them
        ),
    )


def test_a_sentence_citing_only_sources_outside_the_list_goes() -> None:
    assert_checked(
        ("Blocks hold 16 tokens [1][7].", ""),
        ("Decode runs apart [9].", "cites only [9], not among its sources"),
        ("Prefill and decode split [2].", ""),
    )


def test_a_citation_after_the_full_stop_stays_with_its_sentence() -> None:
    grounded = ground_answer("Blocks hold 16 tokens. [1] Decode runs apart. [2]", bundle(), "")
    assert grounded.text == "Blocks hold 16 tokens [1]. Decode runs apart [2]."
    assert not grounded.dropped


def test_a_lead_in_whose_continuation_went_goes_too() -> None:
    text = (
        "vLLM stores the KV cache in blocks of 16 tokens [1]. Specifically:\n"
        "- Quantum annealing schedules photonic interconnect bandwidth.\n"
        "- Each photonic datacentre anneals its own bandwidth.\n\n"
        "The scheduler does this:\n"
        "- It preempts whole sequences and swaps them to CPU memory [1].\n\n"
        "Its steps are:\n"
        "- Quantum annealing schedules photonic interconnect bandwidth."
    )
    grounded = ground_answer(text, bundle(), QUESTION)
    assert grounded.text == (
        "vLLM stores the KV cache in blocks of 16 tokens [1].\n\n"
        "The scheduler does this:\n"
        "- It preempts whole sequences and swaps them to CPU memory [1]."
    )
    reasons = {d.sentence: d.reason for d in grounded.dropped}
    assert reasons["Its steps are:"] == "leads in to sentences that were removed"
    assert reasons["Specifically:"].startswith("says nothing of its own")  # it goes either way


def test_an_answer_without_citations_gets_cited_quotes_from_the_sources() -> None:
    question = "How do serving systems place prefill and manage KV cache memory?"
    grounded = ground_answer("Both differ.", bundle(), question)
    assert grounded.quoted
    assert [d.sentence for d in grounded.dropped] == ["Both differ."]  # it says nothing
    quoted = grounded.text.split("\n\n")[-1]
    quotes = quoted.split("\n")[1:]
    assert all(line.startswith('- "') for line in quotes)
    assert [cited_numbers(line) for line in quotes] == [[1], [2]]  # the best of each source
    assert "[12]" not in grounded.text  # the paper's own reference mark is not quoted as one
    assert "KV cache in blocks of 16 tokens" in quotes[0]


def test_the_plain_refusal_is_kept_as_written() -> None:
    text = "The sources do not answer this. They cover paging and disaggregation."
    grounded = ground_answer(text, bundle(), "What does a 2030 accelerator cost?")
    assert grounded.text == text and not grounded.dropped and not grounded.quoted
    reworded = ground_answer("The provided sources do not answer this question.", bundle(), "")
    assert not reworded.quoted and not reworded.dropped
    guessed = ground_answer(f"{text} It costs 40,000 dollars.", bundle(), "")
    assert guessed.text == text and guessed.dropped[0].reason.startswith("states 40,000")


def test_a_theme_name_must_fit_its_papers_and_be_its_own() -> None:
    titles = ["GPTQ: Accurate Post-Training Quantization", "AWQ: Activation-aware Quantization"]
    name = "Weight quantization after training"
    assert name_misfit(name, titles, set()) == ""
    assert name_misfit(name, titles, {name.lower()}) == "another theme has this name"
    assert name_misfit("LIMITED_QUANTIZATION", titles, set()) == "an identifier, not a name"
    no_word = "shares no particular word with its papers' titles"
    assert name_misfit("Efficient LLM serving", titles, set()) == no_word  # every paper's words
    assert name_misfit("Speculative decoding", titles, set()) == no_word
    assert key_phrase(titles, ["Speculative Decoding"]) == "Quantization"
    one_title = "the title of one of its papers, not a name for all of them"
    assert name_misfit("GPTQ", titles, set()) == one_title
    assert name_misfit("Accurate Post-Training Quantization", titles, set()) == one_title
    assert name_misfit("Theorem 1: GPTQ: Accurate Post-Training Quantization", titles, set()) == (
        one_title
    )
    assert name_misfit("GPTQ", titles[:1], set()) == ""  # a theme of one paper
    long = "Quantization of weights after training for serving large language models fast"
    assert name_misfit(long, titles, set()) == "longer than a name (11 words)"


def test_a_map_summary_that_restates_or_loops_is_cut_to_what_it_says_once() -> None:
    first = (
        "Serving systems manage the KV cache memory in blocks and place prefill and decode on "
        "different GPUs."
    )
    again = (
        "Serving systems also manage the KV cache memory in blocks and place prefill and decode "
        "on different GPUs."
    )
    loop = (
        "Paging keeps memory in blocks for the scheduler, and the scheduler swaps sequences to "
        "CPU memory, and the scheduler swaps sequences to CPU memory."
    )
    grounded = check_sentences(f"{first} {again} {loop}", bundle())
    assert grounded.text == first
    assert [(d.sentence, d.reason) for d in grounded.dropped] == [
        (again, "repeats an earlier sentence"),
        (loop, "repeats itself"),
    ]
    one = "vLLM stores the KV cache in blocks of 16 tokens [1]."
    other = "vAttention stores the KV cache in blocks of 16 tokens [1]."  # another system's claim
    assert check_sentences(f"{one} {other}", bundle()).text == f"{one} {other}"


# Real pages of the shared PDFs, as `ask` hands them to the model.
VLLM = "Efficient Memory Management for Large Language Model Serving with PagedAttention"
DISTSERVE = "DistServe: Disaggregating Prefill and Decoding for Goodput-optimized LLM Serving"


@functools.cache
def page(name: str, number: int) -> str:
    return extract_pdf(corpus("pdfs", name).read_bytes()).pages[number - 1]


def real_bundle() -> Bundle:
    return Bundle(
        [
            Source(1, "2309.06180", VLLM, "2023-09-12", (12,), page("vllm-pagedattention.pdf", 12)),
            Source(2, "2401.09670", DISTSERVE, "2024-01-18", (9,), page("distserve.pdf", 9)),
            Source(3, "2309.06180", VLLM, "2023-09-12", (4,), page("vllm-pagedattention.pdf", 4)),
        ]
    )


def test_fluent_prose_built_from_the_pages_words_goes_on_real_pages() -> None:
    question = "How much KV-cache memory does a single token need for OPT-13B?"
    made_up = (
        "The KV cache of each request on a single GPU grows with the hidden state size and the "
        "number of layers of the serving system [3]."
    )
    on_page = set(re.findall(r"[a-z]+", page("vllm-pagedattention.pdf", 4).lower()))
    assert {"cache", "request", "single", "hidden", "state", "layers", "serving"} <= on_page
    grounded = assert_checked(
        (made_up, BORROWED),
        ("The tile-quantization effect makes each token slower on a single CPU.", UNBORNE),
        (
            "For the 13B parameter OPT model, the KV cache of a single token demands 800 KB of "
            "space [3].",
            "",
        ),
        (
            "It is 2 x 5120 x 40 x 2 bytes: key and value, hidden state size, layers, FP16.",
            CITED_AS + "It is 2 x 5120 x 40 x 2 bytes: key and value, hidden state size, layers, "
            "FP16 [3].",
        ),
        (
            "A request of 2048 tokens needs 1.6 GB.",
            CITED_AS + "A request of 2048 tokens needs 1.6 GB [3].",
        ),
        (
            "A request of 4096 tokens needs 3.2 GB.",
            "states 4096, 3.2, which the sources cited beside it do not give",
        ),
        sources=real_bundle(),
        question=question,
    )
    assert not grounded.quoted


def test_the_sentence_naming_the_gpus_is_cited_not_dropped() -> None:
    assert_checked(
        ("DistServe is evaluated on a GPU cluster [2].", ""),
        (
            "Each node has 8 NVIDIA SXM A100-80GB GPUs connected with NVLink.",
            CITED_AS + "Each node has 8 NVIDIA SXM A100-80GB GPUs connected with NVLink [2].",
        ),
        ("DistServe ran on H100 GPUs [2].", NO_SENTENCE),  # the page names no H100
        (  # clauses borne out by sentences far apart on the page
            "The cluster has 4 nodes and 32 GPUs; all experiments use FP16 precision [2].",
            "",
        ),
        (
            "The cluster has 4 nodes and 32 GPUs; tile quantization slows every CPU core [2].",
            NO_SENTENCE,
        ),
        sources=real_bundle(),
        question="Which GPUs did DistServe evaluate on?",
    )


def test_the_default_block_size_stays_and_the_made_up_reason_goes() -> None:
    assert_checked(
        (
            "vLLM uses blocks because the GPU scheduler needs warps of equal length for its "
            "kernels.",
            UNBORNE,
        ),
        (
            "The default block size of vLLM is 16.",
            CITED_AS + "The default block size of vLLM is 16 [1].",
        ),
        (
            "A block size of 16 is large enough to use the GPU efficiently and small enough to "
            "avoid internal fragmentation [1].",
            "",
        ),
        sources=real_bundle(),
        question="What KV cache block size does vLLM use by default, and why that value?",
    )


def test_quotes_answer_the_question_they_are_for() -> None:
    expected = {
        "Which GPUs did DistServe evaluate on?": ("A100-80GB GPUs", 2),
        "How much KV-cache memory does a single token need for OPT-13B?": ("800 KB", 3),
        "What KV cache block size does vLLM use by default?": ("default block size as 16", 1),
    }
    for question, (answer, number) in expected.items():
        grounded = ground_answer("Both differ.", real_bundle(), question)
        first = next(line for line in grounded.text.split("\n") if line.startswith('- "'))
        assert answer in first and cited_numbers(first) == [number], question
        assert not any(line.endswith(':" [2]') for line in grounded.text.split("\n"))
    tables = ground_answer("None.", real_bundle(), "How much memory do OPT-66B chatbots need?")
    assert "132GB" not in tables.text  # Table 1's flattened rows are no sentence to quote


def test_a_map_summary_brings_no_name_and_few_words_of_its_own() -> None:
    grounded = check_sentences(
        "The field is advancing rapidly with advancements in Llomb, a new generation of "
        "high-throughput data processing systems. Serving systems manage the KV cache memory in "
        "blocks and place prefill and decode on different GPUs. Quantum annealing schedules "
        "photonic interconnect bandwidth across datacentres. Paging tames memory waste [1]. "
        "Such systems serve 7.4 times more requests. Paging cuts serving cost 913.7 times [1].",
        bundle(),
    )
    assert grounded.text == (
        "Serving systems manage the KV cache memory in blocks and place prefill and decode on "
        "different GPUs. Paging tames memory waste [1]. Such systems serve 7.4 times more requests."
    )
    assert [d.reason for d in grounded.dropped] == [
        "cites no source, and no source names Llomb",
        "cites no source, and no sentences of the sources bear it out",
        "states 913.7, which the sources it cites do not give",
    ]


def test_the_frame_a_model_puts_before_its_answer_is_no_part_of_it() -> None:
    assert without_lead_ins("The answer to this question is: 20x.\nThe answer is:") == "20x.\n"


def test_a_sentence_without_what_a_which_or_how_much_question_asks_for_is_no_answer() -> None:
    how_big = "How many tokens does a KV cache block of vLLM hold?"
    answer = (
        "vLLM stores the KV cache in blocks of 16 tokens [1]. "
        "The scheduler preempts whole sequences and swaps them to CPU memory [1]."
    )
    grounded = ground_answer(answer, bundle(), how_big, quotes=True)
    assert "16 tokens" in grounded.text and "swaps" not in grounded.text
    (dropped,) = grounded.dropped
    assert dropped.reason.endswith("what the question asks for: a number")
    # a question asking how or why asks for no one kind
    how = "How does vLLM handle running out of KV cache memory?"
    kept = ground_answer(answer, bundle(), how, quotes=True)
    assert "swaps" in kept.text and not kept.dropped


def test_a_quotation_the_sources_do_not_have_word_for_word_is_not_shown() -> None:
    misquoted = '"The scheduler preempts whole sequences and swaps them to GPU memory." [1]'
    grounded = ground_answer(misquoted, bundle(), QUESTION, quotes=True)
    assert (
        not grounded.text and grounded.dropped[0].reason == "quotes words no source has as written"
    )
    quoted = '"The scheduler preempts whole sequences and swaps them to CPU memory." [1]'
    assert "swaps them to CPU memory" in ground_answer(quoted, bundle(), QUESTION, quotes=True).text


def test_a_possessive_name_is_the_name() -> None:
    """A possessive (the GPUs' aggregated compute) names what GPUs names: a window need not hold the
    possessive as written."""
    page = (
        "The optimal throughput depends only on the aggregated computing power of the GPUs and "
        "the number of parameters in the model."
    )
    sources = Bundle([Source(1, "2408.12757", "NanoFlow", "2024-08-22", (4,), page)])
    assert_checked(
        (
            "Optimal throughput depends only on the GPUs' aggregated computing power and the "
            "model's number of parameters [1].",
            "",
        ),
        sources=sources,
        question="What bounds the optimal throughput?",
    )


def test_a_name_inside_another_word_is_not_that_name() -> None:
    """'float16' is not named by a page that says 'bfloat16': a format swapped for its sibling
    is cut, the page's own format kept."""
    page = "For scores of 89 or more the exponentiation gives inf in bfloat16 and float32."
    sources = Bundle([Source(1, "2112.05682", "Attention memory", "2021-12-10", (2,), page)])
    question = "When does the exponentiation overflow?"
    swapped = "For scores of 89 or more the exponentiation gives inf in float16 and float32 [1]."
    grounded = ground_answer(swapped, sources, question)
    assert [d.sentence for d in grounded.dropped] == [swapped]
    same = "For scores of 89 or more the exponentiation gives inf in bfloat16 and float32 [1]."
    assert not ground_answer(same, sources, question).dropped


GPTQ_PAGE = (
    "For smaller models, applying dampening, that is adding a small constant λ (we always choose "
    "1% of the average diagonal value) to the diagonal elements of H appears to be sufficient to "
    "avoid numerical issues. However, larger models require a more robust and general approach."
)


def test_a_sentence_saying_its_source_in_other_words_stays() -> None:
    """Few of its words are the page's, but each has a word of the page close to it in context:
    a paraphrase stays. The same sentence with a cause the page does not give goes."""
    sources = Bundle([Source(1, "2210.17323", "GPTQ", "2022-10-31", (5,), GPTQ_PAGE)])
    question = "How does GPTQ keep the inverse Hessian numerically stable?"
    assert_checked(
        (
            "For small networks it is enough to nudge each diagonal entry of H up by a small "
            "constant, 1% of the average diagonal entry, to avoid numerical trouble; bigger "
            "networks demand a sturdier and more general remedy [1].",
            "",
        ),
        sources=sources,
        question=question,
    )
    invented = (
        "Damping H with a constant equal to 1% of its mean diagonal value, added to each "
        "diagonal entry, keeps smaller models free of numerical trouble because the constant "
        "shrinks the condition number, while larger ones call for something sturdier [1]."
    )
    assert [d.sentence for d in ground_answer(invented, sources, question).dropped] == [invented]


def test_a_model_of_another_size_is_another_model() -> None:
    """'T5-large' is not the page's 'T5-small', though both are T5."""
    page = "We evaluate the method with T5-small as the draft model. Its block size is 16."
    sources = Bundle([Source(1, "2211.17192", "Drafting", "2022-11-30", (6,), page)])
    question = "Which draft model was used?"
    other = "The method was evaluated with T5-large as the draft model [1]."
    assert [d.sentence for d in ground_answer(other, sources, question).dropped] == [other]
    same = "The method was evaluated with T5-small as the draft model [1]."
    assert not ground_answer(same, sources, question).dropped


def test_a_value_changed_the_other_way_round_is_the_opposite() -> None:
    """The page set the block size to 16 instead of 32: "from 32 to 16" says so, "from 16 to
    32" says the opposite."""
    page = "We set the block size to 16 instead of 32 for better kernel occupancy."
    sources = Bundle([Source(1, "2309.06180", "Paged memory", "2023-09-12", (4,), page)])
    question = "What block size is used?"
    assert_checked(
        ("The block size was lowered from 32 to 16 for better kernel occupancy [1].", ""),
        sources=sources,
        question=question,
    )
    assert_checked(
        (
            "The block size was raised from 16 to 32 for better kernel occupancy [1].",
            "states the opposite direction of its source",
        ),
        sources=sources,
        question=question,
    )


def test_a_name_from_the_sentence_beside_the_paraphrased_one_is_not_borne_out() -> None:
    """A paraphrase is held by the page sentence that holds most of its words: a name only the
    sentence beside it gives is said of something else."""
    page = (
        "Proxy quantization is not useful for models that are relatively stable such as 3-bit "
        "BLOOM and GPT-2. We noticed 3-bit instabilities in OPT and Pythia."
    )
    sources = Bundle([Source(1, "2212.09720", "k-bit scaling", "2022-12-19", (7,), page)])
    question = "When is proxy quantization useful?"
    moved = "Proxy quantization brings no benefit for fairly steady models like 3-bit OPT [1]."
    assert [d.sentence for d in ground_answer(moved, sources, question).dropped] == [moved]


def test_the_question_said_back_in_the_pages_words_is_no_paraphrase_of_it() -> None:
    """A sentence closer in meaning to the question than to the page sentence said to carry it
    restates what was asked: the page's words around it do not make it an answer."""
    sources = Bundle([Source(1, "2210.17323", "GPTQ", "2022-10-31", (5,), GPTQ_PAGE)])
    question = "How does GPTQ avoid numerical issues for smaller models?"
    echo = "GPTQ avoids numerical issues for smaller models by choosing a sufficient general approach [1]."
    assert [d.sentence for d in ground_answer(echo, sources, question).dropped] == [echo]
    answer = (
        "GPTQ adds a small constant, 1% of the average diagonal value, to the diagonal of H [1]."
    )
    assert not ground_answer(answer, sources, question).dropped


def test_the_clauses_of_a_sentence_come_from_one_place_of_its_source() -> None:
    """A name and what is said of it are held together: "FP8-E4 is the best format" may not
    come from the page's first sentence and "for the Gaussian" from its last."""
    page = (
        "Of the formats we build in hardware, FP8-E4 is the best format for outliers, at 53% "
        "more gates. Exponent bits put more values close to zero and fewer further away from it. "
        "Wider formats cost more area and more power per operation. "
        "Rounding to the grid is cheap for either of the two formats. "
        "For a uniform distribution, the INT format is the best. "
        "For the Gaussian distribution in the middle column, FP8-E2 is the best, with INT8 as a "
        "very close second."
    )
    sources = Bundle([Source(1, "2303.17951", "Number formats", "2023-03-31", (9,), page)])
    question = "How do FP8 and INT8 differ in how well they represent different distributions?"
    swapped = (
        "For the Gaussian distribution, FP8-E4 is the best format, with INT8 as a very close "
        "second [1]."
    )
    assert ground_answer(swapped, sources, question).dropped
    # clauses from two sentences side by side are one place
    faithful = (
        "For a uniform distribution the INT format is the best, while for a Gaussian FP8-E2 is "
        "the best with INT8 a very close second [1]."
    )
    grounded = ground_answer(faithful, sources, question)
    assert not grounded.dropped and grounded.text == faithful


def one_page(text: str) -> Bundle:
    """A bundle of one source: a page of a paper."""
    return Bundle([Source(1, "2401.00001", "A paper", "2024-01-01", (3,), text)])


def test_a_number_the_next_source_sentence_gives_is_borne_out_with_it() -> None:
    page = (
        "On the 180B model, a single prompt of 4k tokens takes 1150 ms to execute compared to a "
        "decode-only iteration with batch size 32 which takes about 200 ms. Interleaving these "
        "iterations could result in a bubble of 950 ms. Chunked prefills avoid such bubbles."
    )
    sources = one_page(page)
    sentence = (
        "On the 180B model, one 4k-token prompt needs 1150 ms whereas a decode-only iteration "
        "at batch size 32 needs about 200 ms, so mixing the two can leave a bubble of 950 ms [1]."
    )
    assert_checked((sentence, ""), sources=sources, question="How long is the bubble?")
    made_up = sentence.replace("bubble of 950 ms", "bubble of 750 ms")
    grounded = ground_answer(made_up, sources, "How long is the bubble?")
    assert grounded.dropped and "750" in grounded.dropped[0].reason


def test_a_framing_clause_is_held_where_the_clause_it_frames_is() -> None:
    page = (
        "We use an LRU cache with an equal number k of cached experts per layer. "
        "For Mixtral-8x7B, we use k=2 for 12GB GPUs and k=4 for 16GB ones. "
        "We also tried the sub-bit quantization of QuillMoE, which worked on a smaller model."
    )
    sources, question = one_page(page), "How many experts does the cache hold per layer?"
    faithful = (
        "For Mixtral-8x7B, the cache holds k=2 experts on 12GB GPUs and k=4 on 16GB GPUs [1]."
    )
    assert ground_answer(faithful, sources, question).dropped == []
    moved = faithful.replace("Mixtral-8x7B", "QuillMoE")
    assert ground_answer(moved, sources, question).dropped
