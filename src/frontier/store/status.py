"""Gaps and conflicts added by hand and moved between statuses: the store's side of the KB
commands and of the web page's accept and reject buttons."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from frontier.store.db import now, transaction

GAP_STATUSES = ("open", "closed", "proposed", "rejected")
# action: (statuses it applies to, status it sets)
GAP_MOVES = {
    "close": ({"open"}, "closed"),
    "accept": ({"proposed"}, "open"),
    "reject": ({"proposed"}, "rejected"),
}
_ITEM_TABLES = ("gaps", "conflicts")


class StatusError(Exception):
    """A status change the item does not allow, or an item that does not exist."""


@dataclass(frozen=True)
class Added:
    """The outcome of adding an item: its id, and whether the same text was already there."""

    id: int
    status: str
    new: bool


@dataclass(frozen=True)
class Moved:
    """An item's status before and after a change (the same when nothing changed)."""

    id: int
    before: str
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


def add_item(conn: sqlite3.Connection, table: str, topic: str, text: str) -> Added:
    """Add an open gap or conflict by hand; the same text (ignoring case) is not added twice."""
    if table not in _ITEM_TABLES:
        raise ValueError(f"not an item table: {table}")
    with transaction(conn):
        rows = conn.execute(f"SELECT id, text, status FROM {table} WHERE topic = ?", (topic,))
        same = next((r for r in rows if r["text"].casefold() == text.casefold()), None)
        if same is not None:
            return Added(same["id"], same["status"], new=False)
        added = conn.execute(
            f"INSERT INTO {table} (topic, text, status, source, created_at) "
            "VALUES (?, ?, 'open', 'manual', ?)",
            (topic, text, now()),
        ).lastrowid
    return Added(int(added or 0), "open", new=True)


def move_gap(conn: sqlite3.Connection, gap_id: int, action: str) -> Moved:
    """Close, accept or reject a gap; a gap already in the target status is left as it is."""
    allowed, target = GAP_MOVES[action]
    with transaction(conn):
        row = conn.execute("SELECT status FROM gaps WHERE id = ?", (gap_id,)).fetchone()
        if row is None:
            raise StatusError(f"no gap {gap_id} (see `frontier gaps list`)")
        current = row["status"]
        if current != target and current not in allowed:
            raise StatusError(
                f"gap {gap_id} is {current}; only {' or '.join(sorted(allowed))} gaps can be "
                f"{action}ed"
            )
        if current != target:
            closed_at = now() if target == "closed" else None
            conn.execute(
                "UPDATE gaps SET status = ?, closed_at = ? WHERE id = ?",
                (target, closed_at, gap_id),
            )
    return Moved(gap_id, current, target)


def close_conflict(conn: sqlite3.Connection, conflict_id: int) -> Moved:
    """Close a conflict (closing a closed one changes nothing)."""
    with transaction(conn):
        row = conn.execute("SELECT status FROM conflicts WHERE id = ?", (conflict_id,)).fetchone()
        if row is None:
            raise StatusError(f"no conflict {conflict_id} (see `frontier conflicts list`)")
        conn.execute("UPDATE conflicts SET status = 'closed' WHERE id = ?", (conflict_id,))
    return Moved(conflict_id, row["status"], "closed")


def gap_topic(conn: sqlite3.Connection, gap_id: int) -> str:
    """The topic a stored gap belongs to."""
    return str(conn.execute("SELECT topic FROM gaps WHERE id = ?", (gap_id,)).fetchone()[0])
