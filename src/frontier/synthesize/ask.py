"""Cited answers from the KB: retrieve, bundle, ask the model, check every [n] it writes."""

from __future__ import annotations

import functools
import json
import re
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from frontier.curate.claims import system_names
from frontier.curate.earned import ModelGate, failed_words, stored_gate
from frontier.curate.support import content_stems
from frontier.llm.client import LLM
from frontier.llm.deadline import DeadlinePassed, before, stream_before
from frontier.llm.prompts import Prompt, load_prompt
from frontier.llm.records import ChatResult
from frontier.store.model_checks import record_checks
from frontier.store.queries import page_texts
from frontier.store.retrieval import chunk_texts, named_nowhere, paper_dates, triaged_papers
from frontier.store.synthesis import (
    asks_unwritten_since_written,
    insert_ask,
    paper_abstracts,
    paper_bylines,
    supported_ask_bundle,
)
from frontier.synthesize import windows
from frontier.synthesize.answering import (
    ANSWERING_SHOWN,
    Answering,
    answers_part,
    best_answering,
    candidates,
    distinct,
    is_read_row,
    lacks_asked_kind,
    page_units,
    question_names,
    question_parts,
    rank,
)
from frontier.synthesize.bundle import Bundle, Source, passage_bundle, token_budget
from frontier.synthesize.citations import check_citations, strip_citations, without_reference_marks
from frontier.synthesize.grounding import Dropped, ground_answer
from frontier.synthesize.meaning import says_nothing, shipped_similarity
from frontier.synthesize.presets import PRESETS
from frontier.synthesize.retrieve import Passage, Retriever, word_overlap
from frontier.text import MODEL_NAME, SentenceStarts, split_sentences

NO_SUPPORT = "The KB has no support for this question."
# A passage supports a question when it is close in meaning, or holds nearly all its content words
# and is not far in meaning: field questions keep their support, off-field ones get none
# (the thresholds are set on the retrieval questions; see BENCHMARKS.md).
MIN_SIMILARITY = 0.36
MIN_WORD_OVERLAP = 0.75
MIN_SIMILARITY_WITH_WORDS = 0.2
ASK_PASSAGES = 8
COINED_CHARS = 4  # shorter names ("Phi", "OPT") are too often a word of something else
PRESET_PAPERS = 12
# what an answer may write after the sources' answering sentences: three sentences and their
# citations; a longer reply is cut by the check anyway, and every token costs time on a CPU
ANSWER_SENTENCES = 3
ANSWER_TOKENS = 200
EMBEDDED_BUNDLE_TOKENS = 1500  # source tokens the embedded model reads in a few seconds on 2 cores
QUOTED_SHARE = 0.8  # of a written sentence's words in one shown quote: it says the quote again
QUOTE_REPEAT = "says again a source sentence shown above it"
SAMPLE_EVERY = 10  # a model whose answers keep failing the check still writes one in this many
MISSING_KIND = "The sources' closest sentences hold no answer of the kind asked ({kind}):"
MISSING_SUBJECT = "None of the sources' closest sentences is about {names}; they are the nearest:"


