"""A second lexical look at the candidate pages: BM25 over windows of sentences that overlap.

Chunks have fixed boundaries, and evidence that one cuts in two scores low in both halves.
Windows of `SENTENCES` sentences, each starting `STRIDE` sentences after the last, see every
passage of that length whole at least once. A page ranks by its best window. Word weights (IDF)
come from all chunks of the KB, so a word common in the field counts little even when it is
rare among the candidates."""

from __future__ import annotations

import functools
import math
import sqlite3
from dataclasses import dataclass

from frontier.store.lexical import stems
from frontier.store.queries import page_texts
from frontier.store.search import chunk_frequencies, query_words
from frontier.text import SentenceStarts, WordStyle, split_sentences, split_words

SENTENCES = 12
STRIDE = 6
_K1, _B = 1.2, 0.75

PageKey = tuple[str, int]


@dataclass(frozen=True)
class Window:
    length: int  # terms in the window
    counts: dict[str, int]  # occurrences of each query term


def sentence_spans(count: int, size: int = SENTENCES, stride: int = STRIDE) -> list[range]:
    """Windows over `count` sentences, one starting every `stride`, until one reaches the end
    (that one may be shorter)."""
    if count <= size:
        return [range(count)]
    return [
        range(start, min(start + size, count)) for start in range(0, count - size + stride, stride)
    ]


@functools.lru_cache(maxsize=1024)
def sentences_of(text: str) -> tuple[str, ...]:
    """The sentences of a page (kept for pages read again)."""
    return tuple(split_sentences(text, SentenceStarts.PAGE))


@functools.lru_cache(maxsize=1024)
def sentence_words(text: str) -> tuple[tuple[str, ...], ...]:
    """Each sentence of `text` as its lowercased words, as the index's tokenizer counts them
    (kept for pages read again)."""
    return tuple(tuple(split_words(part.lower(), WordStyle.ALNUM)) for part in sentences_of(text))


def page_windows(text: str, terms: set[str]) -> list[Window]:
    """The page's windows, with how often each of `terms` occurs in each."""
    # a word and its stem share their first two letters; only such words are stemmed
    starts = {term[:2] for term in terms}
    sentences = sentence_words(text)
    hits = [
        [term for word in sentence if word[:2] in starts and (term := _stem(word)) in terms]
        for sentence in sentences
    ]
    windows = []
    for span in sentence_spans(len(sentences)):
        counts: dict[str, int] = {}
        for index in span:
            for term in hits[index]:
                counts[term] = counts.get(term, 0) + 1
        windows.append(Window(sum(len(sentences[index]) for index in span), counts))
    return windows


@functools.lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    found = stems(word)
    return found[0] if len(found) == 1 else ""


def term_weights(conn: sqlite3.Connection, question: str) -> dict[str, float]:
    """BM25's IDF of each stemmed question word, from the KB's chunks."""
    words = query_words(question)
    total, frequency = chunk_frequencies(conn, words)
    weights: dict[str, float] = {}
    for word in words:
        found = frequency.get(word, 0)
        idf = math.log(1 + (total - found + 0.5) / (found + 0.5))
        for term in stems(word):
            weights[term] = max(weights.get(term, 0.0), idf)
    return weights


def bm25(window: Window, weights: dict[str, float], average_length: float) -> float:
    norm = _K1 * (1 - _B + _B * window.length / average_length)
    return sum(
        weights[term] * count * (_K1 + 1) / (count + norm) for term, count in window.counts.items()
    )


def _window_scores(
    conn: sqlite3.Connection, question: str, pages: list[PageKey]
) -> dict[PageKey, tuple[list[float], str]]:
    """Each page's window scores, in window order, with the page text."""
    weights = term_weights(conn, question)
    if not weights or not pages:
        return {}
    terms = set(weights)
    texts = page_texts(conn, pages)
    windows = {key: page_windows(text, terms) for key, text in texts.items()}
    lengths = [window.length for found in windows.values() for window in found]
    average = max(1.0, sum(lengths) / max(1, len(lengths)))
    return {
        key: ([bm25(window, weights, average) for window in found], texts[key])
        for key, found in windows.items()
        if found
    }


def rank_pages(conn: sqlite3.Connection, question: str, pages: list[PageKey]) -> list[PageKey]:
    """`pages` that hold a question word, best window first."""
    best = {key: max(scores) for key, (scores, _) in _window_scores(conn, question, pages).items()}
    return sorted((key for key in best if best[key] > 0), key=lambda key: (-best[key], key))


def best_windows(
    conn: sqlite3.Connection, question: str, pages: list[PageKey]
) -> dict[PageKey, list[str]]:
    """The sentences of each page's best window (pages holding no question word left out)."""
    best: dict[PageKey, list[str]] = {}
    for key, (scores, text) in _window_scores(conn, question, pages).items():
        if max(scores) <= 0:
            continue
        sentences = sentences_of(text)
        span = sentence_spans(len(sentences))[scores.index(max(scores))]
        best[key] = [" ".join(sentences[index].split()) for index in span]
    return best
