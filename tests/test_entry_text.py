"""Entries say what the paper is: the model's sentences only when the abstract bears them out
and they do not restate the title, else the abstract's contribution sentence; headline numbers
phrased by code from typed spans."""

from __future__ import annotations

from frontier.config import Entity
from frontier.curate.entry import (
    checked_model_text,
    contribution_sentences,
    restates_title,
    why_it_matters,
)
from frontier.curate.relations import before_references, checked_how, entity_relations
from frontier.curate.support import is_prose, support
from frontier.model import Claim, Relation
from frontier.store.claim_text import phrase_claim

TITLE = "QuillServe: Block-Level Memory Reuse for Serving Language Models"
ABSTRACT = (
    "Serving language models at scale is limited by the memory that attention keys and values "
    "occupy. Existing systems reserve that memory per request and waste much of it. To address "
    "this, we present QuillServe, a serving engine that stores keys and values in fixed-size "
    "blocks shared across requests. It reuses blocks of common prefixes without copying them. "
    "QuillServe raises throughput by 2.5× over TurboServe at the same latency."
)


def test_the_contribution_sentence_is_quoted_without_its_lead_in() -> None:
    text = contribution_sentences(TITLE, ABSTRACT)
    assert text.startswith("We present QuillServe, a serving engine")
    assert text.endswith("without copying them.")  # the next sentence explains the first
    assert "Serving language models at scale" not in text  # background is never the entry


def test_a_named_system_sentence_is_the_fallback() -> None:
    abstract = "Long prompts are slow. HelixCache is a cache that keeps prefixes across turns."
    assert contribution_sentences("HelixCache: Prefix Caching", abstract).startswith(
        "HelixCache is a cache"
    )
    assert contribution_sentences("Some Title", "Long prompts are slow.") == ""


def test_model_text_is_kept_only_when_the_abstract_bears_it_out() -> None:
    faithful = "QuillServe stores keys and values in fixed-size blocks shared across requests."
    invented = "QuillServe uses a learned router trained on chatbot logs from many companies."
    assert checked_model_text(f"{faithful} {invented}", TITLE, ABSTRACT) == faithful
    assert checked_model_text(TITLE, TITLE, ABSTRACT) == ""  # the title again
    with_number = "QuillServe raises throughput by 2.5× over TurboServe."
    assert checked_model_text(with_number, TITLE, ABSTRACT) == ""  # numbers come from claims


def test_restating_the_title_is_caught() -> None:
    assert restates_title(f"{TITLE}.", TITLE)
    assert restates_title("Block-level memory reuse for serving language models.", TITLE)
    assert not restates_title("A serving engine that shares key-value blocks.", TITLE)


def test_support_needs_one_sentence_not_the_bag_of_words() -> None:
    scattered = "Existing engines copy common prefixes per request at the same latency."
    assert not support(scattered, ABSTRACT).supported
    assert support("It reuses blocks of common prefixes without copying.", ABSTRACT).supported
    assert not support("It reuses blocks of common prefixes 4 times.", ABSTRACT).supported


def _claim(**fields: object) -> Claim:
    base = dict.fromkeys(Claim.__dataclass_fields__, "")
    base.update(value=2.5, page=1, verified=True, setup_page=None, headline=True)
    base.update(fields)
    return Claim(**base)  # type: ignore[arg-type]


def test_headline_numbers_are_phrased_from_spans() -> None:
    claim = _claim(
        value_text="2-4×", metric="throughput", direction="higher", baseline="TurboServe"
    )
    assert phrase_claim(claim) == "2-4× higher throughput than TurboServe (p. 1)"
    faster = _claim(value_text="1.6×", metric="faster", baseline="cuBLAS", hardware="H100")
    assert phrase_claim(faster) == "1.6× faster than cuBLAS (p. 1; H100)"
    setup = _claim(
        value_text="3×",
        metric="speedup",
        model_name="OPT-13B",
        setup_fields="model",
        setup_page=8,
    )
    assert phrase_claim(setup) == "3× speedup (p. 1; OPT-13B, setup p. 8)"
    more = _claim(
        value_text="4.48×",
        metric="requests",
        direction="higher",
        baseline="prior systems",
        quote="It can serve 4.48× more requests compared to prior systems.",
    )
    assert phrase_claim(more) == "4.48× more requests than prior systems (p. 1)"
    share = _claim(
        value_text="81%",
        metric="decoding throughput",
        baseline="the peak decoding throughput",
        quote="QuillServe reaches 81% of the peak decoding throughput of the accelerator.",
    )
    assert phrase_claim(share) == "81% of the peak decoding throughput (p. 1)"