@dataclass
class Answer:
    question: str
    text: str
    bundle: Bundle
    supported: bool
    cited: list[int] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)  # sentences the sources do not bear out
    quoted: bool = False  # the sources' closest sentences were added: the model cited none
    result: ChatResult | None = None
    prompt_tag: str = ""
    ask_id: int | None = None
    answering: list[Answering] = field(default_factory=list)  # the sentences that answer, first
    thinking: bool = False
    seconds: float = 0.0  # the model call's wall time
    cost_usd: float = 0.0  # its tokens at the configured prices
    deadline_passed: bool = False  # the model did not finish in time: the answering sentences alone
    model_shown: bool = False  # a sentence the model wrote passed the check and is shown
    not_asked: str = ""  # why the model was not asked to write (its answers keep failing)

    def to_dict(self) -> dict[str, object]:
        usage = self.result.usage if self.result else None
        return {
            "id": self.ask_id,
            "question": self.question,
            "answer": self.text,
            "supported": self.supported,
            "cited": self.cited,
            "removed_citations": self.removed,
            "dropped_sentences": [asdict(d) for d in self.dropped],
            "quoted_sources": self.quoted,
            "answering_sentences": [
                {"n": a.number, "paper_id": a.paper_id, "page": a.page, "sentence": a.text}
                for a in self.answering
            ],
            "sources": [
                {
                    "n": s.number,
                    "paper_id": s.paper_id,
                    "title": s.title,
                    "pages": list(s.pages),
                }
                for s in self.bundle.sources
            ],
            "model": self.result.model if self.result else "",
            "prompt_version": self.prompt_tag,
            "reasoning": self.result.reasoning if self.result else "",
            "usage": usage.__dict__ if usage else {},
            "thinking": self.thinking,
            "deadline_passed": self.deadline_passed,
            "model_not_asked": self.not_asked,
            "seconds": round(self.seconds, 2),
            "cost_usd": self.cost_usd,
        }


def supporting(question: str, passages: list[Passage]) -> list[Passage]:
    """The passages that plausibly bear on the question; none means the KB cannot answer."""
    return [p for p in passages if _supports(question, p)]


def _supports(question: str, passage: Passage) -> bool:
    similarity = passage.similarity
    if similarity is not None and similarity >= MIN_SIMILARITY:
        return True
    close_enough = similarity is None or similarity >= MIN_SIMILARITY_WITH_WORDS
    return close_enough and word_overlap(question, f"{passage.title} {passage.text}") >= (
        MIN_WORD_OVERLAP
    )


def topic_papers(conn: sqlite3.Connection, topic: str | None) -> set[str] | None:
    """The papers of the topic; None (every paper) without one."""
    return triaged_papers(conn, topic) if topic else None


def build_bundle(
    conn: sqlite3.Connection,
    retriever: Retriever,
    question: str,
    budget: int,
    topic: str | None = None,
    preset: str = "",
) -> Bundle:
    """Retrieve and number the sources; a preset spreads them over more distinct papers."""
    papers = topic_papers(conn, topic)
    unnamed = [] if preset else named_nowhere(conn, coined_names(question))
    if unnamed:  # the nearest passages would be about something else
        return Bundle(unnamed=unnamed)
    if preset:
        passages = _one_per_paper(retriever.retrieve(question, PRESET_PAPERS * 4, "hybrid", papers))
        passages = passages[:PRESET_PAPERS]
    else:
        passages = supporting(
            question, retriever.retrieve(question, ASK_PASSAGES, "hybrid", papers)
        )
    dates = paper_dates(conn, {p.paper_id for p in passages})
    return with_pages(conn, passage_bundle(widened(conn, question, passages), dates, budget))


def coined_names(question: str) -> list[str]:
    """The coined system names of a question ("SqueezeLLM", "Sarathi-Serve", "vLLM"): a capital
    right after a lower-case letter (or after it and a hyphen); not an acronym ("GPUs"), nor a
    term written with one ("KV-cache")."""
    names = question_names(question)
    return sorted(name for name in names if len(name) >= COINED_CHARS and _COINED.search(name))


_COINED = re.compile(r"[a-z]-?[A-Z]")


def subject_names(question: str, titles: Iterable[str] = ()) -> list[str]:
    """The names a question is about: coined ("vLLM") or capitalised ("Medusa"), not an acronym
    of the field ("GPUs", "KV"); an acronym only when one of `titles` gives it as its paper's
    system ("AWQ: Activation-aware Weight Quantization ..."). A model ("LLaMA 7B") or a number
    format ("Int8") is what a system runs, not the system asked about."""
    systems = {name.casefold() for title in titles for name in system_names(title)}
    return sorted(
        n
        for n in {*question_names(question), *_CALLED.findall(question)}
        if (len(n) >= COINED_CHARS and not _ACRONYM.fullmatch(n)) or n.casefold() in systems
        if not (MODEL_NAME.fullmatch(n) or _NUMBER_FORMAT.fullmatch(n))
    )


