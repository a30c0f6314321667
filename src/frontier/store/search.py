"""Full-text search: BM25 of chunks and of titles and abstracts (FTS5, or the lexical index on a
large KB)."""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass

from frontier.store import lexical
from frontier.text import WordStyle, split_words

_TITLE_WEIGHT, _ABSTRACT_WEIGHT = lexical.TITLE_WEIGHT, lexical.ABSTRACT_WEIGHT
# Question words carry no evidence; as OR terms they only add noise to BM25.
_STOPWORD_TEXT = (
    "a an and are as at be by can do does did for from how in is it "
    "its of on or that the this to was were what when where which who why with does "
    "their there these those into than then so such vs versus about much many "
    "use used uses using paper papers authors according also make made get"
)
_QUERY_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass
class Hit:
    id: str
    title: str
    page: int | None
    section: str | None
    snippet: str
    score: float

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def query_words(text: str) -> list[str]:
    """The words of a question that carry evidence, lowercased, each once."""
    words = [
        w
        for w in split_words(text.lower(), WordStyle.WITH_UNDERSCORE)
        if (len(w) > 1 or w.isdigit()) and w not in _QUERY_STOPWORDS
    ]
    return list(dict.fromkeys(words))


def fts_query(text: str) -> str | None:
    """User words to an FTS5 query: every word may match (OR), BM25 rewards those that do."""
    words = query_words(text)
    return _or_query(words) if words else None


def _or_query(words: list[str]) -> str:
    return " OR ".join(f'"{word}"' for word in words)


def bm25_chunks(
    conn: sqlite3.Connection,
    text: str,
    limit: int,
    allowed: set[str] | None = None,
    index_from: int | None = None,
) -> list[tuple[int, float]]:
    """(chunk id, BM25 score, higher is better) of the best `limit` chunks, optionally only
    chunks of the `allowed` papers; from the lexical index on a large KB, else FTS5."""
    words = query_words(text)
    if not words:
        return []
    fetch = limit if allowed is None else limit * 8
    index = lexical.index_in_use(conn, lexical.CHUNKS, index_from)
    if index is not None:
        found = index.search(words, fetch)
        owners = _owners(conn, [int(key) for key, _ in found]) if allowed is not None else {}
        rows = [(int(key), owners.get(int(key)), score) for key, score in found]
    else:
        rows = conn.execute(
            "SELECT c.id, c.paper_id, -bm25(chunks_fts) AS score FROM chunks_fts "
            "JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ? "
            "ORDER BY bm25(chunks_fts) LIMIT ?",
            (_or_query(words), fetch),
        ).fetchall()
    kept = [(row[0], row[2]) for row in rows if allowed is None or row[1] in allowed]
    return kept[:limit]


def chunk_frequencies(
    conn: sqlite3.Connection, words: list[str], index_from: int | None = None
) -> tuple[int, dict[str, int]]:
    """(chunks in the KB, chunks holding each word): what BM25 weighs a word by."""
    index = lexical.index_in_use(conn, lexical.CHUNKS, index_from)
    if index is not None:
        terms = {word: (lexical.stems(word) or [word])[0] for word in words}
        total, by_term = index.frequencies("text", list(set(terms.values())))
        return total, {word: by_term[term] for word, term in terms.items()}
    total = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
    return total, {
        word: int(
            conn.execute(
                "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (_or_query([word]),)
            ).fetchone()[0]
        )
        for word in words
    }


def _owners(conn: sqlite3.Connection, chunk_ids: list[int]) -> dict[int, str]:
    marks = ",".join("?" * len(chunk_ids))
    return dict(conn.execute(f"SELECT id, paper_id FROM chunks WHERE id IN ({marks})", chunk_ids))


def bm25_papers(
    conn: sqlite3.Connection, text: str, limit: int, index_from: int | None = None
) -> list[tuple[str, float]]:
    """(paper id, score) by title and abstract, title weighted higher."""
    words = query_words(text)
    if not words:
        return []
    index = lexical.index_in_use(conn, lexical.PAPERS, index_from)
    if index is not None:
        return [(str(key), score) for key, score in index.search(words, limit)]
    return [
        (row[0], row[1])
        for row in conn.execute(
            f"""SELECT paper_id, -bm25(papers_fts, 0, {_TITLE_WEIGHT}, {_ABSTRACT_WEIGHT})
                FROM papers_fts WHERE papers_fts MATCH ?
                ORDER BY bm25(papers_fts, 0, {_TITLE_WEIGHT}, {_ABSTRACT_WEIGHT}) LIMIT ?""",
            (_or_query(words), limit),
        )
    ]
