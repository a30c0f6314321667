"""Storing a research map and turning its open problems into proposed gaps."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter

import numpy as np

from frontier.llm.embeddings import Embedder
from frontier.store.db import now, transaction
from frontier.synthesize.researchmap import Item, ResearchMap

# an open problem this close to a tracked gap (any status) is the same gap said again
DUPLICATE_GAP_SIMILARITY = 0.85


def map_path(date: str, topic: str | None) -> str:
    return f"maps/{date}-{topic or 'all'}.md"


def save_map(
    conn: sqlite3.Connection,
    rmap: ResearchMap,
    run_id: int,
    topic: str | None,
    since: str | None,
    path: str,
) -> int:
    with transaction(conn):
        # one map per topic and day: a rerun (after a crash, or a second run that day) replaces it
        conn.execute("DELETE FROM maps WHERE path = ?", (path,))
        cursor = conn.execute(
            "INSERT INTO maps (run_id, topic, since, path, content, bundle, removed, model, "
            "prompt_version, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                topic or "",
                since or "",
                path,
                json.dumps(rmap.to_dict()),
                json.dumps(rmap.bundle.to_list()),
                json.dumps(rmap.removed),
                rmap.model,
                rmap.prompt_tag,
                now(),
            ),
        )
    return int(cursor.lastrowid or 0)


def _problem_topic(conn: sqlite3.Connection, rmap: ResearchMap, item: Item, default: str) -> str:
    """The topic most of the problem's papers were triaged into."""
    ids = [rmap.bundle.by_number(n).paper_id for n in item.papers]
    if not ids:
        return default
    marks = ",".join("?" * len(ids))
    topics = Counter(
        row[0]
        for row in conn.execute(
            f"SELECT topic FROM triage WHERE topic != '' AND paper_id IN ({marks})", ids
        )
    )
    return topics.most_common(1)[0][0] if topics else default


def propose_gaps(
    conn: sqlite3.Connection,
    embedder: Embedder,
    rmap: ResearchMap,
    map_id: int,
    topic: str | None,
    default_topic: str,
    config_gaps: dict[str, list[str]],
) -> list[dict[str, object]]:
    """Each open problem becomes a proposed gap unless a gap of its topic already says it."""
    outcomes: list[dict[str, object]] = []
    if not rmap.problems:
        return outcomes
    texts = [item.text for item in rmap.problems]
    vectors = embedder.embed(texts)
    known: dict[str, np.ndarray] = {}  # gap text -> vector, each gap embedded once per map
    for item, vector in zip(rmap.problems, vectors, strict=True):
        slug = topic or _problem_topic(conn, rmap, item, default_topic)
        same = _same_gap(conn, embedder, known, slug, vector, config_gaps.get(slug, []))
        if same is not None:
            outcomes.append({"text": item.text, "topic": slug, "gap": same, "new": False})
            continue
        papers = [rmap.bundle.by_number(n).paper_id for n in item.papers]
        evidence = f"map {map_id}; papers: {', '.join(papers) or 'none cited'}"
        with transaction(conn):
            cursor = conn.execute(
                "INSERT OR IGNORE INTO gaps (topic, text, status, source, created_at, evidence) "
                "VALUES (?, ?, 'proposed', 'map', ?, ?)",
                (slug, item.text, now(), evidence),
            )
        gap_id = conn.execute(
            "SELECT id FROM gaps WHERE topic = ? AND text = ?", (slug, item.text)
        ).fetchone()[0]
        outcomes.append(
            {"text": item.text, "topic": slug, "gap": gap_id, "new": cursor.rowcount > 0}
        )
    return outcomes


def _same_gap(
    conn: sqlite3.Connection,
    embedder: Embedder,
    known: dict[str, np.ndarray],
    topic: str,
    vector: np.ndarray,
    config_texts: list[str],
) -> int | str | None:
    """The id of the tracked gap this vector restates ("config" for a gap only in the config)."""
    rows: list[tuple[int | str, str]] = [
        (row[0], row[1])
        for row in conn.execute("SELECT id, text FROM gaps WHERE topic = ?", (topic,))
    ]
    stored = {text for _, text in rows}
    rows += [("config", text) for text in config_texts if text not in stored]
    if not rows:
        return None
    new = list(dict.fromkeys(text for _, text in rows if text not in known))
    if new:
        known.update(zip(new, embedder.embed(new), strict=True))
    sims = np.stack([known[text] for _, text in rows]) @ vector
    best = int(np.argmax(sims))
    return rows[best][0] if sims[best] >= DUPLICATE_GAP_SIMILARITY else None