# a system named as a call: "LLM.int8()"
_CALLED = re.compile(r"(?<![\w.])[A-Za-z][\w-]*\.[A-Za-z][\w-]*\(\)")
_NUMBER_FORMAT = re.compile(r"(?:u?int|fp|bf|nf|mx)\d+(?:-?e\dm\d)?", re.IGNORECASE)


_ACRONYM = re.compile(r"[A-Z\d-]+s?")


def no_support(bundle: Bundle) -> str:
    if not bundle.unnamed:
        return NO_SUPPORT
    return f"{NO_SUPPORT} No source in it names {', '.join(bundle.unnamed)}."


def with_pages(conn: sqlite3.Connection, bundle: Bundle) -> Bundle:
    """The bundle with the whole text of its sources' pages, where answers are sought."""
    keys = [(s.paper_id, s.pages[0]) for s in bundle.sources if s.pages]
    bundle.pages = page_texts(conn, keys)
    papers = sorted({s.paper_id for s in bundle.sources})
    bundle.abstracts = paper_abstracts(conn, papers)
    bundle.bylines = paper_bylines(conn, papers)
    return bundle


def answering_sentences(bundle: Bundle, question: str) -> list[Answering]:
    """The 1-3 sentences of the sources' pages that best answer the question (none without a
    question: a preset's query asks for no one fact)."""
    if not question.strip():
        return []
    found = [
        c
        for c in candidates(bundle, bundle.pages)
        if is_read_row(c.text) or not says_nothing(c.text, question)
    ]  # a quote is held to what any shown sentence is: it must say something
    ranked = rank(question, found, shipped_similarity())
    names = [n.lower() for n in subject_names(question, _titles(bundle))]
    # a question naming a system is answered by sentences about it, however far down they
    # rank: a close sentence on another system's run of the same model answers another question
    is_about = _is_about_in(bundle)
    about = [a for a in ranked if is_about(names, a)] if names else []
    shown = best_answering(about or ranked, question=question)
    return _each_part_answered(shown, question, about or ranked)


def _each_part_answered(
    shown: list[Answering], question: str, ranked: list[Answering]
) -> list[Answering]:
    """The shown sentences with, for each part of a two-part question none of them answers
    ("Which model and which GPUs ..."), the best ranked sentence answering that part in second
    place."""
    parts = question_parts(question)
    if len(parts) < 2 or not shown:
        return shown
    for part in parts:
        others = [p for p in parts if p != part]
        if any(answers_part(part, others, a.text) for a in shown):
            continue
        best = next((a for a in ranked if answers_part(part, others, a.text)), None)
        if best is not None:
            shown = distinct([shown[0], best, *shown[1:]], ANSWERING_SHOWN)
    return shown


def widened(conn: sqlite3.Connection, question: str, passages: list[Passage]) -> list[Passage]:
    """Each passage with the sentences of its page's best window that it lacks: a chunk's fixed
    bounds often cut the evidence off, and more chunks do not bring it back."""
    pages = [(p.paper_id, p.page) for p in passages if p.page is not None]
    best = windows.best_windows(conn, question, pages)
    out = []
    for passage in passages:
        sentences = best.get((passage.paper_id, passage.page or 0), [])
        held = " ".join(passage.text.split())
        missing = [sentence for sentence in sentences if sentence not in held]
        if missing:
            passage = replace(passage, text=f"{passage.text.rstrip()}\n…\n{' '.join(missing)}")
        out.append(passage)
    return out