def test_a_headline_keeps_the_sentences_own_comparative_and_what_it_was_measured_on() -> None:
    listed = _claim(
        value_text="115%",
        metric="requests",
        direction="higher",
        quote="It handles 115% and 107% more requests on the two clusters.",
    )
    assert phrase_claim(listed) == "115% more requests (p. 1)"
    accelerated = _claim(
        value_text="up to 1.5×",
        metric="urgent requests",
        direction="higher",
        quote="The scheduler accelerates urgent requests by up to 1.5×.",
    )
    assert phrase_claim(accelerated) == "up to 1.5× faster urgent requests (p. 1)"
    task = _claim(value_text="1.8×", metric="speedups", direction="higher", condition="on coding")
    assert phrase_claim(task) == "1.8× speedups on coding (p. 1)"


def test_model_text_about_the_field_or_pointing_back_is_not_kept() -> None:
    background = "Serving language models at scale is limited by attention memory."
    assert checked_model_text(background, TITLE, ABSTRACT) == ""  # the field, not the work
    pointer = "It reuses blocks of common prefixes without copying them."
    assert checked_model_text(pointer, TITLE, ABSTRACT) == ""  # 'It' names nothing yet


def test_a_model_sentence_that_names_nothing_of_the_work_is_not_kept() -> None:
    title = "Faster Decoding via Draft Verification"
    abstract = (
        "Decoding from large models is slow. In this work we introduce draft verification, a "
        "way to make decoding from large models faster by checking several drafted tokens at once."
    )
    vague = "The work is about a new way to make decoding from large models faster."
    assert checked_model_text(vague, title, abstract) == ""
    named = "Draft verification makes decoding from large models faster by checking drafted tokens."
    assert checked_model_text(named, title, abstract) == named


def test_a_relations_how_is_one_whole_sentence_borne_out_without_numbers() -> None:
    evidence = "QuillServe stores keys and values in fixed-size blocks shared across requests."
    kept = "QuillServe stores keys and values in blocks shared across requests."
    assert checked_how(kept, evidence, ABSTRACT) == kept
    assert checked_how("2.5xgains in throughput over TurboServe", evidence, ABSTRACT) == ""
    assert checked_how("It uses a learned router trained on chat logs.", evidence, ABSTRACT) == ""


def test_relation_evidence_comes_from_the_papers_own_text_not_its_references() -> None:
    pages = [
        (1, "We batch requests as they arrive, so the GPU never waits for a full batch."),
        (9, "Our scheduler keeps p99 latency flat under load.\nReferences\n[1] A cited title."),
        (10, "Accelerating large language model decoding with speculative sampling."),
    ]
    kept = before_references(pages, (9, "References"))
    assert [n for n, _ in kept] == [1, 9]
    assert "cited" not in kept[1][1] and "p99" in kept[1][1]
    assert before_references(pages, None) == pages
    cited = "Fast decoding with drafts. arXiv preprint arXiv:2302.01318, 2023."
    assert not is_prose(cited)
    heading = (
        "Speculative Decoding with Big Little Decoder Sehoon Kim Karttikeya Mangalam Suhong Moon."
    )
    assert not is_prose(heading)
    assert is_prose("We batch requests as they arrive, so the GPU never waits for a full batch.")


def test_an_entity_named_by_a_sibling_alias_is_shown_as_the_paper_names_it() -> None:
    """A tracked entity found by an alias that is not part of its name (an export variant, a
    former name) is never said to be named outright: the page shows what the paper wrote."""
    hopper = Entity(slug="h100", name="NVIDIA H100", kind="hardware", aliases=["H100", "H800"])
    vendor = Entity(slug="nvidia", name="NVIDIA", kind="organisation", aliases=["Nvidia"])
    abstract = (
        "We present a serving system for chat models. "
        "It handles 107% more requests on NVIDIA H800 clusters than the previous system."
    )
    found = {r.target: r for r in entity_relations([hopper, vendor], "A chat server", abstract, [])}
    assert found["h100"].detail == "names H800 (tracked as NVIDIA H100)"
    assert "H800" in found["h100"].evidence
    kinds = {"entity:h100": "hardware", "entity:nvidia": "organisation"}
    why = why_it_matters(list(found.values()), {"entity:h100": "NVIDIA H100"}, kinds)
    assert why == "Why it matters here: measured on H800 (tracked as NVIDIA H100)."
    plain = "We run every experiment on a single H100 GPU and report the mean of three runs."
    same = entity_relations([hopper], "A chat server", plain, [])
    assert [r.detail for r in same] == ["names NVIDIA H100"]


