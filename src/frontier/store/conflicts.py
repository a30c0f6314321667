"""Conflicts found between verified claims: the claims they are read from, the pairs flagged so
far, and which claims have been paired already."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from frontier.model import VerifiedClaim
from frontier.store.db import now, transaction

_MARK_BATCH = 500  # ids per UPDATE, well under SQLite's limit on bound parameters

# the evidence columns of a flagged pair after its conflict and key, in insertion order
EVIDENCE_COLUMNS = (
    "paper_a",
    "paper_b",
    "metric",
    "setting",
    "quote_a",
    "quote_b",
    "page_a",
    "page_b",
    "value_a",
    "value_b",
    "why",
    "label",
    "reason",
    "later",
    "model",
    "prompt_version",
    "run_id",
)


def verified_claims(conn: sqlite3.Connection) -> list[VerifiedClaim]:
    """Verified claims with their paper's date and first topic, oldest paper first."""
    rows = conn.execute(
        """SELECT c.id, c.paper_id, c.metric, c.value, c.value_text, c.unit, c.page, c.quote,
                  coalesce(c.baseline, '') AS baseline,
                  coalesce(p.published, '') AS date,
                  (SELECT topic FROM triage t WHERE t.paper_id = c.paper_id AND topic != ''
                   ORDER BY topic LIMIT 1) AS topic
           FROM claims c JOIN papers p ON p.id = c.paper_id
           WHERE c.verified = 1 ORDER BY date, c.paper_id, c.id"""
    )
    return [
        VerifiedClaim(
            r["id"],
            r["paper_id"],
            r["metric"],
            r["value"],
            r["value_text"],
            r["unit"] or "",
            r["page"],
            r["quote"],
            r["date"] or "",
            r["topic"] or "",
            r["baseline"],
        )
        for r in rows
    ]


def unpaired_claims(conn: sqlite3.Connection) -> set[int]:
    """Ids of the claims no conflict search has paired yet."""
    return {row[0] for row in conn.execute("SELECT id FROM claims WHERE conflicts_seen = 0")}


def mark_paired(conn: sqlite3.Connection, ids: set[int]) -> None:
    ordered = sorted(ids)
    with transaction(conn):
        for start in range(0, len(ordered), _MARK_BATCH):
            part = ordered[start : start + _MARK_BATCH]
            marks = ",".join("?" * len(part))
            conn.execute(f"UPDATE claims SET conflicts_seen = 1 WHERE id IN ({marks})", part)


def flagged_conflict(conn: sqlite3.Connection, claim_key: str) -> int | None:
    """The conflict a pair of claims was flagged as, if it was."""
    row = conn.execute(
        "SELECT conflict_id FROM conflict_claims WHERE claim_key = ?", (claim_key,)
    ).fetchone()
    return None if row is None else int(row[0])


def flagged_pairs(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(claim key, paper a, paper b) of every pair flagged so far."""
    return [
        (row[0], row[1], row[2])
        for row in conn.execute("SELECT claim_key, paper_a, paper_b FROM conflict_claims")
    ]


WITHDRAWN = "withdrawn"  # flagged by code from claims that no longer say it


def withdraw_conflicts(conn: sqlite3.Connection, claim_keys: set[str]) -> int:
    """Mark the open conflicts code flagged from these pairs as withdrawn (kept, not shown as
    open): their claims were typed again and no longer disagree. Returns how many moved."""
    moved = 0
    with transaction(conn):
        for key in sorted(claim_keys):
            moved += conn.execute(
                "UPDATE conflicts SET status = ? WHERE status = 'open' AND source = 'claims' "
                "AND id = (SELECT conflict_id FROM conflict_claims WHERE claim_key = ?)",
                (WITHDRAWN, key),
            ).rowcount
    return moved


def set_later_measurements(conn: sqlite3.Connection, conflict_id: int, later: str) -> None:
    with transaction(conn):
        conn.execute(
            "UPDATE conflict_claims SET later = ? WHERE conflict_id = ?", (later, conflict_id)
        )


def add_conflict(
    conn: sqlite3.Connection, topic: str, text: str, claim_key: str, evidence: Mapping[str, object]
) -> None:
    """An open conflict found in the claims (kept when already there) and the pair behind it;
    `evidence` holds every column of EVIDENCE_COLUMNS."""
    with transaction(conn):
        conn.execute(
            "INSERT OR IGNORE INTO conflicts (topic, text, status, source, created_at) "
            "VALUES (?, ?, 'open', 'claims', ?)",
            (topic, text, now()),
        )
        conflict_id = conn.execute(
            "SELECT id FROM conflicts WHERE topic = ? AND text = ?", (topic, text)
        ).fetchone()[0]
        columns = ", ".join(("conflict_id", "claim_key", *EVIDENCE_COLUMNS))
        marks = ", ".join("?" * (len(EVIDENCE_COLUMNS) + 2))
        conn.execute(
            f"INSERT OR IGNORE INTO conflict_claims ({columns}) VALUES ({marks})",
            (conflict_id, claim_key, *(evidence[name] for name in EVIDENCE_COLUMNS)),
        )