def _one_per_paper(passages: list[Passage]) -> list[Passage]:
    seen: set[str] = set()
    kept = []
    for passage in passages:
        if passage.paper_id not in seen:
            seen.add(passage.paper_id)
            kept.append(passage)
    return kept


def prompt_for(preset: str) -> Prompt:
    if preset and preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    return load_prompt(f"preset-{preset}" if preset else "answer")


async def answer_over(
    llm: LLM,
    field_name: str,
    question: str,
    bundle: Bundle,
    *,
    preset: str = "",
    think: bool = False,
    deadline: float | None = None,
    leading: list[Answering] | None = None,
    gate: AnswerGate | None = None,
) -> Answer:
    """Ask over a fixed bundle: the bundle comes first in the prompt so follow-ups reuse it.
    The answer leads with the `leading` sentences (a preset's, found by code) or else the
    answering sentences code ranks. Past the `deadline` (a `time.monotonic()` value) the call
    is cancelled and the answer is those sentences alone; so it is when the `gate` says the
    model's answers keep failing the check."""
    if not bundle.sources:
        return Answer(question, no_support(bundle), bundle, supported=False)
    prompt = prompt_for(preset)
    answering = leading or answering_sentences(bundle, question)
    if gate and not gate.writes:
        return without_model(question, bundle, answering, prompt.tag, gate.note())
    messages = _messages(prompt, field_name, question, bundle.within(budget_for(llm)), answering)
    started = time.perf_counter()
    call = llm.chat(
        messages,
        purpose=f"ask:{preset or 'answer'}",
        prompt_version=prompt.tag,
        think=think,
        max_tokens=_reply_tokens(llm, preset, think),
    )
    try:
        result = await before(deadline, call)
    except DeadlinePassed:
        answer = at_deadline(question, bundle, answering, prompt.tag)
        answer.thinking, answer.seconds = think, time.perf_counter() - started
        return answer
    answer = _checked(question, bundle, result, prompt.tag, answering)
    answer.thinking, answer.seconds = think, time.perf_counter() - started
    answer.cost_usd = _cost(llm, result)
    return answer


def _cost(llm: LLM, result: ChatResult) -> float:
    """The reply's tokens at the configured prices (0 for a local model)."""
    usage = result.usage
    return round(
        usage.prompt_tokens / 1e6 * llm.settings.price_prompt_per_m
        + usage.completion_tokens / 1e6 * llm.settings.price_completion_per_m,
        6,
    )


def _reply_tokens(llm: LLM, preset: str, think: bool) -> int:
    """Room for what can be shown: a preset writes a page, reasoning needs its own room."""
    cap = llm.settings.max_output_tokens
    return cap if preset or think else min(cap, ANSWER_TOKENS)


async def stream_answer(
    llm: LLM,
    field_name: str,
    question: str,
    bundle: Bundle,
    *,
    preset: str = "",
    deadline: float | None = None,
    leading: list[Answering] | None = None,
    gate: AnswerGate | None = None,
) -> AsyncIterator[str | Answer]:
    """`answer_over` streamed: the text as the model writes it, then the checked Answer (past
    the deadline, or when the `gate` does not ask the model, the answering sentences alone)."""
    if not bundle.sources:
        yield Answer(question, no_support(bundle), bundle, supported=False)
        return
    prompt = prompt_for(preset)
    answering = leading or answering_sentences(bundle, question)
    if gate and not gate.writes:
        yield without_model(question, bundle, answering, prompt.tag, gate.note())
        return
    messages = _messages(prompt, field_name, question, bundle.within(budget_for(llm)), answering)
    purpose = f"ask:{preset or 'answer'}"
    stream = llm.chat_stream(
        messages,
        purpose=purpose,
        prompt_version=prompt.tag,
        max_tokens=_reply_tokens(llm, preset, False),
    )
    try:
        async for item in stream_before(deadline, stream):
            if isinstance(item, str):
                yield item
            else:
                yield _checked(question, bundle, item, prompt.tag, answering)
    except DeadlinePassed:
        yield at_deadline(question, bundle, answering, prompt.tag)


