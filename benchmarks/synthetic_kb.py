"""A synthetic KB at scale, written straight into a real workspace's SQLite by bulk inserts.

Papers with arXiv-like ids and dates (more papers in recent years), pages, sections and chunks of
300-500 tokens (FTS5 filled by the schema's own trigger), paper and chunk vectors (384-d unit
float32 around cluster centres), triage, verified claims quoted from their page, relations and
entries. Every curate_state and input hash is computed by curate's own key functions, and firsts
and coverage by curate's own counting, and the claims are marked as paired by conflict detection,
so `frontier curate` on the result has nothing to do.

    python benchmarks/synthetic_kb.py DIR [--papers 100000] [--chunks 1000000]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import sqlite3
import time
from dataclasses import replace
from pathlib import Path
from typing import cast

import numpy as np
from rich.console import Console
from synthetic_papers import PaperPlan, claims_for, plan_papers, write_fulltext
from synthetic_text import DIM, VectorSource, WordSource

from frontier.config import Settings
from frontier.curate.context import CurationContext
from frontier.curate.entry import headline_numbers, why_it_matters
from frontier.curate.relations import entity_relations
from frontier.curate.scope import scope_lines
from frontier.curate.steps.claims import claims_key, claims_quick_key, entity_aliases
from frontier.curate.steps.entries import (
    entity_kinds,
    entity_names,
    entry_key,
    relations_for_entry,
)
from frontier.curate.steps.entries import verified_claims as stored_verified_claims
from frontier.curate.steps.firsts import counted_relations
from frontier.curate.steps.relations import (
    relation_items,
    relations_base_key,
    relations_key,
    relations_quick_key,
)
from frontier.curate.steps.triage import triage_key, triage_scope_key
from frontier.curate.steps.vectors import vectors_quick_key
from frontier.curate.vectors import embed_texts, paper_text
from frontier.llm.client import LLM
from frontier.llm.embeddings import MODEL_NAME, load_embedder, vector_to_blob
from frontier.llm.prompts import load_prompt
from frontier.model import Claim, Paper
from frontier.sources.ids import normalize_title
from frontier.store import curation as store
from frontier.store.claims import CLAIM_COLUMNS, column_value
from frontier.store.db import now
from frontier.store.dense import update_chunk_index
from frontier.store.lexical import update_lexical_indexes
from frontier.store.runs import finish_run, start_run
from frontier.workspace import Workspace, init_workspace, open_workspace

BATCH = 2_000
CLUSTERS_PER_TOPIC = 16
STAMP_NAME = "synthetic.json"
GENERATOR = 2  # bumped when what the generator writes changes: a cached KB is then rebuilt


def build_kb(root: Path, papers: int, chunks: int, seed: int = 7, quiet: bool = False) -> Workspace:
    """Create the workspace at `root` and fill it; about a minute per 100k chunks on 2 cores."""
    ws = init_workspace(root)
    started = time.perf_counter()
    with contextlib.closing(ws.connect()) as conn:
        # one writer and no reader while building: no WAL, no fsync; back to WAL at the end
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute("PRAGMA cache_size=-262144")
        run_id = start_run(conn, "synthetic")
        store.sync_config(conn, ws.settings)
        plans = plan_papers(ws.settings, papers, chunks, CLUSTERS_PER_TOPIC, seed)
        words = WordSource(CLUSTERS_PER_TOPIC * (len(ws.settings.topics) + 1), seed)
        vectors = VectorSource(CLUSTERS_PER_TOPIC * (len(ws.settings.topics) + 1), seed)
        writer = _Writer(conn, ws.settings, run_id, words, vectors)
        for start in range(0, len(plans), BATCH):
            writer.write(plans[start : start + BATCH])
            _progress(quiet, f"{start + BATCH:>7} papers", started)
        _count_relations(conn, ws.settings, run_id)
        _progress(quiet, "counted relations", started)
        _write_entries(conn, ws.settings, run_id, words, plans)
        _progress(quiet, "entries", started)
        update_chunk_index(conn, MODEL_NAME)  # as curate leaves it
        update_lexical_indexes(conn)
        _progress(quiet, "vector and lexical indexes", started)
        finish_run(conn, run_id, "ok", {"papers": len(plans)})
        conn.execute("PRAGMA journal_mode=WAL")
    stamp = {"papers": papers, "chunks": chunks, "seed": seed, "generator": GENERATOR}
    (root / STAMP_NAME).write_text(json.dumps(stamp))
    return ws


def cached_kb(root: Path, papers: int, chunks: int, seed: int = 7) -> Workspace:
    """The KB at `root` when it was built with these figures, else a fresh build there."""
    stamp = root / STAMP_NAME
    wanted = {"papers": papers, "chunks": chunks, "seed": seed, "generator": GENERATOR}
    if stamp.is_file() and json.loads(stamp.read_text()) == wanted:
        return open_workspace(root)
    if root.exists():
        for path in sorted(root.rglob("*"), reverse=True):
            path.unlink() if path.is_file() or path.is_symlink() else path.rmdir()
    return build_kb(root, papers, chunks, seed)


def _progress(quiet: bool, what: str, started: float) -> None:
    if not quiet:
        print(f"  {what} ({time.perf_counter() - started:.0f} s)", flush=True)


class _Writer:
    """Writes one batch of planned papers with everything curate would have stored for them."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        settings: Settings,
        run_id: int,
        words: WordSource,
        vectors: VectorSource,
    ) -> None:
        self.conn, self.settings, self.run_id = conn, settings, run_id
        self.words, self.vectors = words, vectors
        self.triage_tag = load_prompt("triage").tag
        self.scope_key = triage_scope_key(settings, self.triage_tag)
        self.claim_tag = load_prompt("claim").tag
        self.claim_limit = settings.curate.max_claims_per_paper
        self.aliases = entity_aliases(settings)
        self.relations_base = relations_base_key(
            relation_items(conn, settings), settings, load_prompt("relate").tag
        )
        self.scope = {t.slug: list(t.in_scope) for t in settings.topics}

    def write(self, plans: list[PaperPlan]) -> None:
        stamp = now()
        paper_vectors = self.vectors.papers(np.array([p.cluster for p in plans]))
        self.conn.execute("BEGIN")
        for plan, vector in zip(plans, paper_vectors, strict=True):
            self._paper(plan, vector, stamp)
        self.conn.execute("COMMIT")

    def _paper(self, plan: PaperPlan, vector: np.ndarray, stamp: str) -> None:
        title = self.words.text(plan.title_words, plan.cluster).capitalize()
        abstract = self.words.sentence_text(plan.abstract_words, plan.cluster)
        paper = Paper(plan.id, title, abstract, source="arxiv", published=plan.date)
        claims = claims_for(plan, self.words.rng) if plan.topic else []
        self._metadata(plan, title, abstract, stamp)
        chunk_rows, pages = write_fulltext(self.conn, plan, self.words, claims)
        version = self.conn.execute(
            "SELECT text_version FROM papers WHERE id = ?", (plan.id,)
        ).fetchone()[0]
        self._vectors(plan, vector, title, abstract)
        self._triage(plan, paper, stamp)
        if plan.topic:
            chunk_key = claims_key(chunk_rows, self.claim_tag, self.claim_limit, self.aliases)
            quick = claims_quick_key(version, self.claim_tag, self.claim_limit, self.aliases)
            self._claims(plan, claims, chunk_key, stamp, quick)
            # mentions from the first pages only: scanning every page costs a third of the build
            found = entity_relations(self.settings.entities, title, abstract, pages[:2])
            key = relations_key(self.relations_base, paper, [plan.topic], pages)
            quick = relations_quick_key(
                self.relations_base, replace(paper, text_version=version), [plan.topic]
            )
            self._relations(plan, found, key, quick)
            vectors_key = vectors_quick_key(MODEL_NAME, version)
            self._mark(plan.id, "vectors", vectors_key, stamp, vectors_key)

    def _metadata(self, plan: PaperPlan, title: str, abstract: str, stamp: str) -> None:
        authors = json.dumps([f"Author {n}" for n in plan.authors])
        digest = hashlib.sha256(plan.id.encode()).hexdigest()
        self.conn.execute(
            """INSERT INTO papers (id, arxiv_id, arxiv_version, title, title_norm, authors,
                   published, updated, categories, abstract, pdf_url, source, source_ref,
                   content_hash, status, n_pages, added_at, updated_at, run_id)
               VALUES (?, ?, 1, ?, ?, ?, ?, ?, '["cs.LG"]', ?, ?, 'arxiv', ?, ?, 'fulltext', ?,
                   ?, ?, ?)""",
            (
                plan.id,
                plan.id,
                title,
                normalize_title(title),
                authors,
                plan.date,
                plan.date,
                abstract,
                f"https://arxiv.org/pdf/{plan.id}v1",
                plan.id,
                digest,
                plan.pages,
                stamp,
                stamp,
                self.run_id,
            ),
        )
        self.conn.execute("INSERT INTO paper_versions VALUES (?, 1, ?)", (plan.id, stamp))
        self.conn.execute(
            "INSERT INTO paper_sources (paper_id, source, source_ref, content_hash, added_at) "
            "VALUES (?, 'arxiv', ?, ?, ?)",
            (plan.id, plan.id, digest, stamp),
        )
        self.conn.execute(
            "INSERT INTO papers_fts (paper_id, title, abstract) VALUES (?, ?, ?)",
            (plan.id, title, abstract),
        )

    def _vectors(self, plan: PaperPlan, vector: np.ndarray, title: str, abstract: str) -> None:
        self.conn.execute(
            "INSERT INTO paper_embeddings VALUES (?, ?, ?, ?)",
            (
                plan.id,
                MODEL_NAME,
                store.stable_hash(paper_text(title, abstract)),
                vector_to_blob(vector),
            ),
        )
        if not plan.topic:
            return  # curate embeds the chunks of papers in the field only
        ids = [
            r[0]
            for r in self.conn.execute(
                "SELECT id FROM chunks WHERE paper_id = ? ORDER BY id", (plan.id,)
            )
        ]
        rows = self.vectors.chunks(np.repeat(vector[None, :], len(ids), axis=0))
        self.conn.executemany(
            "INSERT INTO chunk_embeddings VALUES (?, ?, ?)",
            [(cid, MODEL_NAME, v.tobytes()) for cid, v in zip(ids, rows, strict=True)],
        )

    def _triage(self, plan: PaperPlan, paper: Paper, stamp: str) -> None:
        key = triage_key(self.scope_key, paper)
        if plan.topic:
            line = self.scope[plan.topic][plan.cluster % len(self.scope[plan.topic])]
            reason, score = f'closest to the scope line "{line}"', 0.45 + 0.3 * plan.jitter
        else:
            line, reason, score = "", "no scope line close enough", 0.1 + 0.1 * plan.jitter
        by_llm = plan.jitter < 0.1
        stage, model = ("llm", "SmolLM2-135M-Instruct") if by_llm else ("embedding", "")
        tag = self.triage_tag if by_llm else ""
        self.conn.execute(
            "INSERT INTO triage VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)",
            (
                plan.id,
                plan.topic,
                stage,
                reason,
                line,
                round(score, 4),
                model,
                tag,
                self.run_id,
                key,
                stamp,
            ),
        )
        self._mark(plan.id, "triage", key, stamp)

    def _claims(
        self, plan: PaperPlan, claims: list[Claim], key: str, stamp: str, quick: str
    ) -> None:
        self.conn.executemany(
            f"INSERT INTO claims (paper_id, {', '.join(CLAIM_COLUMNS)}, run_id, at, "
            f"conflicts_seen) VALUES ({', '.join('?' * (len(CLAIM_COLUMNS) + 3))}, 1)",
            [
                (plan.id, *(column_value(c, f) for f in CLAIM_COLUMNS), self.run_id, stamp)
                for c in claims
            ],
        )
        self._mark(plan.id, "claims", key, stamp, quick)

    def _relations(self, plan: PaperPlan, found: list, key: str, quick: str) -> None:  # type: ignore[type-arg]
        self.conn.executemany(
            "INSERT OR REPLACE INTO relations (paper_id, topic, kind, target, detail, evidence, "
            "stage, page, how) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    plan.id,
                    plan.topic,
                    r.kind,
                    r.target,
                    r.detail,
                    r.evidence,
                    r.stage,
                    r.page,
                    r.how,
                )
                for r in found
            ],
        )
        self._mark(plan.id, "relations", key, now(), quick)

    def _mark(self, paper_id: str, step: str, key: str, stamp: str, quick: str = "") -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO curate_state (paper_id, step, input_hash, done_at, quick_key) "
            "VALUES (?, ?, ?, ?, ?)",
            (paper_id, step, key, stamp, quick),
        )


