"""An answer keeps only what its sources bear out: repeats, untraceable numbers and foreign
sentences go, each with its reason; an answer left without citations gets cited quotes. A map's
theme keeps the model's name only when the name fits its papers."""

from __future__ import annotations

from frontier.synthesize.bundle import Bundle, Source
from frontier.synthesize.citations import cited_numbers
from frontier.synthesize.grounding import Grounded, ground_answer, unsupported_numbers
from frontier.synthesize.themes import keyword_name, name_misfit

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


def assert_checked(*sentences: tuple[str, str]) -> Grounded:
    """Ground one paragraph of (sentence, reason) pairs: those with no reason stay, in order;
    the others go, each with its reason."""
    grounded = ground_answer(" ".join(text for text, _ in sentences), bundle(), QUESTION)
    assert grounded.text == " ".join(text for text, reason in sentences if not reason)
    assert [(d.sentence, d.reason) for d in grounded.dropped] == [
        (text, reason) for text, reason in sentences if reason
    ]
    return grounded


def test_repeats_are_removed_and_reported() -> None:
    paragraph = "vLLM keeps the KV cache in blocks [1]. The scheduler swaps sequences to CPU [1]."
    grounded = ground_answer(f"{paragraph}\n\n{paragraph}\n\n{paragraph}", bundle(), QUESTION)
    assert grounded.text == paragraph
    assert [d.reason for d in grounded.dropped] == ["repeats an earlier sentence"] * 4


def test_a_number_must_be_in_a_source_the_sentence_cites() -> None:
    assert_checked(
        ("Blocks hold 16 tokens [1].", ""),
        ("Fragmentation stays under 4% [1].", ""),
        (
            "DistServe serves 7.4 times more requests [1].",
            "states 7.4, which the sources it cites do not give",
        ),
        ("It serves 7 times more [2].", ""),
        ("Its search runs in 1024 steps [2].", ""),
    )


def test_numbers_are_matched_as_values() -> None:
    sources = "a 3.46x gain on 1,024 GPUs, four nodes, batch sizes 8, 16 and 32"
    assert unsupported_numbers("a 3.5x gain on 1024 GPUs and 4 nodes", sources) == []
    assert unsupported_numbers("batch sizes 8,16", sources) == []
    assert unsupported_numbers("a 3.4x gain on 2,048 GPUs", sources) == ["3.4", "2,048"]
    # numbers inside names, citations and list marks are not claims of the sentence
    assert unsupported_numbers("1. GPT-3 on A100 with Llama-2-70B [7]", sources) == []


def test_uncited_sentences_need_the_sources_words_and_no_numbers() -> None:
    grounded = assert_checked(
        ("The scheduler preempts whole sequences and swaps them to CPU memory.", ""),
        ("Prefill runs 9 times faster.", "states 9, which the sources cited beside it do not give"),
        (
            "Quantum annealing schedules photonic interconnect bandwidth across datacentres.",
            "cites no source, and the sources do not use its words",
        ),
        ("In short, both page memory [1][2].", ""),
    )
    assert not grounded.quoted


def test_an_uncited_sentence_borrows_the_sources_cited_beside_it() -> None:
    assert_checked(
        ("vLLM uses blocks of 16 tokens.", ""),
        ("Waste stays under 4% [1].", ""),
        ("DistServe serves 7.4 times more requests.", ""),
        ("Prefill and decode run apart [2].", ""),
        ("It also reaches 16 GPUs.", "states 16, which the sources cited beside it do not give"),
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


def test_an_answer_without_citations_gets_cited_quotes_from_the_sources() -> None:
    question = "How do serving systems place prefill and manage KV cache memory?"
    grounded = ground_answer("vLLM manages the KV cache memory in blocks.", bundle(), question)
    assert grounded.quoted
    head, quoted = grounded.text.split("\n\n")
    assert head == "vLLM manages the KV cache memory in blocks."
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
    assert keyword_name(titles, [*titles, "Speculative Decoding"]).startswith("Quantization")
