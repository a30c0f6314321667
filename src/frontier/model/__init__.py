"""The records that cross a stage boundary, one type each: what a source yields (sources.py),
what extraction reads and the store lists of a paper (documents.py), and what curation finds
and synthesis and the views read back (kb.py). A leaf package: of frontier it imports errors.py
alone, so every stage can use it."""

from frontier.model.documents import Chunk, Paper, Section
from frontier.model.kb import (
    Claim,
    Conflict,
    ConflictEvidence,
    EntityInfo,
    Entry,
    Gap,
    GapOrConflict,
    Relation,
    StoredMap,
    Triage,
)
from frontier.model.sources import (
    MAX_ABSTRACT,
    MAX_AUTHORS,
    MAX_CATEGORIES,
    MAX_CATEGORY,
    MAX_NAME,
    MAX_REF,
    MAX_TITLE,
    DocKind,
    SourceKind,
    SourceRecord,
    check_date,
    check_text,
    latest_date,
)

__all__ = [
    "MAX_ABSTRACT",
    "MAX_AUTHORS",
    "MAX_CATEGORIES",
    "MAX_CATEGORY",
    "MAX_NAME",
    "MAX_REF",
    "MAX_TITLE",
    "Chunk",
    "Claim",
    "Conflict",
    "ConflictEvidence",
    "DocKind",
    "EntityInfo",
    "Entry",
    "Gap",
    "GapOrConflict",
    "Paper",
    "Relation",
    "Section",
    "SourceKind",
    "SourceRecord",
    "StoredMap",
    "Triage",
    "check_date",
    "check_text",
    "latest_date",
]
