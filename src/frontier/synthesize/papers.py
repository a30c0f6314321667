"""The papers a research map covers, numbered by date, each as a summary within a token budget:
the abstract, then the full-text chunks that carry its verified numbers and its results."""

from __future__ import annotations

import re
import sqlite3

from frontier.extract.chunk import estimate_tokens
from frontier.model import Chunk, Paper
from frontier.store.synthesis import full_text_chunks, verified_claim_pages
from frontier.synthesize.bundle import Bundle, Source

SUMMARY_TOKENS = 450
_RESULT_SECTIONS = re.compile(
    r"result|evaluat|experiment|discussion|conclusion|limitation|ablation", re.IGNORECASE
)


def _informative_chunks(conn: sqlite3.Connection, paper_id: str) -> list[Chunk]:
    """Full-text chunks, those on pages with verified claims first, then result sections."""
    claim_pages = verified_claim_pages(conn, paper_id)
    chunks = full_text_chunks(conn, paper_id)

    def priority(chunk: Chunk) -> tuple[int, int]:
        if chunk.page in claim_pages:
            return (0, chunk.id)
        return (1 if _RESULT_SECTIONS.search(chunk.section or "") else 2, chunk.id)

    return sorted((c for c in chunks if priority(c)[0] < 2), key=priority)


def paper_summary(conn: sqlite3.Connection, paper: Paper, number: int, tokens: int) -> Source:
    """Abstract plus informative excerpts, cut to about `tokens` tokens."""
    parts = [(paper.abstract or "").strip()]
    pages: list[int] = []
    chunk_ids: list[int] = []
    used = estimate_tokens(parts[0])
    for chunk in _informative_chunks(conn, paper.id):
        room = tokens - used
        if room < 60:
            break
        text = _cut(chunk.text, room)
        parts.append(f"(p. {chunk.page}) {text}")
        pages.append(chunk.page)
        chunk_ids.append(chunk.id)
        used += estimate_tokens(text)
    return Source(
        number,
        paper.id,
        paper.title,
        paper.published or "",  # the publication date as stored, not the updated one
        tuple(sorted(set(pages))),
        "\n".join(part for part in parts if part),
        tuple(chunk_ids),
    )


def _cut(text: str, tokens: int) -> str:
    """At most about `tokens` tokens of `text`, ending at a sentence when one ends nearby."""
    limit = tokens * 4
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = cut.rfind(". ")
    return cut[: end + 1] if end > limit // 2 else cut + " …"


def paper_bundle(conn: sqlite3.Connection, papers: list[Paper], tokens: int) -> Bundle:
    summaries = [paper_summary(conn, paper, i, tokens) for i, paper in enumerate(papers, start=1)]
    return Bundle(summaries)
