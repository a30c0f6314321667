"""Hybrid retrieval over chunks: BM25 (FTS5) and dense (stored MiniLM vectors), fused by rank.

What is ranked is a page (a page's rank in a list is that of its best chunk), so two chunks of
one page never take two of the top places. Fusion is reciprocal-rank with unequal weights: BM25
leads, dense adds what words miss, the rank of the paper's own title and abstract helps pick the
right paper, and BM25 over overlapping sentence windows of the candidate pages (`windows.py`)
finds evidence a chunk boundary cut in two."""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass, field

from frontier.llm.embeddings import Embedder, EmbeddingError, load_embedder
from frontier.store.dense import dense_search
from frontier.store.retrieval import chunk_locations, chunks_with_titles, embedding_coverage
from frontier.store.search import Hit, bm25_chunks, bm25_papers, fts_query
from frontier.synthesize import windows
from frontier.text import WordStyle, split_words

METHODS = ("bm25", "dense", "hybrid")
_CANDIDATES = 60
_WINDOW_CANDIDATES = 20  # pages the sentence windows look at again


@dataclass(frozen=True)
class Fusion:
    """Reciprocal-rank fusion: score = sum of weight / (k + rank) over the ranked lists."""

    k: float = 20.0
    bm25: float = 1.0
    dense: float = 0.5
    paper: float = 0.5
    window: float = 0.5


DEFAULT_FUSION = Fusion()


@dataclass(frozen=True)
class Unit:
    """What retrieval ranks: a page of a paper (or an abstract chunk), shown by one chunk."""

    chunk_id: int
    paper_id: str
    page: int | None

    @property
    def key(self) -> tuple[str, int | None, int]:
        return (self.paper_id, self.page, self.chunk_id if self.page is None else 0)

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unit) and self.key == other.key


def collapse(chunk_ids: list[int], where: dict[int, tuple[str, int | None]]) -> list[Unit]:
    """Ranked chunks to ranked pages: a page takes the rank of its best chunk."""
    seen: dict[tuple[str, int | None, int], Unit] = {}
    for chunk_id in chunk_ids:
        if chunk_id in where:
            paper_id, page = where[chunk_id]
            unit = Unit(chunk_id, paper_id, page)
            seen.setdefault(unit.key, unit)
    return list(seen.values())


@dataclass
class Passage:
    chunk_id: int
    paper_id: str
    title: str
    page: int | None
    section: str
    text: str
    score: float
    ranks: dict[str, int] = field(default_factory=dict)
    similarity: float | None = None  # cosine to the question; None when dense did not rank it

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


