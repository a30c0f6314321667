"""The CPU stages of one paper, the same whichever engine runs them: read the PDF into pages,
sections and chunks, then (when asked) embed its chunks and the paper itself."""

from __future__ import annotations

from frontier.intake.jobs import JobResult, PdfJob, run_pdf_job
from frontier.intake.save import record_for_pdf
from frontier.llm.embeddings import (
    CHUNK_RECIPE,
    EmbeddingError,
    load_embedder,
    paper_text,
    vector_to_blob,
)
from frontier.store.curation import stable_hash
from frontier.store.vectors import PaperVectors

# one thread per worker process: the engines run a worker per core already
_EMBED_THREADS = 1


def process_job(job: PdfJob) -> JobResult:
    """Every stage of one paper; failures come back as reasons, never as exceptions."""
    result = run_pdf_job(job)
    if job.embed and result.extracted is not None:
        result.vectors = embed_paper(result)
    return result


def embed_paper(result: JobResult) -> PaperVectors | None:
    """The paper's chunk vectors and its own vector; None where the model is not installed
    (curate embeds the paper later)."""
    assert result.extracted is not None
    try:
        embedder = load_embedder(_EMBED_THREADS)
    except EmbeddingError:
        return None
    record = record_for_pdf(result.extracted, result.job.record, result.job.item)
    # one paper's chunks form one batch, so a vector never depends on which papers share a worker
    chunks = embedder.embed_whole([chunk.text for chunk in result.extracted.chunks])
    text = paper_text(record.title or "", record.abstract)
    return PaperVectors(
        model=embedder.name,
        recipe=CHUNK_RECIPE,
        chunks=[vector_to_blob(vector) for vector in chunks],
        title=record.title or "",
        abstract=record.abstract,
        text_hash=stable_hash(text),
        paper=vector_to_blob(embedder.embed([text])[0]),
    )
