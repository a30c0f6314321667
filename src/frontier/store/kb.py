"""Read the curated KB from the store into plain records, sorted the same way every time."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from frontier.config import Settings
from frontier.model import (
    Chunk,
    Claim,
    Conflict,
    ConflictEvidence,
    EntityInfo,
    Entry,
    Gap,
    Paper,
    Relation,
    Triage,
)
from frontier.store.claims import all_claims
from frontier.store.digests import ids_param

T = TypeVar("T")


@dataclass
class KB:
    """Everything the vault shows, with lookups by paper and by relation target."""

    papers: dict[str, Paper]
    triage: list[Triage]
    claims: list[Claim]
    entries: list[Entry]
    relations: list[Relation]
    gaps: list[Gap]
    conflicts: list[Conflict]
    entities: list[EntityInfo]
    evidence: dict[int, ConflictEvidence] = field(default_factory=dict)
    _index: dict[str, dict[Any, list[Any]]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._index = {
            "triage": _group(self.triage, lambda t: t.paper_id),
            "claims": _group(self.claims, lambda c: c.paper_id),
            "entries": _group(self.entries, lambda e: e.paper_id),
            "relations": _group(self.relations, lambda r: r.paper_id),
            "targets": _group(self.relations, lambda r: (r.kind, r.target)),
        }

    def triage_of(self, paper_id: str) -> list[Triage]:
        return self._index["triage"].get(paper_id, [])

    def claims_of(self, paper_id: str) -> list[Claim]:
        return self._index["claims"].get(paper_id, [])

    def entries_of(self, paper_id: str) -> list[Entry]:
        return self._index["entries"].get(paper_id, [])

    def relations_of(self, paper_id: str) -> list[Relation]:
        return self._index["relations"].get(paper_id, [])

    def relations_to(self, kind: str, target: str) -> list[Relation]:
        """Relations of one kind to one target, newest paper first."""
        found = self._index["targets"].get((kind, target), [])
        return sort_newest(found, lambda r: self.papers[r.paper_id].date, lambda r: r.paper_id)

    def entry(self, paper_id: str, topic: str) -> Entry | None:
        return next((e for e in self.entries_of(paper_id) if e.topic == topic), None)

    def topic_papers(self, slug: str) -> list[Paper]:
        """Papers triaged into the topic or holding an entry for it, newest first."""
        ids = {t.paper_id for t in self.triage if t.topic == slug}
        ids |= {e.paper_id for e in self.entries if e.topic == slug}
        return sort_papers(self.papers[i] for i in ids if i in self.papers)


def _group(rows: Iterable[T], key: Any) -> dict[Any, list[T]]:
    grouped: dict[Any, list[T]] = defaultdict(list)
    for row in rows:
        grouped[key(row)].append(row)
    return dict(grouped)


def sort_newest(items: Iterable[T], date: Any, ident: Any) -> list[T]:
    """Date descending, then id ascending; undated items last."""
    by_id = sorted(items, key=ident)
    return sorted(by_id, key=date, reverse=True)


def sort_papers(papers: Iterable[Paper]) -> list[Paper]:
    return sort_newest(papers, lambda p: p.date, lambda p: p.id)


@contextmanager
def snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Reads that see one consistent state of the store."""
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        conn.execute("COMMIT")


def load_kb(
    conn: sqlite3.Connection, settings: Settings, only: Collection[str] | None = None
) -> KB:
    """The whole curated KB, read in one snapshot; with `only`, the rows of those papers alone
    (gaps, conflicts and entities whole, the evidence of conflicts between those papers)."""
    among = None if only is None else ids_param(only)
    with snapshot(conn):
        papers = {p.id: p for p in load_papers(conn, among)}
        return KB(
            papers=papers,
            triage=_known(load_triage(conn, among), papers),
            claims=_known(load_claims(conn, among), papers),
            entries=_known(_load_entries(conn, among), papers),
            relations=_known(_load_relations(conn, among), papers),
            gaps=load_gaps(conn),
            conflicts=load_conflicts(conn),
            entities=load_entities(conn, settings),
            evidence=load_conflict_evidence(conn, among),
        )


def _where(column: str, among: str | None) -> tuple[str, tuple[str, ...]]:
    """A WHERE clause keeping the rows whose `column` is among the ids (all rows for None)."""
    if among is None:
        return "", ()
    return f" WHERE {column} IN (SELECT value FROM json_each(?))", (among,)


def load_conflict_evidence(
    conn: sqlite3.Connection, among: str | None = None
) -> dict[int, ConflictEvidence]:
    """The claim pairs behind conflicts (with `among`, those between the listed papers)."""
    where, params = _where("paper_a", among)
    if among is not None:
        where, params = where + " AND paper_b IN (SELECT value FROM json_each(?))", params * 2
    rows = conn.execute(
        "SELECT conflict_id, paper_a, paper_b, metric, setting, quote_a, quote_b, page_a, "
        "page_b, value_a, value_b, why, label, reason, later, model, prompt_version "
        f"FROM conflict_claims{where} ORDER BY conflict_id",
        params,
    ).fetchall()
    return {
        r["conflict_id"]: ConflictEvidence(**(dict(r) | {"later": tuple(json.loads(r["later"]))}))
        for r in rows
    }


def _known(rows: list[T], papers: dict[str, Paper]) -> list[T]:
    """Rows of stored papers only (a no-op while foreign keys hold)."""
    return [row for row in rows if getattr(row, "paper_id", None) in papers]


