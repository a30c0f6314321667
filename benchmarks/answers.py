"""Answers on the embedded model, one run: what the sentence check takes out of them and
whether what is left still cites the page that holds the answer.

For each question (every k-th of the retrieval set) the model answers over the sources `ask`
retrieves. The baseline is the model's own text with only made-up [n] removed; the checked
answer is what `ask` shows. Both are scored on the same replies:

- sentences, and how many the check removes (by reason);
- answers citing a source on an answer page (the right paper and a page of the question's);
- answers with no citation at all, and answers given the sources' closest sentences instead.

Before the model runs: how often the question's evidence reaches the model (sources reaching
past their chunk against chunks alone); the check on answers known to be right: the
hand-written answer of every question, cited to the source on its answer page, should stay
whole; and how often the sources' sentences quoted for an answer that cites nothing land on an
answer page. `--offline` stops there (no model).

    python benchmarks/answers.py [--workspace DIR] [--every K] [--offline]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sqlite3
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from retrieval import QUESTIONS, build_workspace, paper_ids_by_file

from frontier.llm.client import LLM
from frontier.store.retrieval import paper_dates
from frontier.synthesize.answering import Answering, best_answering, candidates, distinct, rank
from frontier.synthesize.ask import (
    ASK_PASSAGES,
    Answer,
    answer_over,
    answering_sentences,
    build_bundle,
    sources_budget,
    supporting,
    widened,
    with_pages,
)
from frontier.synthesize.bundle import Bundle, passage_bundle
from frontier.synthesize.citations import check_citations, cited_numbers
from frontier.synthesize.grounding import closest_sentences, ground_answer, unsupported_numbers
from frontier.synthesize.meaning import shipped_similarity
from frontier.synthesize.retrieve import Retriever
from frontier.text import SentenceStarts, split_sentences

OFFLINE_BUDGET = 6000  # bundle tokens for the model-free measures (the embedded model's room)
EVIDENCE_ENDS = 30  # characters of an evidence fragment's start or end that place it


def ranked_answering(bundle: Bundle, question: str) -> list[Answering]:
    """Every candidate sentence of the bundle's pages, best answer first."""
    return rank(question, candidates(bundle, bundle.pages), shipped_similarity())


def cites_answer_page(text: str, bundle: Bundle, paper_id: str, pages: set[int]) -> bool:
    for number in cited_numbers(text):
        if number in bundle.numbers():
            source = bundle.by_number(number)
            if source.paper_id == paper_id and pages & set(source.pages):
                return True
    return False


def sentence_count(text: str) -> int:
    return sum(len(split_sentences(line, SentenceStarts.MODEL_TEXT)) for line in text.splitlines())


async def answer_each(
    conn: sqlite3.Connection, settings: object, field: str, questions: list[dict]
) -> list[tuple[dict, Answer, float]]:
    llm = LLM(settings, conn, use_cache=False)  # type: ignore[arg-type]
    retriever = Retriever(conn)
    done = []
    try:
        for item in questions:
            bundle = build_bundle(conn, retriever, item["question"], sources_budget(llm))
            started = time.perf_counter()
            answer = await answer_over(llm, field, item["question"], bundle)
            done.append((item, answer, time.perf_counter() - started))
    finally:
        await llm.aclose()
    return done


