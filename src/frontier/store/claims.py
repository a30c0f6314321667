"""Claims in the store: the columns a Claim is kept in, and claims read back from their rows."""

from __future__ import annotations

import sqlite3
from dataclasses import fields
from typing import Any

from frontier.model import Claim

CLAIM_COLUMNS = tuple(f.name for f in fields(Claim) if f.name not in ("id", "paper_id"))
_BOOLEAN = ("verified", "headline")


def claim_from_row(row: sqlite3.Row) -> Claim:
    values = dict(row)
    for name in _BOOLEAN:
        values[name] = bool(values[name])
    return Claim(**values)


def column_value(claim: Claim, name: str) -> Any:
    value = getattr(claim, name)
    return int(value) if isinstance(value, bool) else value


def claims_of(conn: sqlite3.Connection, paper_id: str, verified_only: bool = False) -> list[Claim]:
    """The paper's claims in the order they were stored."""
    where = " AND verified = 1" if verified_only else ""
    rows = conn.execute(
        f"SELECT id, paper_id, {', '.join(CLAIM_COLUMNS)} FROM claims "
        f"WHERE paper_id = ?{where} ORDER BY id",
        (paper_id,),
    )
    return [claim_from_row(r) for r in rows]


def all_claims(
    conn: sqlite3.Connection, where: str = "", params: tuple[str, ...] = ()
) -> list[Claim]:
    """Every claim, or those the WHERE clause keeps, by paper."""
    rows = conn.execute(
        f"SELECT id, paper_id, {', '.join(CLAIM_COLUMNS)} FROM claims{where} ORDER BY paper_id, id",
        params,
    )
    return [claim_from_row(r) for r in rows]


def headline_claims(conn: sqlite3.Connection, paper_ids: list[str]) -> dict[str, list[Claim]]:
    """The verified headline results of these papers, by paper, in the order stored."""
    marks = ", ".join("?" for _ in paper_ids)
    where = f" WHERE headline = 1 AND verified = 1 AND paper_id IN ({marks})"
    by_paper: dict[str, list[Claim]] = {}
    for claim in all_claims(conn, where, tuple(paper_ids)) if paper_ids else []:
        by_paper.setdefault(claim.paper_id, []).append(claim)
    return by_paper
