"""Reads and writes of curation: per-paper state, triage, claims, relations, entries."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from frontier.config import Settings
from frontier.model import Claim, Conflict, Gap, Paper, Relation
from frontier.store.claims import CLAIM_COLUMNS, column_value
from frontier.store.db import first_column, now, transaction
from frontier.store.kb import PAPER_COLUMNS, paper_from_row


def stable_hash(*parts: Any) -> str:
    """A stable hash of what a step's result depends on."""
    payload = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def sync_config(conn: sqlite3.Connection, settings: Settings) -> None:
    """Entities and config-declared gaps follow frontier.toml; gaps added by hand stay."""
    with transaction(conn):
        conn.execute("DELETE FROM entities")
        conn.executemany(
            "INSERT INTO entities (slug, name, kind, aliases) VALUES (?, ?, ?, ?)",
            [(e.slug, e.name, e.kind, json.dumps(e.aliases)) for e in settings.entities],
        )
        for topic in settings.topics:
            for text in topic.gaps:
                conn.execute(
                    "INSERT OR IGNORE INTO gaps (topic, text, status, source, created_at) "
                    "VALUES (?, ?, 'open', 'config', ?)",
                    (topic.slug, text, now()),
                )


def step_hash(conn: sqlite3.Connection, paper_id: str, step: str) -> str | None:
    row = conn.execute(
        "SELECT input_hash FROM curate_state WHERE paper_id = ? AND step = ?", (paper_id, step)
    ).fetchone()
    return row[0] if row else None


def _mark(
    conn: sqlite3.Connection, paper_id: str, step: str, input_hash: str, quick_key: str = ""
) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO curate_state (paper_id, step, input_hash, done_at, quick_key) "
        "VALUES (?, ?, ?, ?, ?)",
        (paper_id, step, input_hash, now(), quick_key),
    )


def step_states(conn: sqlite3.Connection, step: str) -> dict[str, tuple[str, str]]:
    """(input hash, quick key) of every paper that has done this step, in one read."""
    rows = conn.execute(
        "SELECT paper_id, input_hash, quick_key FROM curate_state WHERE step = ?", (step,)
    )
    return {row[0]: (row[1], row[2]) for row in rows}


def mark_done(conn: sqlite3.Connection, marks: list[tuple[str, str, str]], step: str) -> None:
    """Record (paper, input hash, quick key) of a step whose result is already stored."""
    with transaction(conn):
        for paper_id, input_hash, quick_key in marks:
            _mark(conn, paper_id, step, input_hash, quick_key)


def papers_to_curate(conn: sqlite3.Connection) -> list[Paper]:
    """Every paper, oldest first (by date, then id): the order firsts are counted in."""
    rows = conn.execute(
        f"SELECT {PAPER_COLUMNS} FROM papers "
        "ORDER BY COALESCE(published, substr(added_at, 1, 10)), id"
    )
    return [paper_from_row(row) for row in rows]


def chunks_of(conn: sqlite3.Connection, paper_id: str) -> list[tuple[int | None, str, str]]:
    rows = conn.execute(
        "SELECT page, section, text FROM chunks WHERE paper_id = ? ORDER BY ord", (paper_id,)
    )
    return [(r[0], r[1], r[2]) for r in rows]


def pages_of(conn: sqlite3.Connection, paper_id: str) -> list[tuple[int, str]]:
    rows = conn.execute(
        "SELECT page, text FROM pages WHERE paper_id = ? ORDER BY page", (paper_id,)
    )
    return [(r[0], r[1]) for r in rows]


def references_start(conn: sqlite3.Connection, paper_id: str) -> tuple[int, str] | None:
    """The page and heading where a paper's reference list begins, when one was found."""
    row = conn.execute(
        "SELECT page_start, title FROM sections WHERE paper_id = ? AND kind = 'references' "
        "ORDER BY ord LIMIT 1",
        (paper_id,),
    ).fetchone()
    return (int(row[0]), str(row[1])) if row and row[0] is not None else None