def test_a_vendor_named_only_as_the_maker_of_the_hardware_is_not_what_the_paper_concerns() -> None:
    """'On NVIDIA A800 clusters' names a GPU; the company is the paper's concern only where a
    sentence names it for itself (its product as a baseline, its stack built on)."""
    vendor = Entity(slug="nvidia", name="NVIDIA", kind="organisation", aliases=["Nvidia"])
    hardware_only = "We serve 2x more requests on NVIDIA A800 and (NVIDIA T4) GPUs than vLLM."
    assert not entity_relations([vendor], "A chat server", hardware_only, [])
    product = (
        "Our evaluation shows that the system outperforms NVIDIA FasterTransformer in both "
        "latency and throughput on NVIDIA A100 GPUs."
    )
    found = entity_relations([vendor], "A chat server", product, [])
    assert [r.detail for r in found] == ["names NVIDIA FasterTransformer (tracked as NVIDIA)"]


def test_a_model_a_paper_evaluates_is_what_it_was_measured_on() -> None:
    llama = Entity(slug="llama", name="Llama", kind="model", aliases=["Llama 2", "Llama"])
    sentence = "It brings up to 8x savings in data transfers, by evaluating Llama 2 and Mistral."
    found = entity_relations([llama], "A sparse attention", sentence, [])
    why = why_it_matters(found, {"entity:llama": "Llama"}, {"entity:llama": "model"})
    assert why == "Why it matters here: measured on Llama."


def test_why_it_matters_leads_with_the_strongest_relation_and_names_each_entity_once() -> None:
    hopper = Entity(slug="h100", name="NVIDIA H100", kind="hardware", aliases=["H100"])
    found = entity_relations([hopper], "A chat server", "We serve chat models on H100 GPUs.", [])
    first = Relation("first", "entity:h100", "the first source in this KB naming NVIDIA H100")
    gap = Relation("gap", "1", "", "We serve long prompts from a small KV cache.", "code")
    why = why_it_matters([*found, first, gap], {"gap:1": "long prompts"})
    assert why == (
        'Why it matters here: addresses the open gap "long prompts"; '
        "the first source in this KB naming NVIDIA H100."
    )


def test_entities_are_those_the_papers_own_sentences_name() -> None:
    """A system named only in related work, or in a sentence citing other work, is no entity
    of the paper."""
    spec = Entity(slug="spec", name="Speculative decoding", kind="method", aliases=[])
    pages = [
        (2, "Speculative decoding drafts tokens with a small model and verifies them."),
        (3, "We batch requests by length. Speculative decoding [7] is orthogonal to our work."),
    ]
    kinds = {2: {"related work"}, 3: {"design"}}
    assert not entity_relations([spec], "A batcher", "We batch requests.", pages, kinds)
    assert entity_relations([spec], "A batcher", "We batch requests.", pages[:1], {})
    ours = [(3, "In our setup, we pair the batcher with speculative decoding [7].")]
    assert entity_relations([spec], "A batcher", "We batch requests.", ours, kinds)


def test_a_contribution_pointing_back_at_its_problem_brings_the_sentence_naming_it() -> None:
    abstract = (
        "Decoding reads the whole KV cache at every step, so memory bandwidth bounds it. "
        "We introduce SparseRead, a post-training technique that alleviates this bottleneck by "
        "fetching only the keys that matter. It needs no fine-tuning."
    )
    text = contribution_sentences("SparseRead: Bandwidth-Efficient Decoding", abstract)
    assert text.startswith("Decoding reads the whole KV cache at every step")
    assert "alleviates this bottleneck" in text
    plain = "We introduce SparseRead, a technique that fetches only the keys that matter."
    assert contribution_sentences("SparseRead", f"Decoding is slow. {plain}") == plain