def at_deadline(question: str, bundle: Bundle, answering: list[Answering], tag: str) -> Answer:
    """The answer of a model that did not finish in time: what code found, none of its text."""
    return replace(without_model(question, bundle, answering, tag, ""), deadline_passed=True)


def without_model(
    question: str, bundle: Bundle, answering: list[Answering], tag: str, not_asked: str
) -> Answer:
    """The answer code gives alone: the answering sentences, quoted and cited."""
    check = check_citations(quote_lines(answering, question, bundle), bundle.numbers())
    return Answer(
        question,
        check.text,
        bundle,
        supported=True,
        cited=check.cited,
        prompt_tag=tag,
        answering=answering,
        not_asked=not_asked,
    )


@dataclass
class AnswerGate:
    """Whether the model writes an answer over the answering sentences. An answer's reply
    passes when a sentence of it is shown; once 90% of the last WINDOW replies of this model and
    prompt version (or of the record shipped for it) failed, answers are code's sentences
    alone, and one in SAMPLE_EVERY still asks the model, so a better one is noticed."""

    gate: ModelGate
    writes: bool

    def note(self) -> str:
        """Why the model did not write this answer ('' when it did)."""
        if self.writes:
            return ""
        found = "shown are the sentences of the sources that answer, found without it"
        if self.gate.mode == "never":
            return f"the model was not asked ([curate] model_steps sets answer to never); {found}"
        return (
            f"the model was not asked: its answers {failed_words(*self.gate.judged_on())}; "
            f"{found} (one answer in {SAMPLE_EVERY} still asks it)"
        )


async def open_answer_gate(
    conn: sqlite3.Connection, llm: LLM, preset: str, mode: str, asked: bool = False
) -> AnswerGate:
    """The gate of the prompt the answer uses; `asked` when the user asked for the model
    (reasoning on, or the two compared), which always writes."""
    prompt = prompt_for(preset)
    model = await llm.model_name()
    gate = stored_gate(conn, prompt.name, model, prompt.tag, mode)
    sampled = mode == "auto" and asks_unwritten_since_written(conn, prompt.tag) >= SAMPLE_EVERY - 1
    return AnswerGate(gate, asked or not gate.distrusted() or sampled)


def close_answer_gate(
    conn: sqlite3.Connection, gate: AnswerGate, answer: Answer, run_id: int | None
) -> None:
    """Record whether the model's reply passed: a sentence of it shown (no reply, no record)."""
    if gate.writes and answer.result is not None and not answer.deadline_passed:
        step, model, tag = gate.gate.step, gate.gate.model, gate.gate.prompt_version
        record_checks(conn, step, model, tag, [answer.model_shown], run_id)


def _messages(
    prompt: Prompt,
    field_name: str,
    question: str,
    bundle: Bundle,
    answering: list[Answering] | None = None,
) -> list[dict[str, Any]]:
    return prompt.messages(
        field=field_name,
        bundle=bundle.render(),
        question=question,
        max_sentences=ANSWER_SENTENCES,
        answering=quote_lines(answering or []),
    )


def quote_lines(
    answering: list[Answering], question: str = "", bundle: Bundle | None = None
) -> str:
    """The answering sentences as shown: each quoted (a table's row as read) and cited. The
    paper's own reference marks ("[58]") are left out: the answer's [n] name its sources.
    When none is about the system the `question` names (in its words or its paper's title), or
    none holds the accelerator, number or model it asks for, a first line says so: the closest
    sentences are then context, not the answer."""
    lead = missing_subject_line(question, answering, bundle) if question else ""
    lines = [lead or missing_kind_line(question, answering)] if question else []
    for a in answering:
        text = without_reference_marks(a.text)
        lines.append(f"- {text} [{a.number}]" if is_read_row(text) else f'- "{text}" [{a.number}]')
    return "\n".join(filter(None, lines))


