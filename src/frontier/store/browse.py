"""What the web pages and the static site read from the store, through connections that
cannot write: page counts, cited pages, stored research maps and runs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from frontier.config import LLMSettings
from frontier.model import StoredMap
from frontier.store.synthesis import MAP_COLUMNS, map_from_row


def read_only(db_path: Path) -> sqlite3.Connection:
    """A connection that cannot write, whatever a page asks of it."""
    conn = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True, timeout=30.0)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA query_only=ON")
    return conn


def page_count(conn: sqlite3.Connection, paper_id: str) -> int:
    row = conn.execute("SELECT n_pages FROM papers WHERE id = ?", (paper_id,)).fetchone()
    return int(row[0]) if row else 0


def page_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """The number of stored pages of every paper that has any."""
    return dict(conn.execute("SELECT id, n_pages FROM papers WHERE n_pages > 0"))


def cited_pages(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """(paper, page) of every claim whose page is stored."""
    rows = conn.execute(
        "SELECT DISTINCT c.paper_id, c.page FROM claims c JOIN pages p "
        "ON p.paper_id = c.paper_id AND p.page = c.page ORDER BY 1, 2"
    )
    return [(r[0], r[1]) for r in rows]


def map_rows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """The latest map of each path, newest first: id, topic, date, papers and model."""
    rows = conn.execute(
        "SELECT id, topic, since, at, model, bundle FROM maps "
        "WHERE id IN (SELECT max(id) FROM maps GROUP BY path) ORDER BY at DESC, id DESC"
    ).fetchall()
    return [
        {
            "id": row["id"],
            "topic": row["topic"],
            "since": row["since"],
            "date": row["at"][:10],
            "papers": len(json.loads(row["bundle"])),
            "model": row["model"],
        }
        for row in rows
    ]


def load_map(conn: sqlite3.Connection, map_id: int) -> StoredMap | None:
    """One stored map with its content and bundle, or None."""
    row = conn.execute(f"SELECT {MAP_COLUMNS} FROM maps WHERE id = ?", (map_id,)).fetchone()
    return map_from_row(row) if row else None


def cost(row: dict[str, Any], prices: LLMSettings) -> float:
    """What a usage row's tokens cost at the configured prices, in dollars."""
    return round(
        (row["prompt_tokens"] or 0) / 1e6 * prices.price_prompt_per_m
        + (row["completion_tokens"] or 0) / 1e6 * prices.price_completion_per_m,
        6,
    )


def run_starts(conn: sqlite3.Connection) -> dict[int, dict[str, Any]]:
    """When each run started and how it ended, by run id."""
    rows = conn.execute("SELECT id, started_at, status FROM runs").fetchall()
    return {r["id"]: dict(r) for r in rows}