def test_a_contribution_naming_its_subject_only_by_pointing_back_brings_the_sentence_before() -> (
    None
):
    abstract = (
        "Draft-then-verify decoding has become a common way to cut decoding latency. "
        "Unlike token-by-token decoding, draft-then-verify decoding emits several tokens a step. "
        "This paper presents an overview of this fast-growing decoding family. "
        "We close with open questions."
    )
    text = contribution_sentences("A Survey of Draft-Then-Verify Decoding", abstract)
    assert text.startswith("Unlike token-by-token decoding, draft-then-verify decoding emits")
    assert text.endswith("of this fast-growing decoding family.")
    # an abstract without a title opens with what stands for one: not quoted twice
    opening = "Cache eviction drops tokens that later turn out to hold the answer."
    untitled = f"{opening} We address this failure with an abstaining reader."
    assert (
        contribution_sentences(opening, untitled)
        == "We address this failure with an abstaining reader."
    )
    # the paper pointing at itself names nothing it needs a sentence before for
    alone = "In this paper, we propose BlockCache, an allocator of fixed-size cache blocks."
    assert contribution_sentences("BlockCache", f"Serving needs memory. {alone}") == (
        "We propose BlockCache, an allocator of fixed-size cache blocks."
    )


def test_a_problem_sentence_pointing_back_in_turn_brings_the_one_naming_what_it_means() -> None:
    cause = "However, existing servers keep the cache of each request in one contiguous block."
    problem = "When managed inefficiently, this memory is wasted by fragmentation."
    contribution = "To address this problem, we propose PagedBlocks, an allocator of fixed blocks."
    abstract = f"Serving needs memory. {cause} {problem} {contribution} Code is released."
    text = contribution_sentences("PagedBlocks", abstract)
    # each sentence is the abstract's; the first no longer turns from one not shown
    assert text == f"Existing servers keep the cache{cause.split('servers keep the cache')[1]} " + (
        f"{problem} {contribution}"
    )
    # a problem sentence that names what it is about is enough
    named = "Fragmentation wastes a third of the memory of the cache."
    text = contribution_sentences("PagedBlocks", f"{cause} {named} {contribution}")
    assert text == f"{named} {contribution}"
    # when what "this memory" means does not fit, the contribution stands alone, without the
    # lead-in that points back at a problem it no longer shows
    long_cause = "Existing servers " + "keep a cache of each request, " * 20 + "in one block."
    text = contribution_sentences("PagedBlocks", f"{long_cause} {problem} {contribution}")
    assert text == "We propose PagedBlocks, an allocator of fixed blocks."
    answered = (
        "In this paper, we tackle this difficulty, and present PagedBlocks, a block allocator."
    )
    pressure = "While recent work eases this pressure, existing allocators remain " + "slow, " * 60
    text = contribution_sentences("PagedBlocks", f"{long_cause} {pressure.strip(', ')}. {answered}")
    # the rest stays the abstract's words, so the entry can be quoted
    assert text == "We tackle this difficulty, and present PagedBlocks, a block allocator."
    turned = "For example, a server wastes a third of the cache on fragmentation."
    text = contribution_sentences("PagedBlocks", f"Serving needs memory. {turned} {contribution}")
    assert text.startswith("A server wastes a third of the cache on fragmentation. To address")


def test_an_entity_is_named_by_what_the_papers_sentence_does_with_it() -> None:
    vllm = Entity(slug="vllm", name="vLLM", kind="method", aliases=[])
    orca = Entity(slug="orca", name="Orca", kind="method", aliases=[])
    llama = Entity(slug="llama", name="Llama", kind="model", aliases=["LLaMA"])
    abstract = (
        "We build our scheduler on top of vLLM, adding one queue per tenant and a preemption "
        "rule. It serves 2.1x more requests than Orca on "
        "LLaMA-13B, and the same as vLLM at low load."
    )
    found = entity_relations([vllm, orca, llama], "A scheduler", abstract, [])
    kinds = {"entity:vllm": "method", "entity:orca": "method", "entity:llama": "model"}
    assert why_it_matters(found, {}, kinds) == (
        "Why it matters here: builds on vLLM; compared against Orca; measured on Llama."
    )


def test_a_vendor_named_before_its_product_is_shown_with_it() -> None:
    vendor = Entity(slug="nvidia", name="NVIDIA", kind="organisation", aliases=["Nvidia"])
    sentence = "Our evaluation shows that we outperform NVIDIA FasterTransformer by 36.9x."
    found = entity_relations([vendor], "A serving system", sentence, [])
    assert [r.detail for r in found] == ["names NVIDIA FasterTransformer (tracked as NVIDIA)"]
    why = why_it_matters(found, {}, {"entity:nvidia": "organisation"})
    assert why == (
        "Why it matters here: compared against NVIDIA FasterTransformer (tracked as NVIDIA)."
    )