def section_kinds_by_page(conn: sqlite3.Connection, paper_id: str) -> dict[int, set[str]]:
    """The kinds of section each page holds: a section runs from its first page to the first
    page of the next."""
    rows = conn.execute(
        "SELECT kind, page_start FROM sections WHERE paper_id = ? ORDER BY ord", (paper_id,)
    ).fetchall()
    kinds: dict[int, set[str]] = {}
    for (kind, start), after in zip(rows, [*rows[1:], None][: len(rows)], strict=True):
        end = max(int(start), int(after[1])) if after else int(start)
        for page in range(int(start), end + 1):
            kinds.setdefault(page, set()).add(str(kind))
    return kinds


def save_triage(
    conn: sqlite3.Connection,
    paper_id: str,
    rows: list[dict[str, Any]],
    input_hash: str,
    run_id: int,
) -> None:
    with transaction(conn):
        conn.execute("DELETE FROM triage WHERE paper_id = ?", (paper_id,))
        for row in rows:
            conn.execute(
                "INSERT INTO triage (paper_id, topic, stage, reason, scope_line, score, boundary, model, "
                "prompt_version, run_id, input_hash, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    paper_id,
                    row["topic"],
                    row["stage"],
                    row["reason"],
                    row["scope_line"],
                    row["score"],
                    int(row.get("boundary", False)),
                    row.get("model", ""),
                    row.get("prompt_version", ""),
                    run_id,
                    input_hash,
                    now(),
                ),
            )
        _mark(conn, paper_id, "triage", input_hash)


def topics_of(conn: sqlite3.Connection, paper_id: str) -> list[str]:
    return first_column(
        conn,
        "SELECT topic FROM triage WHERE paper_id = ? AND topic != '' ORDER BY topic",
        (paper_id,),
    )


def save_claims(
    conn: sqlite3.Connection,
    paper_id: str,
    claims: Iterable[Claim],
    input_hash: str,
    run_id: int,
    quick_key: str = "",
) -> None:
    with transaction(conn):
        conn.execute("DELETE FROM claims WHERE paper_id = ?", (paper_id,))
        conn.executemany(
            f"INSERT INTO claims (paper_id, {', '.join(CLAIM_COLUMNS)}, run_id, at) "
            f"VALUES ({', '.join('?' * (len(CLAIM_COLUMNS) + 3))})",
            [
                (paper_id, *(column_value(c, name) for name in CLAIM_COLUMNS), run_id, now())
                for c in claims
            ],
        )
        _mark(conn, paper_id, "claims", input_hash, quick_key)


def save_relations(
    conn: sqlite3.Connection,
    paper_id: str,
    by_topic: dict[str, list[Relation]],
    input_hash: str,
    quick_key: str = "",
) -> None:
    """The paper's own relations (not the KB-wide firsts and coverage)."""
    with transaction(conn):
        conn.execute(
            "DELETE FROM relations WHERE paper_id = ? AND kind NOT IN ('first', 'coverage')",
            (paper_id,),
        )
        for topic, relations in by_topic.items():
            for r in relations:
                conn.execute(
                    "INSERT OR REPLACE INTO relations (paper_id, topic, kind, target, detail, "
                    "evidence, stage, page, how) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        paper_id, topic, r.kind, r.target, r.detail, r.evidence, r.stage,
                        r.page, r.how,
                    ),
                )  # fmt: skip
        _mark(conn, paper_id, "relations", input_hash, quick_key)


def replace_counted_relations(
    conn: sqlite3.Connection, rows: list[tuple[str, str, Relation]]
) -> None:
    """Firsts and coverage are recomputed for the whole KB from its own counts."""
    with transaction(conn):
        conn.execute("DELETE FROM relations WHERE kind IN ('first', 'coverage')")
        for paper_id, topic, r in rows:
            conn.execute(
                "INSERT OR REPLACE INTO relations (paper_id, topic, kind, target, detail, evidence, stage) "
                "VALUES (?, ?, ?, ?, ?, ?, 'code')",
                (paper_id, topic, r.kind, r.target, r.detail, r.evidence),
            )


def relations_of(conn: sqlite3.Connection, paper_id: str, topic: str) -> list[Relation]:
    rows = conn.execute(
        "SELECT paper_id, topic, kind, target, detail, evidence, stage, page, how FROM relations "
        "WHERE paper_id = ? AND topic = ? "
        "ORDER BY kind, target",
        (paper_id, topic),
    )
    return [Relation(**dict(row)) for row in rows]