def missing_subject_line(
    question: str, answering: list[Answering], bundle: Bundle | None = None
) -> str:
    """A line saying no answering sentence is about the system the question names ("What
    speed-up does Medusa get?" answered by sentences on EAGLE), when none names it, nor a
    sentence beside it, nor its paper's title or abstract (the vLLM paper's title says
    PagedAttention, its abstract says vLLM); else "". A paper that only cites the system
    in passing on the page is not about it."""
    names = subject_names(question, _titles(bundle) if bundle else [])
    if not answering or not names:
        return ""
    is_about = _is_about_in(bundle)
    missing = [n for n in names if not any(is_about([n.lower()], a) for a in answering)]
    return MISSING_SUBJECT.format(names=" or ".join(missing)) if missing == names else ""


# a page is read into units once, however many of its sentences are looked at
_page_units = functools.lru_cache(maxsize=64)(page_units)


def _titles(bundle: Bundle) -> list[str]:
    return [source.title for source in bundle.sources]


def _is_about_in(bundle: Bundle | None) -> Callable[[list[str], Answering], bool]:
    """Whether one of the (lower-case) names is named where a subject of the question may be
    for an answering sentence: its paper's title, byline (a question may name a paper by its
    authors or its lab) or abstract, or the sentence and those beside it on its page. Each
    paper's front matter is read once, however many sentences are asked about."""
    if bundle is None:
        return lambda names, answering: any(n in answering.text.lower() for n in names)
    fronts = {
        s.paper_id: f"{s.title} {bundle.bylines.get(s.paper_id, '')} "
        f"{bundle.abstracts.get(s.paper_id, '')}".lower()
        for s in bundle.sources
    }

    def is_about(names: list[str], answering: Answering) -> bool:
        if any(n in fronts.get(answering.paper_id, "") for n in names):
            return True
        page = bundle.pages.get((answering.paper_id, answering.page or 0), "")
        units = _page_units(page)
        at = next((i for i, unit in enumerate(units) if answering.text in unit), None)
        beside = units[max(0, at - 1) : at + 2] if at is not None else []
        near = " ".join([answering.text, *beside]).lower()
        return any(n in near for n in names)

    return is_about


def missing_kind_line(question: str, answering: list[Answering]) -> str:
    """A line saying the answering sentences hold no answer of the kind the question asks for
    (an accelerator, a number, a model), when none of them does; else ""."""
    if not answering:
        return ""
    missing = {lacks_asked_kind(question, a.text) for a in answering}
    if "" in missing:
        return ""
    return MISSING_KIND.format(kind=missing.pop())


# "The answer is:", "The answer to this question is:": a frame around what follows, no sentence
_LEAD_IN = re.compile(
    r"^(?:[-*]\s*)?(?:so,?\s+|in short,?\s+)?the (?:short |final |direct )?answer"
    r"(?: to (?:this|the|your) question)? is\s*:?\s*",
    re.IGNORECASE | re.MULTILINE,
)


def without_lead_ins(text: str) -> str:
    """The model's text without the frames it puts before its answer: what follows is checked
    as it stands ("The answer is: 20x." is the bare number "20x.")."""
    return _LEAD_IN.sub("", text)


def _checked(
    question: str, bundle: Bundle, result: ChatResult, tag: str, answering: list[Answering]
) -> Answer:
    """The answering sentences first; then each sentence of the model's that does not say a
    shown quote again held against the sources it cites, then made-up citations out (reported
    whether or not their sentence stayed)."""
    written = without_lead_ins(
        _without_cut_end(result.content.strip())
        if result.finish_reason == "length"
        else (result.content.strip())
    )
    # a sentence saying a shown quote again goes as that, before any check could name another
    # fault of it (its source's excerpt may lack the quote's page)
    unquoted, repeats = _without_quoted(written, answering)
    grounded = ground_answer(unquoted, bundle, question, quotes=bool(answering))
    shown = "\n\n".join(filter(None, [quote_lines(answering, question, bundle), grounded.text]))
    check = check_citations(shown, bundle.numbers())
    made_up = check_citations(result.content, bundle.numbers()).removed
    return Answer(
        question,
        check.text,
        bundle,
        True,
        check.cited,
        made_up,
        repeats + grounded.dropped,
        grounded.quoted,
        result,
        tag,
        answering=answering,
        model_shown=bool(grounded.text.strip()),
    )


