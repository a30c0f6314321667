"""BM25 for large KBs: a tantivy index of the chunks (and one of the papers' titles and
abstracts) beside the database. FTS5 scores every row that holds any query word, which at a
million chunks takes seconds for a field's common words; tantivy's block-max WAND visits only
rows that can still reach the top. Below the thresholds FTS5 serves (measured in
benchmarks/retrieval.py and benchmarks/scale.py).

The indexes are derived: the database logs every insert and delete of a chunk and every change
of a paper's title or abstract (`text_log`, filled by triggers), and an index applies the log
from where it stopped; a key is deleted before it is added again, so replaying is harmless."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from frontier.store.db import index_folder, transaction

if TYPE_CHECKING:
    import tantivy

TITLE_WEIGHT, ABSTRACT_WEIGHT = 8.0, 2.0
# FTS5 up to here: beyond, its p95 over a field's vocabulary passes ~50 ms on 2 cores
CHUNK_INDEX_FROM = 20_000  # chunks (about 500 papers with full text)
PAPER_INDEX_FROM = 5_000  # papers
_SEARCH_SYNC_LIMIT = 5_000  # log entries a search applies itself; more waits for curate
_BATCH = 20_000


@dataclass(frozen=True)
class Corpus:
    """What one index holds: rows of a table, their key and their weighted text fields."""

    name: str
    key_sql: str  # the key column, as the log and the rows name it
    fields: dict[str, float]
    rows_sql: str  # selects key and fields; "{where}" is filled with a key filter or nothing
    size_sql: str  # an upper bound of the row count that costs one b-tree lookup
    integer_keys: bool
    index_from: int  # rows from which the index answers instead of FTS5


CHUNKS = Corpus(
    "chunks",
    "id",
    {"text": 1.0},
    "SELECT id, text FROM chunks {where}",
    "SELECT coalesce(max(id), 0) FROM chunks",
    integer_keys=True,
    index_from=CHUNK_INDEX_FROM,
)
PAPERS = Corpus(
    "papers",
    "id",
    {"title": TITLE_WEIGHT, "abstract": ABSTRACT_WEIGHT},
    "SELECT id, title, coalesce(abstract, '') FROM papers {where}",
    "SELECT coalesce(max(rowid), 0) FROM papers",
    integer_keys=False,
    index_from=PAPER_INDEX_FROM,
)


def large_enough(conn: sqlite3.Connection, corpus: Corpus, threshold: int) -> bool:
    return int(conn.execute(corpus.size_sql).fetchone()[0]) >= threshold


def index_in_use(
    conn: sqlite3.Connection, corpus: Corpus, threshold: int | None = None
) -> LexicalIndex | None:
    """The corpus's index when the KB is large enough for it (`threshold` rows, else the
    corpus's default) and the index is ready; None when FTS5 answers."""
    if threshold is None:
        threshold = corpus.index_from
    return open_index(conn, corpus) if large_enough(conn, corpus, threshold) else None


@functools.cache
def _analyzer() -> tantivy.TextAnalyzer:
    import tantivy

    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def stems(text: str) -> list[str]:
    """The terms the index makes of `text` (tantivy's en_stem: words, lowercased, stemmed)."""
    return _analyzer().analyze(text)


def index_dir(conn: sqlite3.Connection, corpus: Corpus) -> Path | None:
    folder = index_folder(conn)
    return folder / f"{corpus.name}.tantivy" if folder else None


