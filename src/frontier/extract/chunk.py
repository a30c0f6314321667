"""Page-anchored chunks of roughly 300-500 tokens that never cross a page or mix sections."""

from __future__ import annotations

import math
from dataclasses import dataclass

from frontier.model import Chunk
from frontier.text import sentence_starts

CHARS_PER_TOKEN = 4  # a close enough estimate for English prose under BPE tokenizers


@dataclass
class Segment:
    """Running text of one section on one page."""

    page: int  # 1-based physical page
    section: str
    text: str


def estimate_tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))


def _split_long(text: str, target_tokens: int, max_tokens: int) -> list[str]:
    """Cut text into near-equal parts at sentence ends, each at most max_tokens if it can be."""
    tokens = estimate_tokens(text)
    if tokens <= max_tokens:
        return [text]
    parts = math.ceil(tokens / target_tokens)
    size = len(text) / parts
    boundaries = sentence_starts(text)
    cuts = []
    for k in range(1, parts):
        goal = k * size
        near = [b for b in boundaries if abs(b - goal) < size * 0.4]
        cuts.append(min(near, key=lambda b: abs(b - goal)) if near else _space_near(text, goal))
    pieces, start = [], 0
    for cut in sorted(set(cuts)):
        pieces.append(text[start:cut].strip())
        start = cut
    pieces.append(text[start:].strip())
    return [piece for piece in pieces if piece]


def _space_near(text: str, goal: float) -> int:
    position = text.find(" ", int(goal))
    return position if position != -1 else int(goal)


def _merge_small(segments: list[Segment], max_tokens: int) -> list[Segment]:
    """Join neighbouring segments of one page while the result stays within max_tokens."""
    merged: list[Segment] = []
    sizes: list[dict[str, int]] = []
    for segment in segments:
        last = merged[-1] if merged else None
        if (
            last is not None
            and last.page == segment.page
            and estimate_tokens(last.text) + estimate_tokens(segment.text) <= max_tokens
        ):
            last.text = (
                f"{last.text}\n{segment.text}"  # a section boundary, kept for sentence splitting
            )
            sizes[-1][segment.section] = sizes[-1].get(segment.section, 0) + len(segment.text)
            last.section = max(sizes[-1], key=lambda name: sizes[-1][name])
        else:
            merged.append(Segment(segment.page, segment.section, segment.text))
            sizes.append({segment.section: len(segment.text)})
    return merged


def make_chunks(segments: list[Segment], target_tokens: int = 400) -> list[Chunk]:
    max_tokens = int(target_tokens * 1.25)
    chunks: list[Chunk] = []
    for segment in _merge_small([s for s in segments if s.text.strip()], max_tokens):
        for piece in _split_long(segment.text, target_tokens, max_tokens):
            chunks.append(
                Chunk(len(chunks), segment.page, segment.section, piece, estimate_tokens(piece))
            )
    return chunks