def report(done: list[tuple[dict, Answer, float]], ids: dict[str, str]) -> None:
    raw_sentences = kept_sentences = raw_right = checked_right = 0
    raw_uncited = checked_uncited = quoted = 0
    reasons: Counter[str] = Counter()
    for item, answer, _ in done:
        if answer.result is None:
            continue
        paper, pages = ids[item["file"]], set(item["pages"])
        raw = check_citations(answer.result.content.strip(), answer.bundle.numbers()).text
        raw_sentences += sentence_count(raw)
        kept_sentences += sentence_count(raw) - len(answer.dropped)
        raw_right += cites_answer_page(raw, answer.bundle, paper, pages)
        checked_right += cites_answer_page(answer.text, answer.bundle, paper, pages)
        raw_uncited += not cited_numbers(raw)
        checked_uncited += not cited_numbers(answer.text)
        quoted += answer.quoted
        reasons.update(_kind(d.reason) for d in answer.dropped)
    n = len(done)
    seconds = [s for _, _, s in done]
    print(f"{n} questions, embedded model, p50 {statistics.median(seconds):.1f} s per answer")
    print(f"{'':<44}{'model text':>12}{'checked':>10}")
    print(f"{'sentences':<44}{raw_sentences:>12}{kept_sentences:>10}")
    print(f"{'answers citing an answer page':<44}{raw_right:>12}{checked_right:>10}")
    print(f"{'answers without any citation':<44}{raw_uncited:>12}{checked_uncited:>10}")
    print(f"{'answers given the closest source sentences':<44}{'':>12}{quoted:>10}")
    print("removed sentences by reason:")
    for reason, count in reasons.most_common():
        print(f"  {count:>4}  {reason}")
    share = kept_sentences / max(raw_sentences, 1)
    print(
        f"\nkept / model sentences: {share:.2f}; answer-page citations checked / model text: "
        f"{checked_right / max(raw_right, 1):.2f}"
    )


def _kind(reason: str) -> str:
    if reason.startswith("repeats"):
        return "repeats an earlier sentence"
    if reason.startswith("leads in"):
        return "a lead-in whose continuation went"
    if "without citing" in reason:
        return "states a number, cites nothing"
    if reason.startswith("states"):
        return "states a number its sources do not give"
    if reason.startswith("no sentence"):
        return "cites a source, no sentence of it bears it out"
    return "cites nothing, no source sentence bears it out"


def offline_bundles(
    conn: sqlite3.Connection, items: list[dict], budget: int = 0
) -> list[tuple[Bundle, Bundle]]:
    """Per question, the bundle of chunks alone and the one `ask` sends (reaching past them),
    with its sources' pages."""
    budget = budget or OFFLINE_BUDGET
    retriever = Retriever(conn)
    pairs = []
    for item in items:
        passages = supporting(item["question"], retriever.retrieve(item["question"], ASK_PASSAGES))
        dates = paper_dates(conn, {p.paper_id for p in passages})
        wide = widened(conn, item["question"], passages)
        pairs.append(
            (
                passage_bundle(passages, dates, budget),
                with_pages(conn, passage_bundle(wide, dates, budget)),
            )
        )
    return pairs


def _flat(text: str) -> str:
    return " ".join(text.lower().split())


def evidence_reach(items: list[dict], pairs: list[tuple[Bundle, Bundle]]) -> None:
    """How often the question's evidence fragment reaches the model: sources that reach past
    their chunk to the page's best window, against the chunks alone."""
    found = [0, 0]
    tokens = [0, 0]
    for item, pair in zip(items, pairs, strict=True):
        evidence = _flat(item["evidence"])
        for side, bundle in enumerate(pair):
            found[side] += any(evidence in _flat(s.text) for s in bundle.sources)
            tokens[side] += bundle.tokens()
    n = len(items)
    print(
        f"evidence in the bundle: {found[1]} of {n} at {tokens[1] / n:,.0f} tokens; "
        f"chunks alone {found[0]} at {tokens[0] / n:,.0f} ({found[1] / max(found[0], 1):.2f}x)"
    )


