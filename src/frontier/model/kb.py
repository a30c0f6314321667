"""What curation finds and the store keeps of a paper and a topic (`Triage`, `Claim`,
`Relation`, `Entry`, `Gap`, `Conflict`, `EntityInfo`, `ConflictEvidence`): what synthesis and
the views read back; and the research maps synthesis stores (`StoredMap`), which the vault and
the web show."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Triage:
    """Where triage put a paper: a topic ("" out of the field), and why."""

    paper_id: str
    topic: str
    stage: str
    reason: str
    scope_line: str


@dataclass
class Claim:
    """A measured number of a paper, typed; what curation stores and what the vault, the web
    and the exports read. Not frozen: curation sets the fields of its copies as it types them."""

    metric: str
    value: float | None
    value_text: str  # as printed, with its qualifier and unit: "up to 1.23×"
    unit: str
    direction: str  # higher | lower | "" — from a word of the quote
    baseline: str
    model_name: str  # the LLM the paper measured (not ours)
    hardware: str
    condition: str
    page: int | None
    quote: str
    verified: bool
    verify_note: str
    model: str  # the LLM that chose among the proposed spans, or "code"
    prompt_version: str
    headline: bool = False
    setup_page: int | None = None  # where model or hardware came from when the quote names none
    setup_fields: str = ""  # which of them: "model", "hardware" or "model,hardware"
    section: str = ""
    id: int = 0
    paper_id: str = ""


@dataclass(frozen=True)
class Relation:
    """How a paper bears on what the KB tracks (an entity, a gap, a conflict, a thesis), or a
    first or a coverage counted by code. Curation finds it before it is filed: `paper_id` and
    `topic` are set once it is stored."""

    kind: str  # entity | gap | conflict | thesis | first | coverage
    target: str
    detail: str
    evidence: str = ""  # a sentence of the paper, verified on its page (or in the abstract)
    stage: str = "code"
    page: int | None = None  # the evidence's page; None for the abstract or the title
    how: str = ""  # the model's one sentence, kept only when checked against the evidence
    paper_id: str = ""
    topic: str = ""


@dataclass(frozen=True)
class Entry:
    """A paper's entry in a topic: what it is, its headline numbers and why it matters."""

    paper_id: str
    topic: str
    text: str
    model: str
    prompt_version: str
    run_id: int | None
    date: str


@dataclass(frozen=True)
class Gap:
    """An open question of a topic: declared in the config, added by hand or proposed."""

    id: int
    topic: str
    text: str
    status: str
    source: str


@dataclass(frozen=True)
class Conflict:
    """Papers of a topic that disagree: flagged by conflict detection or added by hand."""

    id: int
    topic: str
    text: str
    status: str
    source: str


# what the views list, and relate papers to, alike
GapOrConflict = Gap | Conflict


@dataclass(frozen=True)
class EntityInfo:
    """A tracked entity (a model, a piece of hardware, a system) and the names it goes by."""

    slug: str
    name: str
    kind: str
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class ConflictEvidence:
    """The two disagreeing claims behind a conflict found by code, and later measurements."""

    conflict_id: int
    paper_a: str
    paper_b: str
    metric: str
    setting: str
    quote_a: str
    quote_b: str
    page_a: int | None
    page_b: int | None
    value_a: str
    value_b: str
    why: str
    label: str
    reason: str
    later: tuple[dict[str, Any], ...]
    model: str
    prompt_version: str


@dataclass(frozen=True)
class StoredMap:
    """A research map as stored: its content and bundle as the JSON text they were saved as."""

    id: int
    run_id: int | None
    topic: str  # "" for a map of every topic
    since: str  # "" when the map has no start date
    path: str  # its page in the vault
    content: str
    bundle: str
    model: str
    prompt_version: str
    at: str


@dataclass(frozen=True)
class VerifiedClaim:
    """A verified claim with its paper's date and first topic: what conflict search pairs."""

    id: int
    paper_id: str
    metric: str
    value: float | None
    value_text: str
    unit: str
    page: int | None
    quote: str
    date: str  # the paper's published date, "" when it has none
    topic: str  # its first topic, "" when triage put it in none
    baseline: str = ""  # what a relative value (×, %) is measured against, "" when unnamed
