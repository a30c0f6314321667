"""A paper addresses a gap or thesis when its own work holds each part of it: sentences written
here for the rules, not taken from any paper of the corpus."""

from __future__ import annotations

from frontier.curate.addresses import (
    acronym_expansions,
    coverage,
    item_parts,
    own_work_sentences,
    stems_of,
)

FIELD = "Efficient LLM inference and serving"
LONG_CONTEXT = "serving long contexts without the KV cache dominating memory"
LARGE_BATCH = "speculative decoding speed-ups at large batch sizes"
THESIS = "Most of the remaining inference efficiency comes from software, not from new silicon."


def addressed(
    item: str,
    title: str,
    abstract: str,
    pages: list[tuple[int, str]] = [],  # noqa: B006
    provisional: bool = False,
) -> str:
    """The evidence when the paper addresses the item, '' when it does not."""
    held = coverage(
        item_parts(item, stems_of(FIELD)),
        own_work_sentences(title, abstract, pages, provisional),
        acronym_expansions(FIELD),
    )
    return held.evidence if held and held.complete() else ""


def test_an_item_is_read_as_its_parts_without_the_fields_own_words() -> None:
    parts = item_parts(LONG_CONTEXT, stems_of(FIELD))
    assert [p.text for p in parts] == ["serving long contexts", "the KV cache dominating memory"]
    assert parts[0].stems == {"long", "contex"}  # "serving" is the field's word
    assert parts[1].stems == {"cache", "memory"}  # "dominating" is how the asker put it
    assert [p.text for p in item_parts(LARGE_BATCH, set())][1] == "large batch sizes"


def test_own_work_holding_every_part_addresses_the_gap_and_is_its_evidence() -> None:
    abstract = (
        "Transformer decoders keep a growing state for every token they read. "
        "We present RingCache, which pages cold entries of the KV cache to host memory. "
        "On long-context benchmarks with prompts of 128K tokens our system keeps accuracy."
    )
    evidence = addressed(LONG_CONTEXT, "RingCache: paging cold tokens", abstract)
    assert evidence.startswith("We present RingCache")


def test_background_sentences_do_not_count_as_the_papers_own_work() -> None:
    abstract = (
        "Serving long contexts is hard because the KV cache dominates GPU memory. "
        "We propose a 3-bit weight quantizer whose kernels run faster on one GPU."
    )
    assert not addressed(LONG_CONTEXT, "TriQuant: three-bit weights", abstract)


def test_a_part_missing_from_the_own_work_means_no_relation() -> None:
    abstract = (
        "We propose DraftTree, a speculative decoding method that drafts a tree of tokens. "
        "Our experiments with a batch size of one show speedups of 2.1x on one GPU."
    )
    assert not addressed(LARGE_BATCH, "DraftTree: tree drafts", abstract)
    at_scale = abstract + " DraftTree keeps its speedup at large batch sizes of 64 and 128."
    assert "large batch sizes" in addressed(LARGE_BATCH, "DraftTree: tree drafts", at_scale)


def test_the_fields_acronym_spelled_out_is_not_a_part() -> None:
    abstract = (
        "We propose a speculative decoding method for large language models with speedups of "
        "1.8x, and our evaluation draws each batch of requests from chat logs."
    )
    assert not addressed(LARGE_BATCH, "Spec: drafts", abstract)
    assert addressed(
        LARGE_BATCH, "Spec: drafts", abstract.replace("each batch", "large batch sizes")
    )


def test_a_thesis_needs_each_of_its_parts() -> None:
    abstract = "We show that our software kernels give most of the efficiency of inference."
    assert not addressed(THESIS, "Kern: kernels", abstract)
    both = abstract + " Our study finds the remaining gains come from software, not new silicon."
    assert addressed(THESIS, "Kern: kernels", both)


def test_a_stand_in_title_of_a_bare_abstract_is_background() -> None:
    abstract = (
        "Long-context inference is limited by KV cache memory on every GPU. "
        "We propose a new draft model for speculative decoding."
    )
    stand_in = "Long-context inference is limited by KV cache memory on every GPU."
    assert not addressed(LONG_CONTEXT, stand_in, abstract, provisional=True)
    assert own_work_sentences(stand_in, abstract, [], True)[0][0].startswith("We propose")


def test_introduction_pages_count_and_their_own_sentences_only() -> None:
    page = (
        "Prior systems keep the KV cache of long contexts in GPU memory. "
        "In this paper we move the KV cache of long contexts to flash memory, page by page."
    )
    evidence = addressed(LONG_CONTEXT, "FlashKV: offloading", "We build FlashKV.", [(2, page)])
    assert evidence.startswith("In this paper")