def _count_relations(conn: sqlite3.Connection, settings: Settings, run_id: int) -> None:
    """Firsts and coverage by curate's own counting over the stored paper vectors."""
    embedder = load_embedder()
    lines = scope_lines(settings)
    vectors = {
        row[0]: np.frombuffer(row[1], dtype=np.float32)
        for row in conn.execute("SELECT paper_id, vector FROM paper_embeddings")
    }
    ctx = CurationContext(
        conn=conn,
        settings=settings,
        llm=cast(LLM, None),  # counting never calls the model
        run_id=run_id,
        vectors=vectors,
        lines=lines,
        line_vectors=embed_texts(embedder, [line.text for line in lines]),
        embed=lambda texts: embed_texts(embedder, texts),
        console=Console(quiet=True),
    )
    counted_relations(ctx, store.papers_to_curate(conn))


def _write_entries(
    conn: sqlite3.Connection,
    settings: Settings,
    run_id: int,
    words: WordSource,
    plans: list[PaperPlan],
) -> None:
    tag = load_prompt("entry").tag
    names = entity_names(conn)
    kinds = entity_kinds(settings)
    papers = {paper.id: paper for paper in store.papers_to_curate(conn)}
    stamp = now()
    conn.execute("BEGIN")
    for plan in plans:
        if not plan.topic:
            continue
        paper = papers[plan.id]
        claims = stored_verified_claims(conn, plan.id)
        relations = relations_for_entry(conn, plan.id, plan.topic)
        what = words.sentence_text(30 + plan.authors[0] % 30, plan.cluster)
        text = " ".join(
            p
            for p in (what, headline_numbers(claims), why_it_matters(relations, names, kinds))
            if p
        )
        key = entry_key(tag, paper, plan.topic, claims, relations, names, kinds)
        conn.execute(
            "INSERT INTO entries (paper_id, topic, text, model, prompt_version, run_id, "
            "input_hash, at, what) VALUES (?, ?, ?, 'SmolLM2-135M-Instruct', ?, ?, ?, ?, ?)",
            (plan.id, plan.topic, text, tag, run_id, key, stamp, what),
        )
    conn.execute("COMMIT")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    started = time.perf_counter()
    cached_kb(args.directory, args.papers, args.chunks, args.seed)
    print(f"{args.papers} papers, {args.chunks} chunks in {time.perf_counter() - started:.0f} s")
    print(f"(vectors: {DIM}-d float32)")


if __name__ == "__main__":
    main()