class LexicalIndex:
    """One corpus's tantivy index and the log position it reflects."""

    def __init__(self, directory: Path, corpus: Corpus) -> None:
        import tantivy

        self.directory, self.corpus = directory, corpus
        builder = tantivy.SchemaBuilder()
        if corpus.integer_keys:
            builder.add_integer_field("key", stored=True, indexed=True, fast=True)
        else:
            builder.add_text_field("key", stored=True, tokenizer_name="raw")
        for field in corpus.fields:
            builder.add_text_field(field, stored=False, tokenizer_name="en_stem")
        self.schema = builder.build()
        directory.mkdir(parents=True, exist_ok=True)
        self.index = tantivy.Index(self.schema, path=str(directory))
        self.applied = applied_position(directory)

    def _write_meta(self, applied: int) -> None:
        meta = self.directory / _META
        temp = meta.with_suffix(f".{os.getpid()}.tmp")
        temp.write_text(json.dumps({"applied": applied}))
        temp.replace(meta)
        self.applied = applied

    def search(self, words: list[str], limit: int) -> list[tuple[str | int, float]]:
        """(key, BM25 score) of the best rows holding any of the words."""
        if not words:
            return []
        query = self.index.parse_query(
            " ".join(words), list(self.corpus.fields), field_boosts=self.corpus.fields
        )
        searcher = self.index.searcher()
        hits = searcher.search(query, limit).hits
        return [(searcher.doc(address)["key"][0], float(score)) for score, address in hits]

    def frequencies(self, field: str, terms: list[str]) -> tuple[int, dict[str, int]]:
        """(rows in the index, rows holding each term) for one field's stemmed terms."""
        searcher = self.index.searcher()
        return searcher.num_docs, {term: searcher.doc_freq(field, term) for term in terms}

    def fill(self, conn: sqlite3.Connection) -> None:
        """Every row of the corpus into this empty index. The log position is read first: what
        changes while the rows are read is applied again by the next sync."""
        position = _log_position(conn)
        writer = self.index.writer(heap_size=256_000_000, num_threads=0)
        cursor = conn.execute(self.corpus.rows_sql.format(where=""))
        while rows := cursor.fetchmany(_BATCH):
            for row in rows:
                writer.add_document(self._document(row))
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self._write_meta(position)

    def apply_log(self, conn: sqlite3.Connection, upto: int) -> None:
        """Apply the logged changes after the applied position up to `upto`."""
        keys = [
            row[0]
            for row in conn.execute(
                "SELECT DISTINCT key FROM text_log WHERE corpus = ? AND seq > ? AND seq <= ?",
                (self.corpus.name, self.applied, upto),
            )
        ]
        if keys:
            self._rewrite(conn, keys)
        self._write_meta(upto)

    def _rewrite(self, conn: sqlite3.Connection, keys: list[str]) -> None:
        """Delete these keys, then add again those whose rows still exist."""
        writer = self.index.writer(heap_size=64_000_000, num_threads=1)
        for start in range(0, len(keys), 500):
            part = [int(k) if self.corpus.integer_keys else k for k in keys[start : start + 500]]
            for key in part:
                writer.delete_documents_by_term("key", key)
            marks = ",".join("?" * len(part))
            where = f"WHERE {self.corpus.key_sql} IN ({marks})"
            for row in conn.execute(self.corpus.rows_sql.format(where=where), part):
                writer.add_document(self._document(row))
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()

    def _document(self, row: tuple[Any, ...]) -> tantivy.Document:
        import tantivy

        values = dict(zip(self.corpus.fields, row[1:], strict=True))
        return tantivy.Document(key=row[0], **values)


_META = "frontier-log.json"


def applied_position(directory: Path) -> int:
    """The log position an index reflects, -1 when it was never completely built."""
    with contextlib.suppress(FileNotFoundError, ValueError, KeyError):
        return int(json.loads((directory / _META).read_text())["applied"])
    return -1


def _log_position(conn: sqlite3.Connection) -> int:
    """The last sequence number the log handed out (kept by SQLite across trims)."""
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'text_log'").fetchone()
    return int(row[0]) if row else 0


_OPEN: dict[Path, LexicalIndex] = {}


def open_index(conn: sqlite3.Connection, corpus: Corpus) -> LexicalIndex | None:
    """The corpus's index brought up to the log, or None when it must first be built (by
    `update_index`), lags too far, or is being written by another process: FTS5 answers then."""
    directory = index_dir(conn, corpus)
    applied = applied_position(directory) if directory is not None else -1
    if directory is None or applied < 0:
        return None
    index = _OPEN.get(directory)
    if index is None:
        index = _OPEN[directory] = LexicalIndex(directory, corpus)
    elif index.applied != applied:  # another process moved it on
        index.index.reload()
        index.applied = applied
    position = _log_position(conn)
    if position - applied > _SEARCH_SYNC_LIMIT:
        return None
    if position != applied:
        try:
            index.apply_log(conn, position)
        except ValueError:  # another process holds the writer lock
            return None
    return index


def update_index(conn: sqlite3.Connection, corpus: Corpus, threshold: int) -> bool:
    """Build or bring up to date the corpus's index when the KB is large enough to use it (curate
    calls this, so a search never waits for a build); True when it was written."""
    directory = index_dir(conn, corpus)
    if directory is None or not large_enough(conn, corpus, threshold):
        return False
    position = _log_position(conn)
    applied = applied_position(directory)
    if applied == position:
        return False
    try:
        if applied < 0 or position - applied > _BATCH * 10:
            _OPEN.pop(directory, None)
            shutil.rmtree(directory, ignore_errors=True)
            index = LexicalIndex(directory, corpus)
            index.fill(conn)
        else:
            index = _OPEN.get(directory) or LexicalIndex(directory, corpus)
            index.apply_log(conn, position)
    except ValueError:  # another process holds the writer lock and brings it up to date
        return False
    _OPEN[directory] = index
    return True


def update_lexical_indexes(
    conn: sqlite3.Connection, chunks_from: int | None = None, papers_from: int | None = None
) -> None:
    """Each index the KB is large enough to use brought in line, then the log trimmed to what
    all of them applied (all of it when none is in use)."""
    applied = []
    for corpus, given in ((CHUNKS, chunks_from), (PAPERS, papers_from)):
        threshold = corpus.index_from if given is None else given
        update_index(conn, corpus, threshold)
        directory = index_dir(conn, corpus)
        if directory is not None and large_enough(conn, corpus, threshold):
            applied.append(applied_position(directory))
    upto = min(applied, default=_log_position(conn))
    with transaction(conn):
        conn.execute("DELETE FROM text_log WHERE seq <= ?", (upto,))