def _date(value: str | None) -> str:
    return (value or "")[:10]


# the columns a Paper is read from, in every query that gives one
PAPER_COLUMNS = (
    "id, title, abstract, authors, published, updated, categories, kind, arxiv_id, url, source, "
    "collection, title_provisional, text_version"
)


def author_names(stored: str | None) -> tuple[str, ...]:
    """The authors as a paper's row stores them (a JSON list); none when it holds no list."""
    try:
        names = json.loads(stored or "[]")
    except json.JSONDecodeError:
        return ()
    return tuple(str(n) for n in names) if isinstance(names, list) else ()


def paper_from_row(row: sqlite3.Row) -> Paper:
    """A Paper from a row of PAPER_COLUMNS."""
    return Paper(
        id=row["id"],
        title=row["title"],
        abstract=row["abstract"],
        authors=author_names(row["authors"]),
        published=row["published"],
        updated=row["updated"],
        categories=tuple(json.loads(row["categories"] or "[]")),
        kind=row["kind"],
        arxiv_id=row["arxiv_id"] or "",
        url=row["url"] or "",
        source=row["source"],
        collection=row["collection"],
        title_provisional=bool(row["title_provisional"]),
        text_version=row["text_version"],
    )


def load_papers(conn: sqlite3.Connection, among: str | None = None) -> list[Paper]:
    """Every stored paper (or those among the ids), newest first."""
    where, params = _where("id", among)
    rows = conn.execute(f"SELECT {PAPER_COLUMNS} FROM papers{where}", params)
    return sort_papers(paper_from_row(r) for r in rows)


# the columns a Chunk is read from
CHUNK_COLUMNS = "id, ord, page, section, text, n_tokens"


def chunk_from_row(row: sqlite3.Row) -> Chunk:
    """A Chunk from a row of CHUNK_COLUMNS (its names are the record's fields)."""
    return Chunk(**dict(row))


def paper_dois(conn: sqlite3.Connection) -> dict[str, str | None]:
    """Each paper's DOI (None when it has none)."""
    return dict(conn.execute("SELECT id, doi FROM papers").fetchall())


def _paper_rows(
    conn: sqlite3.Connection, columns: str, table: str, order: str, among: str | None
) -> sqlite3.Cursor:
    """The `columns` of the rows of `table` whose paper is among the ids (all for None)."""
    where, params = _where("paper_id", among)
    return conn.execute(f"SELECT {columns} FROM {table}{where} ORDER BY {order}", params)


def load_triage(conn: sqlite3.Connection, among: str | None = None) -> list[Triage]:
    columns = "paper_id, topic, stage, reason, scope_line"
    rows = _paper_rows(conn, columns, "triage", "paper_id, topic", among)
    return [Triage(**dict(r)) for r in rows]


def load_claims(conn: sqlite3.Connection, among: str | None = None) -> list[Claim]:
    return all_claims(conn, *_where("paper_id", among))


def _load_entries(conn: sqlite3.Connection, among: str | None = None) -> list[Entry]:
    columns = "paper_id, topic, text, model, prompt_version, run_id, at"
    rows = _paper_rows(conn, columns, "entries", "paper_id, topic", among)
    return [
        Entry(
            paper_id=r["paper_id"],
            topic=r["topic"],
            text=r["text"],
            model=r["model"],
            prompt_version=r["prompt_version"],
            run_id=r["run_id"],
            date=_date(r["at"]),
        )
        for r in rows
    ]


def _load_relations(conn: sqlite3.Connection, among: str | None = None) -> list[Relation]:
    columns = "paper_id, topic, kind, target, detail, evidence, stage, page, how"
    rows = _paper_rows(conn, columns, "relations", "paper_id, topic, kind, target", among)
    return [Relation(**dict(r)) for r in rows]


def load_gaps(conn: sqlite3.Connection) -> list[Gap]:
    """Every gap, by id."""
    rows = conn.execute("SELECT id, topic, text, status, source FROM gaps ORDER BY id")
    return [Gap(**dict(r)) for r in rows]


def load_conflicts(conn: sqlite3.Connection) -> list[Conflict]:
    """Every conflict, by id."""
    rows = conn.execute("SELECT id, topic, text, status, source FROM conflicts ORDER BY id")
    return [Conflict(**dict(r)) for r in rows]


def load_entities(conn: sqlite3.Connection, settings: Settings) -> list[EntityInfo]:
    """Entities from the store, or from the config while the store has none."""
    rows = conn.execute("SELECT slug, name, kind, aliases FROM entities ORDER BY slug").fetchall()
    if rows:
        return [
            EntityInfo(r["slug"], r["name"], r["kind"], tuple(json.loads(r["aliases"] or "[]")))
            for r in rows
        ]
    configured = sorted(settings.entities, key=lambda e: e.slug)
    return [EntityInfo(e.slug, e.name, e.kind, tuple(e.aliases)) for e in configured]


def untracked_config_gaps(settings: Settings, gaps: list[Gap]) -> list[tuple[str, str]]:
    """(topic, text) of gaps declared in the config but not yet in the store."""
    stored = {(g.topic, g.text) for g in gaps}
    return [
        (topic.slug, text)
        for topic in settings.topics
        for text in topic.gaps
        if (topic.slug, text) not in stored
    ]