def hand_written_answers(
    ids: dict[str, str], items: list[dict], pairs: list[tuple[Bundle, Bundle]]
) -> None:
    """The check on answers known to be right: each question's hand-written answer, cited to the
    bundle source on its answer page. A removal is a false alarm unless the sentence states a
    number that source's excerpt lacks (the answer was written from the whole page)."""
    cited = whole = beyond = 0
    for item, (_, bundle) in zip(items, pairs, strict=True):
        on_page = [
            s
            for s in bundle.sources
            if s.paper_id == ids[item["file"]] and set(s.pages) & set(item["pages"])
        ]
        if not on_page:
            continue
        cited += 1
        text = f"{item['answer'].rstrip('.')} [{on_page[0].number}]."
        dropped = ground_answer(text, bundle, item["question"]).dropped
        whole += not dropped
        beyond += bool(dropped) and bool(unsupported_numbers(text, on_page[0].text))
    print(
        f"hand-written answers cited to their answer page: {cited}; kept whole {whole}; "
        f"removed for a number outside the excerpt {beyond}; false alarms {cited - whole - beyond}"
    )


def evidence_in(evidence: str, text: str) -> bool:
    """The evidence fragment is in the sentence, or begins or ends it (a fragment may run on
    into the next sentence)."""
    fragment, flat = _flat(evidence), _flat(text)
    head, tail = fragment[:EVIDENCE_ENDS], fragment[-EVIDENCE_ENDS:]
    return fragment in flat or (len(fragment) > EVIDENCE_ENDS and (head in flat or tail in flat))


def answering_holds_evidence(items: list[dict], pairs: list[tuple[Bundle, Bundle]]) -> int:
    """How often the question's evidence is among the answering sentences code finds (the
    top 3 of the sources' pages, no two saying the same); among those the ranking alone would
    show (those close enough to the best) and those `ask` shows (sentences about the system the
    question names, a sentence for each part of a two-part question); against the quotes an
    uncited answer was given before."""
    found = ranking = shown = before = 0
    for item, (_, bundle) in zip(items, pairs, strict=True):
        question, evidence = item["question"], item["evidence"]
        ranked = ranked_answering(bundle, question)
        found += any(evidence_in(evidence, a.text) for a in distinct(ranked))
        ranking += any(
            evidence_in(evidence, a.text) for a in best_answering(ranked, question=question)
        )
        shown += any(evidence_in(evidence, a.text) for a in answering_sentences(bundle, question))
        before += evidence_in(evidence, closest_sentences(bundle, question))
    print(
        f"evidence among the top 3 answering sentences: {found} of {len(items)}; among those "
        f"an answer shows: {shown}, the ranking alone {ranking} (the closest-sentence quotes: "
        f"{before})"
    )
    return found


def quotes_on_answer_pages(
    ids: dict[str, str], items: list[dict], pairs: list[tuple[Bundle, Bundle]]
) -> None:
    """For an answer that cites nothing: do the quoted source sentences land on an answer page,
    and does one of them hold the question's evidence fragment?"""
    on_page = evidence = 0
    for item, (_, bundle) in zip(items, pairs, strict=True):
        quotes = closest_sentences(bundle, item["question"])
        on_page += cites_answer_page(quotes, bundle, ids[item["file"]], set(item["pages"]))
        evidence += _flat(item["evidence"]) in _flat(quotes)
    print(
        f"quotes for an uncited answer: on an answer page for {on_page} of {len(items)}; "
        f"quoting the evidence fragment for {evidence}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, help="reuse (or create) this KB")
    parser.add_argument("--every", type=int, default=6, help="take every K-th question")
    parser.add_argument("--offline", action="store_true", help="only the model-free measures")
    args = parser.parse_args()
    items = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    questions = items[:: args.every]
    with tempfile.TemporaryDirectory() as tmp:
        ws = build_workspace(args.workspace or Path(tmp) / "kb")
        ids = paper_ids_by_file(ws)
        with contextlib.closing(ws.connect()) as conn:
            pairs = offline_bundles(conn, items)
            evidence_reach(items, pairs)
            answering_holds_evidence(items, pairs)
            hand_written_answers(ids, items, pairs)
            quotes_on_answer_pages(ids, items, pairs)
            if args.offline:
                return 0
            done = asyncio.run(
                answer_each(conn, ws.settings.llm, ws.settings.field.name, questions)
            )
    report(done, ids)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