def save_entry(
    conn: sqlite3.Connection,
    paper_id: str,
    topic: str,
    text: str,
    model: str,
    prompt_version: str,
    run_id: int,
    input_hash: str,
    what: str = "",
) -> None:
    """`what` is the entry's what-it-is part as checked, kept apart so it can be audited."""
    with transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO entries (paper_id, topic, text, model, prompt_version, run_id, "
            "input_hash, at, what) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (paper_id, topic, text, model, prompt_version, run_id, input_hash, now(), what),
        )
        conn.execute(
            "DELETE FROM entries WHERE paper_id = ? AND topic NOT IN "
            "(SELECT topic FROM triage WHERE paper_id = ? AND topic != '')",
            (paper_id, paper_id),
        )


def entry_hash(conn: sqlite3.Connection, paper_id: str, topic: str) -> str | None:
    row = conn.execute(
        "SELECT input_hash FROM entries WHERE paper_id = ? AND topic = ?", (paper_id, topic)
    ).fetchone()
    return row[0] if row else None


def open_gaps(conn: sqlite3.Connection) -> list[Gap]:
    rows = conn.execute(
        "SELECT id, topic, text, status, source FROM gaps WHERE status = 'open' ORDER BY id"
    )
    return [Gap(**dict(row)) for row in rows]


def conflict_measurements(conn: sqlite3.Connection) -> dict[int, list[dict[str, Any]]]:
    """Per open conflict flagged from claims, the later measurements of its disputed setting
    (paper, page, quote), as conflict detection last listed them."""
    rows = conn.execute(
        "SELECT c.id, cc.later FROM conflicts c JOIN conflict_claims cc ON cc.conflict_id = c.id "
        "WHERE c.status = 'open' ORDER BY c.id"
    )
    return {int(row[0]): json.loads(row[1] or "[]") for row in rows}


def open_conflicts(conn: sqlite3.Connection) -> list[Conflict]:
    rows = conn.execute(
        "SELECT id, topic, text, status, source FROM conflicts WHERE status = 'open' ORDER BY id"
    )
    return [Conflict(**dict(row)) for row in rows]


def all_relations(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every relation with its evidence and page, for auditing."""
    rows = conn.execute(
        "SELECT r.paper_id AS paper, p.title, r.topic, r.kind, r.target, r.evidence, r.page, "
        "r.how, r.detail, r.stage FROM relations r JOIN papers p ON p.id = r.paper_id "
        "ORDER BY r.paper_id, r.topic, r.kind, r.target"
    )
    return [dict(row) for row in rows]


def tracked_names(conn: sqlite3.Connection) -> dict[str, str]:
    """'entity:slug', 'gap:id' and 'conflict:id' to the name or text a reader knows them by."""
    names = {
        f"entity:{slug}": name for slug, name in conn.execute("SELECT slug, name FROM entities")
    }
    names |= {f"gap:{i}": text for i, text in conn.execute("SELECT id, text FROM gaps")}
    names |= {f"conflict:{i}": text for i, text in conn.execute("SELECT id, text FROM conflicts")}
    return names


def entity_targets(conn: sqlite3.Connection, paper_id: str) -> dict[str, tuple[str, str]]:
    """The tracked entities the paper names, each with how it names it ("names ...") and the
    sentence that does."""
    rows = conn.execute(
        "SELECT target, min(detail), min(evidence) FROM relations "
        "WHERE paper_id = ? AND kind = 'entity' GROUP BY target ORDER BY target",
        (paper_id,),
    )
    return {row[0]: (row[1], row[2] or "") for row in rows}


def verified_units(conn: sqlite3.Connection, paper_id: str) -> list[str]:
    """The units of the paper's verified claims."""
    return first_column(
        conn,
        "SELECT DISTINCT unit FROM claims WHERE paper_id = ? AND verified = 1 ORDER BY unit",
        (paper_id,),
    )


def fresh_llm_calls(conn: sqlite3.Connection, run_id: int) -> int:
    """Model calls the run made (answers from the cache not counted)."""
    row = conn.execute(
        "SELECT COUNT(*) FROM llm_calls WHERE run_id = ? AND cache_hit = 0", (run_id,)
    ).fetchone()
    return int(row[0])
