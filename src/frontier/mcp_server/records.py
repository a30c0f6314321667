"""What each MCP tool gives an agent: typed records whose JSON schema the server publishes as the
tool's output schema. Every number a record carries comes with the quote it was read from and
the page that quote is on (None: the abstract or the title)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class SearchHit(BaseModel):
    paper_id: str
    title: str
    page: int | None = Field(description="The page of the paper's best passage.")
    section: str | None
    snippet: str = Field(description="The best passage, cut around the query's words.")
    score: float


class SearchResult(BaseModel):
    query: str
    topic: str | None
    hits: list[SearchHit]


class Section(BaseModel):
    number: str | None
    title: str
    page_start: int | None


class Paper(BaseModel):
    paper_id: str
    title: str
    authors: list[str]
    published: str | None
    arxiv_id: str | None
    doi: str | None
    url: str | None
    abstract: str | None
    status: str = Field(description="fulltext (pages read) or metadata.")
    n_pages: int
    sections: list[Section]
    resource: str = Field(description="The paper's page as markdown: read this resource URI.")
    page: int | None = Field(description="The page asked for, if any.")
    page_text: str | None = Field(description="That page's stored text.")


class Claim(BaseModel):
    claim_id: int
    paper_id: str
    title: str
    metric: str
    value: float | None
    value_text: str = Field(description="The number as the paper prints it, with its qualifier.")
    unit: str
    direction: str = Field(description="higher, lower or '' (read from the quote).")
    baseline: str
    model: str = Field(description="The LLM the paper measured.")
    hardware: str
    condition: str
    page: int | None = Field(description="The page the quote is on; None: the abstract.")
    quote: str = Field(description="The paper's sentence that states the number.")
    verified: bool = Field(description="The quote was found on its page and holds the value.")
    headline: bool


class Claims(BaseModel):
    claims: list[Claim]


class Relation(BaseModel):
    paper_id: str
    title: str
    topic: str
    kind: str = Field(description="gap, conflict, thesis, entity, first or coverage.")
    target: str = Field(description="The gap or conflict id, thesis text or entity slug.")
    label: str = Field(description="What the target is, in words.")
    detail: str
    evidence: str = Field(description="The paper's sentence that bears it out.")
    page: int | None = Field(description="The page of the evidence; None: abstract or title.")
    how: str = Field(description="A checked sentence on how the paper bears on the target.")


class Relations(BaseModel):
    relations: list[Relation]


class Gap(BaseModel):
    gap_id: int | None = Field(description="None: declared in frontier.toml, not yet stored.")
    topic: str
    text: str
    status: str = Field(description="open, closed, proposed or rejected.")
    source: str
    papers: list[str] = Field(description="Ids of the papers related to the gap, newest first.")


class Gaps(BaseModel):
    gaps: list[Gap]


class DigestEntry(BaseModel):
    paper_id: str
    title: str
    date: str
    topic: str
    why: str
    entry: str | None
    headline_claims: list[Claim]


class Digest(BaseModel):
    title: str
    summary: list[str]
    counts: dict[str, int]
    entries: list[DigestEntry]
    markdown: str = Field(description="The digest page as `frontier digest` writes it.")


class AnsweringSentence(BaseModel):
    n: int = Field(description="The source number the answer cites as [n].")
    paper_id: str
    page: int | None
    sentence: str = Field(description="The source's sentence, quoted as it stands.")


class AnswerSource(BaseModel):
    n: int
    paper_id: str
    title: str
    pages: list[int]


class DroppedSentence(BaseModel):
    sentence: str
    reason: str


class Answer(BaseModel):
    ask_id: int | None
    question: str
    answer: str = Field(description="The checked answer; every [n] names a source.")
    supported: bool = Field(description="False: nothing in the KB bears on the question.")
    answering_sentences: list[AnsweringSentence]
    sources: list[AnswerSource]
    removed_citations: list[int]
    dropped_sentences: list[DroppedSentence]
    model: str
    model_not_asked: str = Field(
        "",
        description="Why the model wrote nothing (its answers keep failing the check): the "
        "answer is then the sources' answering sentences alone.",
    )


class AddedItem(BaseModel):
    item: str
    outcome: str = Field(description="stored, warning, updated, duplicate, rejected or failed.")
    message: str
    paper_id: str | None


class Added(BaseModel):
    counts: dict[str, int]
    items: list[AddedItem]


class GapMove(BaseModel):
    gap_id: int
    before: str
    after: str
    changed: bool


def claim_record(row: dict[str, Any]) -> Claim:
    """A claim as the store lists it (`claims_data`)."""
    fields = {name: row[name] for name in Claim.model_fields if name in row}
    return Claim(**fields, claim_id=row["id"], paper_id=row["paper"])


def store_claim(claim: Any, title: str) -> Claim:
    """A claim as the KB holds it (`store.claims.Claim`)."""
    fields = {name: getattr(claim, name) for name in Claim.model_fields if hasattr(claim, name)}
    # the KB's `model` is the LLM that typed the claim; the record's is the one measured
    return Claim(**fields | {"model": claim.model_name, "claim_id": claim.id, "title": title})