def _without_cut_end(text: str) -> str:
    """A reply cut off at its token cap without the sentence it was in the middle of."""
    if text.rstrip().endswith((".", "!", "?", "]")):
        return text
    end = max(text.rfind(mark) for mark in (". ", ".\n", "]\n", "] ", "?", "!"))
    return text[: end + 1] if end >= 0 else ""


def _without_quoted(text: str, answering: list[Answering]) -> tuple[str, list[Dropped]]:
    """The text without the sentences that only say a shown quote again."""
    quotes = [content_stems(a.text) for a in answering]
    dropped: list[Dropped] = []
    lines = []
    for line in text.split("\n"):
        kept = []
        for sentence in split_sentences(line, SentenceStarts.MODEL_TEXT):
            words = content_stems(strip_citations(sentence))
            if words and any(len(words & q) >= QUOTED_SHARE * len(words) for q in quotes):
                dropped.append(Dropped(sentence.strip(), QUOTE_REPEAT))
            else:
                kept.append(sentence)
        lines.append(" ".join(kept))
    return "\n".join(lines).strip(), dropped


def save_answer(
    conn: sqlite3.Connection, answer: Answer, run_id: int, topic: str, preset: str
) -> int:
    answer.ask_id = insert_ask(
        conn,
        run_id,
        {
            "question": answer.question,
            "preset": preset,
            "topic": topic,
            "bundle": json.dumps(answer.bundle.to_list(with_text=True)),
            "answer": answer.text,
            "supported": int(answer.supported),
            "cited": json.dumps(answer.cited),
            "removed": json.dumps(answer.removed),
            "dropped": json.dumps([asdict(d) for d in answer.dropped]),
            "model": answer.result.model if answer.result else "",
            "prompt_version": answer.prompt_tag,
        },
    )
    return answer.ask_id


def bundle_of_ask(conn: sqlite3.Connection, ask_id: int | None) -> tuple[int, Bundle] | None:
    """The bundle an earlier answer used (the latest when `ask_id` is None), for follow-ups."""
    found = supported_ask_bundle(conn, ask_id)
    if found is None:
        return None
    found_id, stored = found
    sources: list[Source] = []
    for item in json.loads(stored):
        chunk_ids = list(item["chunk_ids"])
        texts = chunk_texts(conn, chunk_ids)
        if not texts:
            continue  # the paper was re-ingested since; its old chunks are gone
        sources.append(
            Source(
                len(sources) + 1,
                item["paper_id"],
                item["title"],
                item["date"],
                tuple(item["pages"]),
                item.get("text") or "\n".join(texts),  # stored text: what the model was sent
                tuple(chunk_ids),
            )
        )
    return found_id, with_pages(conn, Bundle(sources))


def budget_for(llm: LLM) -> int:
    """The sources' tokens the model reads: what its window leaves, and on the embedded model
    no more than it reads in a few seconds."""
    budget = sources_budget(llm)
    return min(budget, EMBEDDED_BUNDLE_TOKENS) if llm.embedded else budget


def sources_budget(llm: LLM) -> int:
    """The bundle's tokens: what the model's window leaves. Code seeks the answering sentences
    in every source's page, also of sources a slow model is not sent (`Bundle.within`)."""
    return token_budget(llm.context_size, llm.settings.max_output_tokens)