def test_a_paper_beating_or_running_on_an_entity_is_not_the_first_source_on_it() -> None:
    from frontier.curate.steps.firsts import is_about

    beaten = "Our evaluation shows that we outperform NVIDIA FasterTransformer by 36.9x."
    assert not is_about("NVIDIA FasterTransformer (tracked as NVIDIA)", beaten)
    run_on = "Kimi handles 115% more requests on NVIDIA A800 and H800 clusters."
    assert not is_about("H800 (tracked as NVIDIA H100)", run_on)
    assert is_about(
        "PagedAttention (tracked as vLLM)", "We propose PagedAttention, a paging scheme."
    )


def test_a_paper_is_the_first_naming_an_entity_only_when_no_paper_before_it_names_it() -> None:
    from frontier.curate.steps.firsts import first_naming

    seen: set[str] = set()
    names = {"llama": "Llama"}
    measured = {"llama": ("names Llama", "We run SpQR on LLaMA-65B.")}
    assert first_naming(measured, seen, names) == []  # run on Llama: not a source on it
    about = {"llama": ("names Llama", "We release Llama 2, a family of models.")}
    assert first_naming(about, seen, names) == []  # an older paper named it already
    (first,) = first_naming(about, set(), names)
    assert first.detail == "the first source in this KB naming Llama"


def test_hardware_named_in_brackets_after_the_cue_is_what_the_paper_measured_on() -> None:
    from frontier.curate.relations import entity_role

    sentence = "Speedups of 3.25x when using high-end GPUs (NVIDIA A100) and 4.5x on cheaper ones."
    assert entity_role("NVIDIA A100", sentence) == "measured on"


def test_an_entity_written_by_the_tail_of_its_name_has_its_role_read_there() -> None:
    from frontier.curate.relations import entity_role

    sentence = "For Mistral-7B on single A100 GPUs, we achieve 2.6x higher serving capacity."
    assert entity_role("NVIDIA A100", sentence) == "measured on"


def test_a_systems_name_is_whole_not_the_tail_of_a_hyphenated_word() -> None:
    from frontier.curate.claims import system_names

    offload = system_names(
        "Fast Inference of Mixture-of-Experts Language Models with Offloading",
        "We propose a strategy that runs Mixtral-8x7B on consumer hardware.",
    )
    assert "8x7B" not in offload and "Experts" not in offload
    assert system_names(
        "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve",
        "We introduce an efficient LLM inference scheduler, Sarathi-Serve, to address this.",
    ) == ["Sarathi-Serve"]
    assert "Self-Speculative" not in system_names("X", "We propose Self-Speculative Decoding.")


def test_a_footnote_mark_run_onto_the_systems_name_is_dropped() -> None:
    abstract = (
        "Requests mix prefill and decode work. We present FuseAttn1 — a GPU kernel that runs "
        "both in one launch. On long inputs it is 20% faster."
    )
    text = contribution_sentences("FuseAttn: Prefill-Decode Overlap in One Kernel", abstract)
    assert text.startswith("We present FuseAttn — a GPU kernel")
    # a digit the title gives the name is part of it
    kept = contribution_sentences("Model 2: A Family", "We present Model 2, a model family.")
    assert kept.startswith("We present Model 2")


def test_a_paper_builds_on_what_its_own_work_is_built_on_not_what_a_third_party_is() -> None:
    from frontier.curate.relations import entity_role

    third = "The CUDA VMM APIs are implemented in the closed-source NVIDIA drivers, so we cannot."
    assert entity_role("NVIDIA", third) == "concerns"
    assert entity_role("vLLM", "We implement our allocator on top of vLLM.") == "builds on"
    assert entity_role("vLLM", "PageKeep is built on top of vLLM's scheduler.") == "builds on"


def test_a_vendor_is_not_listed_beside_its_own_products() -> None:
    from frontier.curate.entry import entity_bits

    relations = [
        Relation("entity", "a100", "names NVIDIA A100", "We run on one A100 GPU."),
        Relation("entity", "nvidia", "names NVIDIA", "The NVIDIA drivers map the memory."),
        Relation("entity", "llama", "names Llama", "Llama models are served."),
    ]
    names = {"entity:a100": "NVIDIA A100", "entity:nvidia": "NVIDIA", "entity:llama": "Llama"}
    kinds = {"entity:a100": "hardware", "entity:nvidia": "org", "entity:llama": "model"}
    text = "; ".join(entity_bits(relations, names, set(), kinds))
    assert "NVIDIA A100" in text and "Llama" in text
    assert "and NVIDIA" not in text and not text.endswith("NVIDIA")
