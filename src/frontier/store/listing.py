"""The KB as lists of plain records (papers, claims, gaps, conflicts, entities) for commands."""

from __future__ import annotations

import sqlite3
from dataclasses import asdict
from typing import Any

from frontier.config import Settings
from frontier.model import Gap
from frontier.store.kb import (
    load_claims,
    load_entities,
    load_papers,
    load_triage,
    snapshot,
    untracked_config_gaps,
)


def _contains(value: str, needle: str | None) -> bool:
    return needle is None or needle.casefold() in (value or "").casefold()


def papers_data(conn: sqlite3.Connection, topic: str | None = None) -> list[dict[str, Any]]:
    """Every paper, newest first, with its topics and the triage that put it there."""
    with snapshot(conn):
        papers, triage = load_papers(conn), load_triage(conn)
    by_paper: dict[str, list[dict[str, str]]] = {}
    for row in triage:
        fields = {k: v for k, v in asdict(row).items() if k != "paper_id"}
        by_paper.setdefault(row.paper_id, []).append(fields)
    result = []
    for paper in papers:
        rows = by_paper.get(paper.id, [])
        topics = [r["topic"] for r in rows if r["topic"]]
        if topic is not None and topic not in topics:
            continue
        result.append(
            {
                "id": paper.id,
                "title": paper.title,
                "date": paper.date,
                "kind": paper.kind,
                "abstract": paper.abstract or "",
                "topics": topics,
                "out_of_field": bool(rows) and not topics,
                "triage": rows,
            }
        )
    return result


def claims_data(
    conn: sqlite3.Connection,
    filters: dict[str, str | None],
    include_unverified: bool = False,
) -> list[dict[str, Any]]:
    """Claims matching every filter (metric, baseline, model, hardware, paper: substrings, any
    case)."""
    with snapshot(conn):
        order = {p.id: n for n, p in enumerate(load_papers(conn))}
        titles = dict(conn.execute("SELECT id, title FROM papers").fetchall())
        claims = load_claims(conn)
    picked = [
        c
        for c in claims
        if (c.verified or include_unverified)
        and _contains(c.metric, filters.get("metric"))
        and _contains(c.baseline, filters.get("baseline"))
        and _contains(c.model_name, filters.get("model"))
        and _contains(c.hardware, filters.get("hardware"))
        and _contains(c.paper_id, filters.get("paper"))
    ]
    picked.sort(key=lambda c: (order.get(c.paper_id, len(order)), c.id))
    return [_claim_record(asdict(c), titles.get(c.paper_id, "")) for c in picked]


def _claim_record(claim: dict[str, Any], title: str) -> dict[str, Any]:
    """A claim as commands show it: `paper` and `model` instead of the column names."""
    paper, typed_by = claim.pop("paper_id"), claim.pop("model")
    model = claim.pop("model_name")
    record = {"id": claim.pop("id"), "paper": paper, "title": title, "model": model, **claim}
    return {**record, "typed_by": typed_by}


def _related(conn: sqlite3.Connection, kind: str) -> dict[str, list[str]]:
    """Paper ids related to each target of one kind, newest paper first."""
    found: dict[str, list[str]] = {}
    rows = conn.execute(
        "SELECT DISTINCT r.target, r.paper_id, COALESCE(p.published, p.updated, '') AS date "
        "FROM relations r JOIN papers p ON p.id = r.paper_id WHERE r.kind = ? "
        "ORDER BY r.target, date DESC, r.paper_id",
        (kind,),
    )
    for target, paper_id, _date in rows:
        found.setdefault(target, []).append(paper_id)
    return found


def items_data(conn: sqlite3.Connection, table: str) -> list[dict[str, Any]]:
    """Gaps or conflicts by id, each with the papers related to it (newest first)."""
    if table not in ("gaps", "conflicts"):
        raise ValueError(f"not a table of gaps or conflicts: {table}")
    closed_at = "closed_at, evidence" if table == "gaps" else "NULL AS closed_at"
    with snapshot(conn):
        related = _related(conn, "gap" if table == "gaps" else "conflict")
        rows = conn.execute(
            f"SELECT id, topic, text, status, source, created_at, {closed_at} FROM {table} "
            "ORDER BY id"
        ).fetchall()
    return [{**dict(r), "papers": related.get(str(r["id"]), [])} for r in rows]


def entities_data(conn: sqlite3.Connection, settings: Settings) -> list[dict[str, Any]]:
    """Each entity with the number of papers related to it."""
    with snapshot(conn):
        counts = dict(
            conn.execute(
                "SELECT target, COUNT(DISTINCT paper_id) FROM relations WHERE kind = 'entity' "
                "GROUP BY target"
            ).fetchall()
        )
        entities = load_entities(conn, settings)
    return [
        {
            "slug": e.slug,
            "name": e.name,
            "kind": e.kind,
            "aliases": list(e.aliases),
            "papers": counts.get(e.slug, 0),
        }
        for e in entities
    ]


def untracked_gaps(settings: Settings, stored: list[Gap]) -> list[dict[str, Any]]:
    """Gaps the config declares that curation has not stored yet: no id, no papers."""
    empty = {"id": None, "status": "open", "source": "config", "created_at": None}
    return [
        {**empty, "topic": slug, "text": text, "closed_at": None, "evidence": "", "papers": []}
        for slug, text in untracked_config_gaps(settings, stored)
    ]
