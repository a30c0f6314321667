"""Bare abstracts: blocks separated by blank lines, no titles or ids, maybe under a heading."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from frontier.errors import bad_character
from frontier.model import MAX_TITLE, SourceRecord
from frontier.sources.ids import text_content_id
from frontier.sources.records import RecordError, describe_invalid, printable
from frontier.text import SentenceStarts, split_sentences

_NAMED_METHOD = re.compile(
    r"\b(?i:we|this paper|this work)\s+(?i:propose|present|introduce|develop|design|build)s?\s+"
    r"(?:\w+\s+){0,3}?([A-Z][\w\-]*[A-Z0-9][\w\-]*)",
)
_PROVISIONAL_WORDS = 14


def _blocks(text: str) -> list[tuple[int, str]]:
    """The blocks of text between blank lines, each with the number of its first line."""
    blocks: list[tuple[int, str]] = []
    start = 0
    lines: list[str] = []
    for number, line in enumerate([*text.split("\n"), ""], start=1):
        if line.strip():
            start, lines = start or number, [*lines, line]
        elif lines:
            blocks.append((start, " ".join(" ".join(lines).split())))
            start, lines = 0, []
    return blocks


def is_heading(block: str) -> bool:
    """A short line that names a collection, not an abstract."""
    return len(block) <= 120 and len(block.split()) <= 12 and not block.rstrip().endswith(".")


def provisional_title(abstract: str) -> str:
    """A stand-in title: the method's name if the abstract gives one, and its opening words."""
    first = (split_sentences(abstract, SentenceStarts.ANY) or [""])[0]
    words = first.split()
    opening = " ".join(words[:_PROVISIONAL_WORDS]) + (
        "…" if len(words) > _PROVISIONAL_WORDS else ""
    )
    named = _NAMED_METHOD.search(abstract)
    if named and named.group(1) not in opening:
        return f"{named.group(1)}: {opening}"
    return opening


def read_abstracts(path: Path) -> Iterator[SourceRecord | RecordError]:
    """One record per block; a block that fails a check is a RecordError naming its line."""
    text = path.read_bytes().decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")
    blocks, name = _blocks(text), printable(path.name)
    collection = None
    if blocks and is_heading(blocks[0][1]):
        line, heading = blocks.pop(0)
        if problem := bad_character(heading):
            yield RecordError(f"{name}:{line}", f"heading: {problem}")
        else:
            collection = heading
    for line, block in blocks:
        ref = f"{name}:{line}"
        try:
            yield _abstract_record(block, collection, name)
        except RecordError as exc:
            yield RecordError(ref, exc.reason)
        except ValidationError as exc:
            yield RecordError(ref, describe_invalid(exc, {"title": "abstract"}))


def _abstract_record(block: str, collection: str | None, name: str) -> SourceRecord:
    if problem := bad_character(block):
        raise RecordError(name, f"abstract: {problem}")
    content_id = text_content_id(block)
    return SourceRecord(
        source="abstracts",
        source_ref=f"{name}#{content_id}",
        title=provisional_title(block)[:MAX_TITLE],
        title_provisional=True,
        abstract=block,
        collection=collection,
        content_id=content_id,
    )
