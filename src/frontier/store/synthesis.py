"""What synthesis reads and writes: the papers a map covers, maps, proposed gaps and answers."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter

from frontier.model import Chunk, Paper, StoredMap
from frontier.store.db import now, transaction
from frontier.store.kb import (
    CHUNK_COLUMNS,
    PAPER_COLUMNS,
    author_names,
    chunk_from_row,
    paper_from_row,
)


def select_papers(
    conn: sqlite3.Connection, topic: str | None, since: str | None, limit: int
) -> list[Paper]:
    """The newest `limit` papers of the topic (or of every topic), returned oldest first."""
    clauses, params = ["1 = 1"], []
    if topic:
        clauses.append("id IN (SELECT paper_id FROM triage WHERE topic = ?)")
        params.append(topic)
    elif conn.execute("SELECT 1 FROM triage LIMIT 1").fetchone():
        clauses.append("id IN (SELECT paper_id FROM triage WHERE topic != '')")
    if since:
        clauses.append("published >= ?")  # an unknown date is never new since anything
        params.append(since)
    rows = conn.execute(
        f"SELECT {PAPER_COLUMNS} "
        f"FROM papers WHERE {' AND '.join(clauses)} ORDER BY published DESC, id LIMIT ?",
        [*params, limit],
    )
    papers = [paper_from_row(row) for row in rows]
    return sorted(papers, key=lambda paper: (paper.published or "", paper.id))


def verified_claim_pages(conn: sqlite3.Connection, paper_id: str) -> set[int]:
    """The pages of a paper that hold a verified claim."""
    return {
        row[0]
        for row in conn.execute(
            "SELECT DISTINCT page FROM claims WHERE paper_id = ? AND verified = 1", (paper_id,)
        )
    }


def full_text_chunks(conn: sqlite3.Connection, paper_id: str) -> list[Chunk]:
    """A paper's chunks that sit on a page, in reading order."""
    rows = conn.execute(
        f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE paper_id = ? AND page IS NOT NULL ORDER BY ord",
        (paper_id,),
    )
    return [chunk_from_row(row) for row in rows]


def replace_map(
    conn: sqlite3.Connection,
    *,
    path: str,
    run_id: int,
    topic: str,
    since: str,
    content: str,
    bundle: str,
    removed: str,
    model: str,
    prompt_version: str,
) -> int:
    """Store a map (its content, bundle and removals as JSON text) as the only one at `path`."""
    with transaction(conn):
        # one map per topic and day: a rerun (after a crash, or a second run that day) replaces it
        conn.execute("DELETE FROM maps WHERE path = ?", (path,))
        cursor = conn.execute(
            "INSERT INTO maps (run_id, topic, since, path, content, bundle, removed, model, "
            "prompt_version, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, topic, since, path, content, bundle, removed, model, prompt_version, now()),
        )
    return int(cursor.lastrowid or 0)


# the columns a StoredMap is read from
MAP_COLUMNS = "id, run_id, topic, since, path, content, bundle, model, prompt_version, at"


def map_from_row(row: sqlite3.Row) -> StoredMap:
    """A StoredMap from a row of MAP_COLUMNS (its names are the record's fields)."""
    return StoredMap(**dict(row))


def stored_maps(conn: sqlite3.Connection) -> list[StoredMap]:
    """The latest map written to each path."""
    rows = conn.execute(
        f"SELECT {MAP_COLUMNS} FROM maps "
        "WHERE id IN (SELECT max(id) FROM maps GROUP BY path) ORDER BY path"
    )
    return [map_from_row(row) for row in rows]


def triage_topic_counts(conn: sqlite3.Connection, paper_ids: list[str]) -> Counter[str]:
    """How many of the papers were triaged into each topic."""
    marks = ",".join("?" * len(paper_ids))
    return Counter(
        row[0]
        for row in conn.execute(
            f"SELECT topic FROM triage WHERE topic != '' AND paper_id IN ({marks})", paper_ids
        )
    )


def topic_gaps(conn: sqlite3.Connection, topic: str) -> list[tuple[int, str]]:
    """(id, text) of every gap of the topic, whatever its status."""
    return [
        (row[0], row[1])
        for row in conn.execute("SELECT id, text FROM gaps WHERE topic = ?", (topic,))
    ]


def propose_gap(conn: sqlite3.Connection, topic: str, text: str, evidence: str) -> tuple[int, bool]:
    """(id, whether it is new) of the gap with this text, added as proposed when missing."""
    with transaction(conn):
        cursor = conn.execute(
            "INSERT OR IGNORE INTO gaps (topic, text, status, source, created_at, evidence) "
            "VALUES (?, ?, 'proposed', 'map', ?, ?)",
            (topic, text, now(), evidence),
        )
    gap_id = conn.execute(
        "SELECT id FROM gaps WHERE topic = ? AND text = ?", (topic, text)
    ).fetchone()[0]
    return int(gap_id), cursor.rowcount > 0


