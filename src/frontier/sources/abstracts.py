"""Bare abstracts: blocks separated by blank lines, no titles or ids, maybe under a heading."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from frontier.sources.ids import text_content_id
from frontier.sources.records import SourceRecord

_NAMED_METHOD = re.compile(
    r"\b(?i:we|this paper|this work)\s+(?i:propose|present|introduce|develop|design|build)s?\s+"
    r"(?:\w+\s+){0,3}?([A-Z][\w\-]*[A-Z0-9][\w\-]*)",
)
_PROVISIONAL_WORDS = 14


def _blocks(text: str) -> list[str]:
    return [" ".join(block.split()) for block in re.split(r"\n\s*\n", text) if block.strip()]


def is_heading(block: str) -> bool:
    """A short line that names a collection, not an abstract."""
    return len(block) <= 120 and len(block.split()) <= 12 and not block.rstrip().endswith(".")


def provisional_title(abstract: str) -> str:
    """A stand-in title: the method's name if the abstract gives one, and its opening words."""
    first = re.split(r"(?<=[.!?])\s", abstract, maxsplit=1)[0]
    words = first.split()
    opening = " ".join(words[:_PROVISIONAL_WORDS]) + (
        "…" if len(words) > _PROVISIONAL_WORDS else ""
    )
    named = _NAMED_METHOD.search(abstract)
    if named and named.group(1) not in opening:
        return f"{named.group(1)}: {opening}"
    return opening


def read_abstracts(path: Path) -> Iterator[SourceRecord]:
    blocks = _blocks(path.read_text(encoding="utf-8", errors="replace"))
    collection = None
    if blocks and is_heading(blocks[0]):
        collection = blocks.pop(0)
    for block in blocks:
        content_id = text_content_id(block)
        yield SourceRecord(
            source="abstracts",
            source_ref=f"{path.name}#{content_id}",
            title=provisional_title(block),
            title_provisional=True,
            abstract=block,
            collection=collection,
            content_id=content_id,
        )