class Retriever:
    """Ranks chunks of one KB for a question; the embedder loads on first dense query."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        embedder: Embedder | None = None,
        fusion: Fusion = DEFAULT_FUSION,
    ) -> None:
        self.conn = conn
        self._embedder = embedder
        self.fusion = fusion
        self.dense_error: str | None = None

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = load_embedder()
        return self._embedder

    def dense_available(self) -> bool:
        """False when the embedding model is not installed: retrieval goes on with BM25 alone."""
        if self._embedder is None and self.dense_error is None:
            try:
                self._embedder = load_embedder()
            except EmbeddingError as exc:
                self.dense_error = str(exc)
        return self._embedder is not None

    def coverage(self) -> tuple[int, int]:
        """(chunks with a vector, all chunks): dense retrieval only sees the first."""
        return embedding_coverage(self.conn, self.embedder.name)

    def retrieve(
        self,
        question: str,
        limit: int = 8,
        method: str = "hybrid",
        papers: set[str] | None = None,
    ) -> list[Passage]:
        """The best `limit` pages for `question` (one passage each: the page's best chunk),
        only from `papers` when given."""
        if method not in METHODS:
            raise ValueError(f"unknown retrieval method {method!r} (use one of {METHODS})")
        lists, similarity = self._ranked_chunks(question, method, papers)
        where = chunk_locations(self.conn, {cid for ids in lists.values() for cid in ids})
        units: dict[str, list[Unit]] = {name: collapse(ids, where) for name, ids in lists.items()}
        scores, ranks = self._fuse(units, method)
        if method == "hybrid" and self.fusion.paper and scores:
            self._add_paper_prior(question, scores, ranks)
        if method == "hybrid" and self.fusion.window and scores:
            self._add_window_ranks(question, scores, ranks)
        best = sorted(scores, key=lambda unit: (-scores[unit], unit.chunk_id))[:limit]
        return self._passages(best, scores, ranks, similarity)

    def _ranked_chunks(
        self, question: str, method: str, papers: set[str] | None
    ) -> tuple[dict[str, list[int]], dict[int, float]]:
        lists: dict[str, list[int]] = {}
        similarity: dict[int, float] = {}
        if method in ("bm25", "hybrid"):
            found = bm25_chunks(self.conn, question, _CANDIDATES, papers)
            lists["bm25"] = [cid for cid, _ in found]
        if method in ("dense", "hybrid") and self.dense_available():
            query = self.embedder.embed([question])[0]
            nearest = dense_search(self.conn, self.embedder.name, query, _CANDIDATES, papers)
            lists["dense"] = [cid for cid, _ in nearest]
            similarity = dict(nearest)
        return lists, similarity

    def _fuse(
        self, units: dict[str, list[Unit]], method: str
    ) -> tuple[dict[Unit, float], dict[Unit, dict[str, int]]]:
        weights = {"bm25": self.fusion.bm25, "dense": self.fusion.dense}
        if method != "hybrid":
            weights = {method: 1.0}
        scores: dict[Unit, float] = {}
        ranks: dict[Unit, dict[str, int]] = {}
        # the first list (BM25 when present) chooses which chunk stands for a page
        chosen: dict[tuple[str, int | None, int], Unit] = {}
        for name, ranked in units.items():
            for rank, unit in enumerate(ranked, start=1):
                unit = chosen.setdefault(unit.key, unit)
                scores[unit] = scores.get(unit, 0.0) + weights[name] / (self.fusion.k + rank)
                ranks.setdefault(unit, {})[name] = rank
        return scores, ranks

    def _add_paper_prior(
        self, question: str, scores: dict[Unit, float], ranks: dict[Unit, dict[str, int]]
    ) -> None:
        """Pages of papers whose title and abstract match the question rank higher."""
        paper_rank = {
            paper_id: rank
            for rank, (paper_id, _) in enumerate(bm25_papers(self.conn, question, 20), start=1)
        }
        for unit in scores:
            if unit.paper_id in paper_rank:
                scores[unit] += self.fusion.paper / (self.fusion.k + paper_rank[unit.paper_id])
                ranks[unit]["paper"] = paper_rank[unit.paper_id]

    def _add_window_ranks(
        self, question: str, scores: dict[Unit, float], ranks: dict[Unit, dict[str, int]]
    ) -> None:
        """The best-scored pages so far rank higher when a sentence window matches the question
        (only those: a page further down cannot reach the top from this list alone)."""
        leading = sorted(scores, key=lambda unit: (-scores[unit], unit.chunk_id))
        by_page = {(u.paper_id, u.page): u for u in leading if u.page is not None}
        keys = list(by_page)[:_WINDOW_CANDIDATES]
        for rank, key in enumerate(windows.rank_pages(self.conn, question, keys), start=1):
            unit = by_page[key]
            scores[unit] += self.fusion.window / (self.fusion.k + rank)
            ranks[unit]["window"] = rank

    def _passages(
        self,
        units: list[Unit],
        scores: dict[Unit, float],
        ranks: dict[Unit, dict[str, int]],
        similarity: dict[int, float],
    ) -> list[Passage]:
        chunk_ids = [unit.chunk_id for unit in units]
        chunks = chunks_with_titles(self.conn, chunk_ids)
        return [
            Passage(
                chunk_id,
                chunks[chunk_id].paper_id,
                chunks[chunk_id].title,
                chunks[chunk_id].page,
                chunks[chunk_id].section,
                chunks[chunk_id].text,
                round(scores[unit], 6),
                ranks.get(unit, {}),
                round(similarity[chunk_id], 4) if chunk_id in similarity else None,
            )
            for unit, chunk_id in zip(units, chunk_ids, strict=True)
            if chunk_id in chunks
        ]


def content_words(text: str) -> set[str]:
    """The words of a question that BM25 searches for (question words dropped)."""
    query = fts_query(text) or ""
    return {word.strip('"') for word in query.split(" OR ") if word}


def word_overlap(question: str, text: str) -> float:
    """Share of the question's content words found in `text` (5-letter stems, case-insensitive)."""
    return prefix_overlap(question, word_prefixes(text))


def word_prefixes(text: str) -> set[str]:
    """The words of `text` as `word_overlap` compares them, for a text compared many times."""
    return {word[:5] for word in split_words(text.lower(), WordStyle.WITH_UNDERSCORE)}


def prefix_overlap(question: str, present: set[str]) -> float:
    wanted = {word[:5] for word in content_words(question)}
    return len(wanted & present) / len(wanted) if wanted else 0.0


def snippet(text: str, question: str, words: int = 32) -> str:
    """About `words` words of `text` around the first word of the question, matches in [ ]."""
    wanted = {word[:5] for word in content_words(question)}
    tokens = text.split()
    hits = [i for i, token in enumerate(tokens) if _stem(token) in wanted]
    start = max(0, (hits[0] if hits else 0) - words // 4)
    window = tokens[start : start + words]
    marked = [f"[{t}]" if _stem(t) in wanted else t for t in window]
    prefix = "… " if start else ""
    suffix = " …" if start + words < len(tokens) else ""
    return prefix + " ".join(marked) + suffix


def _stem(token: str) -> str:
    words = split_words(token.lower(), WordStyle.WITH_UNDERSCORE)
    return words[0][:5] if words else ""


# Finding a paper (not a passage) leans more on its title and abstract, and not on sentence
# windows: they pick a page, and for a paper's name they favour the pages densest in its common
# words, often another paper's.
PAPER_SEARCH_FUSION = Fusion(paper=1.5, window=0)


def search_papers(
    conn: sqlite3.Connection,
    question: str,
    limit: int = 10,
    embedder: Embedder | None = None,
    papers: set[str] | None = None,
) -> list[Hit]:
    """Papers ranked by their best page under hybrid retrieval (the `frontier search` view);
    with `papers`, among those alone."""
    retriever = Retriever(conn, embedder, PAPER_SEARCH_FUSION)
    passages = retriever.retrieve(question, max(limit * 5, 30), "hybrid", papers)
    best: dict[str, Passage] = {}
    for passage in passages:
        best.setdefault(passage.paper_id, passage)
    return [
        Hit(
            p.paper_id,
            p.title,
            p.page,
            p.section or None,
            snippet(p.text, question),
            round(p.score, 6),
        )
        for p in list(best.values())[:limit]
    ]
