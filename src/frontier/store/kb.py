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
from frontier.store.claims import Claim, all_claims
from frontier.store.digests import ids_param

T = TypeVar("T")


@dataclass(frozen=True)
class Paper:
    id: str
    title: str
    authors: tuple[str, ...]
    date: str
    categories: tuple[str, ...]
    kind: str
    arxiv_id: str
    url: str
    abstract: str


@dataclass(frozen=True)
class Triage:
    paper_id: str
    topic: str
    stage: str
    reason: str
    scope_line: str


@dataclass(frozen=True)
class Entry:
    paper_id: str
    topic: str
    text: str
    model: str
    prompt_version: str
    run_id: int | None
    date: str


@dataclass(frozen=True)
class Relation:
    paper_id: str
    topic: str
    kind: str
    target: str
    detail: str
    evidence: str  # a sentence of the paper (or its title), verified on `page`
    page: int | None = None  # None: the abstract or the title
    how: str = ""  # the model's sentence, kept only when checked against the evidence


@dataclass(frozen=True)
class Item:
    """A gap or a conflict."""

    id: int
    topic: str
    text: str
    status: str
    source: str


@dataclass(frozen=True)
class EntityInfo:
    slug: str
    name: str
    kind: str
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class ConflictEvidence:
    """The two disagreeing claims behind a conflict found by code, and later measurements."""

    conflict_id: int
    paper_a: str
    paper_b: str
    metric: str
    setting: str
    quote_a: str
    quote_b: str
    page_a: int | None
    page_b: int | None
    value_a: str
    value_b: str
    why: str
    label: str
    reason: str
    later: tuple[dict[str, Any], ...]
    model: str
    prompt_version: str


@dataclass
class KB:
    """Everything the vault shows, with lookups by paper and by relation target."""

    papers: dict[str, Paper]
    triage: list[Triage]
    claims: list[Claim]
    entries: list[Entry]
    relations: list[Relation]
    gaps: list[Item]
    conflicts: list[Item]
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
            gaps=load_items(conn, "gaps"),
            conflicts=load_items(conn, "conflicts"),
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


def load_papers(conn: sqlite3.Connection, among: str | None = None) -> list[Paper]:
    """Every stored paper (or those among the ids), newest first."""
    where, params = _where("id", among)
    rows = conn.execute(
        "SELECT id, title, authors, published, updated, categories, kind, arxiv_id, url, abstract "
        f"FROM papers{where}",
        params,
    )
    papers = [
        Paper(
            id=r["id"],
            title=r["title"],
            authors=tuple(json.loads(r["authors"] or "[]")),
            date=_date(r["published"] or r["updated"]),
            categories=tuple(json.loads(r["categories"] or "[]")),
            kind=r["kind"],
            arxiv_id=r["arxiv_id"] or "",
            url=r["url"] or "",
            abstract=r["abstract"] or "",
        )
        for r in rows
    ]
    return sort_papers(papers)


def paper_dois(conn: sqlite3.Connection) -> dict[str, str | None]:
    """Each paper's DOI (None when it has none)."""
    return dict(conn.execute("SELECT id, doi FROM papers").fetchall())


def load_triage(conn: sqlite3.Connection, among: str | None = None) -> list[Triage]:
    where, params = _where("paper_id", among)
    rows = conn.execute(
        f"SELECT paper_id, topic, stage, reason, scope_line FROM triage{where} "
        "ORDER BY paper_id, topic",
        params,
    )
    return [Triage(**dict(r)) for r in rows]


def load_claims(conn: sqlite3.Connection, among: str | None = None) -> list[Claim]:
    return all_claims(conn, *_where("paper_id", among))


def _load_entries(conn: sqlite3.Connection, among: str | None = None) -> list[Entry]:
    where, params = _where("paper_id", among)
    rows = conn.execute(
        f"SELECT paper_id, topic, text, model, prompt_version, run_id, at FROM entries{where} "
        "ORDER BY paper_id, topic",
        params,
    )
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
    where, params = _where("paper_id", among)
    rows = conn.execute(
        f"SELECT paper_id, topic, kind, target, detail, evidence, page, how FROM relations{where} "
        "ORDER BY paper_id, topic, kind, target",
        params,
    )
    return [Relation(**dict(r)) for r in rows]


def load_items(conn: sqlite3.Connection, table: str) -> list[Item]:
    """Gaps or conflicts, by id."""
    if table not in ("gaps", "conflicts"):
        raise ValueError(f"not a table of gaps or conflicts: {table}")
    rows = conn.execute(f"SELECT id, topic, text, status, source FROM {table} ORDER BY id")
    return [Item(**dict(r)) for r in rows]


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


def untracked_config_gaps(settings: Settings, gaps: list[Item]) -> list[tuple[str, str]]:
    """(topic, text) of gaps declared in the config but not yet in the store."""
    stored = {(g.topic, g.text) for g in gaps}
    return [
        (topic.slug, text)
        for topic in settings.topics
        for text in topic.gaps
        if (topic.slug, text) not in stored
    ]