# the columns of an answer after its run, in insertion order (`at` is stamped here)
ASK_COLUMNS = (
    "question",
    "preset",
    "topic",
    "bundle",
    "answer",
    "supported",
    "cited",
    "removed",
    "dropped",
    "model",
    "prompt_version",
)


def insert_ask(conn: sqlite3.Connection, run_id: int, values: dict[str, object]) -> int:
    """Store one answer (`values` holds every column of ASK_COLUMNS); its id."""
    columns = ", ".join(("run_id", *ASK_COLUMNS, "at"))
    marks = ", ".join("?" * (len(ASK_COLUMNS) + 2))
    with transaction(conn):
        cursor = conn.execute(
            f"INSERT INTO asks ({columns}) VALUES ({marks})",
            (run_id, *(values[name] for name in ASK_COLUMNS), now()),
        )
    return int(cursor.lastrowid or 0)


def asks_unwritten_since_written(conn: sqlite3.Connection, prompt_version: str) -> int:
    """Answers of this prompt version given without a model reply since the latest with one."""
    row = conn.execute(
        "SELECT COUNT(*) FROM asks WHERE prompt_version = ? AND model = '' AND id > "
        "(SELECT COALESCE(MAX(id), 0) FROM asks WHERE prompt_version = ? AND model != '')",
        (prompt_version, prompt_version),
    ).fetchone()
    return int(row[0])


def supported_ask_bundle(conn: sqlite3.Connection, ask_id: int | None) -> tuple[int, str] | None:
    """(id, bundle JSON) of a supported answer: `ask_id`'s, or the latest when it is None."""
    row = conn.execute(
        "SELECT id, bundle FROM asks WHERE supported = 1 AND (? IS NULL OR id = ?) "
        "ORDER BY id DESC LIMIT 1",
        (ask_id, ask_id),
    ).fetchone()
    return None if row is None else (int(row[0]), str(row[1]))


def paper_abstracts(conn: sqlite3.Connection, paper_ids: list[str]) -> dict[str, str]:
    """The abstracts of these papers ('' when a paper has none), by paper."""
    marks = ", ".join("?" for _ in paper_ids)
    rows = (
        conn.execute(f"SELECT id, abstract FROM papers WHERE id IN ({marks})", paper_ids).fetchall()
        if paper_ids
        else []
    )
    return {str(r[0]): str(r[1] or "") for r in rows}


BYLINE_CHARS = 2000  # how far into a paper's first page its title, authors and affiliations run
_ABSTRACT_HEADING = re.compile(r"\babstract\b", re.IGNORECASE)


def paper_bylines(conn: sqlite3.Connection, paper_ids: list[str]) -> dict[str, str]:
    """Who wrote each paper and where: its authors, its first page up to the abstract and the
    first page's footnotes on affiliations ("1Google. Correspondence to: ...")."""
    marks = ", ".join("?" for _ in paper_ids)
    rows = (
        conn.execute(
            f"SELECT p.id, p.authors, g.text FROM papers p "
            f"LEFT JOIN pages g ON g.paper_id = p.id AND g.page = 1 WHERE p.id IN ({marks})",
            paper_ids,
        ).fetchall()
        if paper_ids
        else []
    )
    return {str(r[0]): _byline(", ".join(author_names(r[1])), str(r[2] or "")) for r in rows}


def _byline(authors: str, first_page: str) -> str:
    heading = _ABSTRACT_HEADING.search(first_page, 0, BYLINE_CHARS)
    if heading is None:
        return f"{authors} {first_page[:BYLINE_CHARS]}".strip()
    notes = _affiliation_notes(first_page[heading.start() :])
    return " ".join(part for part in (authors, first_page[: heading.start()], notes) if part)


# a first-page footnote on who the authors are: "1Google. Correspondence to: …", "*Equal
# contribution 1University of Washington", "∗Work done as an intern at Microsoft Research"
_FOOTNOTE_MARK = re.compile(r"^\s*(?:[∗*†‡⋄]|\d[A-Z][A-Za-z]+\b(?![-\d]))")
_FOOTNOTE_WORDS = re.compile(
    r"\b(?:correspond\w*|equal contribution|work (?:was )?done|intern at)\b", re.IGNORECASE
)


def _affiliation_notes(after_abstract: str) -> str:
    """The footnote lines of a first page past its abstract, each with the line after it (a
    footnote runs on: "Correspondence to: …" then the e-mail addresses)."""
    lines = after_abstract.splitlines()
    notes = [
        i
        for i, line in enumerate(lines)
        if _FOOTNOTE_MARK.match(line) or _FOOTNOTE_WORDS.search(line)
    ]
    kept = sorted({n for i in notes for n in (i, i + 1) if n < len(lines)})
    return " ".join(lines[i] for i in kept)
