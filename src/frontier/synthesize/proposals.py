"""Storing a research map and turning its open problems into proposed gaps."""

from __future__ import annotations

import json
import sqlite3

import numpy as np

from frontier.llm.embeddings import Embedder
from frontier.store.synthesis import propose_gap, replace_map, topic_gaps, triage_topic_counts
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
    return replace_map(
        conn,
        path=path,
        run_id=run_id,
        topic=topic or "",
        since=since or "",
        content=json.dumps(rmap.to_dict()),
        bundle=json.dumps(rmap.bundle.to_list()),
        removed=json.dumps(rmap.removed),
        model=rmap.model,
        prompt_version=rmap.prompt_tag,
    )


def _problem_topic(conn: sqlite3.Connection, rmap: ResearchMap, item: Item, default: str) -> str:
    """The topic most of the problem's papers were triaged into."""
    ids = [rmap.bundle.by_number(n).paper_id for n in item.papers]
    if not ids:
        return default
    topics = triage_topic_counts(conn, ids)
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
        gap_id, new = propose_gap(conn, slug, item.text, evidence)
        outcomes.append({"text": item.text, "topic": slug, "gap": gap_id, "new": new})
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
    rows: list[tuple[int | str, str]] = list(topic_gaps(conn, topic))
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
