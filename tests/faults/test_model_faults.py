"""A model server that fails in every way a remote one does, or dies mid-curation: each paper
ends curated or with a recorded failure, nothing is duplicated, and once the server behaves a
rerun curates every paper. (A repaired reply is another answer of the model, so the curated text
may differ from a clean run's; what code derives from the sources must not.)"""

from __future__ import annotations

import itertools
import json
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from clean import CleanRun
from fake_openai import FakeOpenAI, Reply
from helpers import copy_of
from pipeline import integrity, model_env, run_to_end, snapshot, start
from schema_model import answer

pytestmark = pytest.mark.slow


class Misbehaving:
    """Answers well once in six; otherwise 500, 429 with Retry-After, too slow, cut-off JSON or
    JSON that breaks the schema, in turn."""

    def __init__(self) -> None:
        self.count = itertools.count()
        self.lock = threading.Lock()

    def __call__(self, request: dict[str, object]) -> Reply:
        with self.lock:
            n = next(self.count)
        good = answer(request)
        fault = n % 6
        if fault == 1:
            return Reply(status=500, body=b'{"error": {"message": "internal error"}}')
        if fault == 2:
            return Reply(
                status=429,
                body=b'{"error": {"message": "slow down"}}',
                headers={"Retry-After": "1"},
            )
        if fault == 3:
            return Reply(content=good.content, delay=3.0)  # past the 2 s timeout
        if fault == 4:
            return Reply(body=b'{"id": "x", "choices": [{"message": {"content": "{\\"to')
        if fault == 5:
            return Reply(content=json.dumps({"unexpected": ["not", "the", "schema"]}))
        return good


def curated_or_failed(root: Path) -> tuple[set[str], set[str], set[str]]:
    """(all papers, papers fully curated, papers with a failure recorded by the last curate)."""
    conn = sqlite3.connect(root / ".frontier" / "frontier.db")
    try:
        papers = {row[0] for row in conn.execute("SELECT id FROM papers")}
        done = {
            row[0]
            for row in conn.execute(
                "SELECT t.paper_id FROM triage t LEFT JOIN entries e ON e.paper_id = t.paper_id "
                "AND e.topic = t.topic WHERE t.topic = '' OR e.paper_id IS NOT NULL"
            )
        }
        summary = conn.execute(
            "SELECT summary FROM runs WHERE command = 'curate' ORDER BY id DESC LIMIT 1"
        ).fetchone()[0]
    finally:
        conn.close()
    failed = {f["paper"] for f in json.loads(summary)["failures"]}
    return papers, done, failed


DUPLICATES = {
    # one claim per number of a sentence
    "claims": "SELECT paper_id, page, quote, value_text, count(*) FROM claims GROUP BY 1, 2, 3, 4",
    "entries": "SELECT paper_id, topic, count(*) FROM entries GROUP BY 1, 2",
    "chunks": "SELECT paper_id, ord, count(*) FROM chunks GROUP BY 1, 2",
    "chunk vectors": "SELECT chunk_id, count(*) FROM chunk_embeddings GROUP BY 1",
    "gaps": "SELECT topic, text, count(*) FROM gaps GROUP BY 1, 2",
}


def assert_nothing_duplicated(root: Path) -> None:
    conn = sqlite3.connect(root / ".frontier" / "frontier.db")
    try:
        for name, sql in DUPLICATES.items():
            twice = [row for row in conn.execute(sql) if row[-1] > 1]
            assert not twice, f"duplicated {name}: {twice[:3]}"
    finally:
        conn.close()


def assert_fully_curated_like(root: Path, expected: dict[str, object]) -> None:
    """After a rerun against a good server: every paper curated, no failure, the same sources."""
    papers, done, failed = curated_or_failed(root)
    assert not failed and papers == done
    got = snapshot(root)
    for part in ("papers", "pages", "chunks", "sections", "chunk_vectors"):
        assert got[part] == expected[part], part
    assert_nothing_duplicated(root)


def test_a_misbehaving_server_leaves_every_paper_curated_or_failed(
    clean_run: CleanRun, tmp_path: Path
) -> None:
    expected = clean_run.snapshot
    root = copy_of(clean_run.ingested, tmp_path)
    with FakeOpenAI(answer) as good:
        with FakeOpenAI(Misbehaving()) as bad:
            env = model_env(bad.url) | {"FRONTIER_LLM__TIMEOUT": "2"}
            run_to_end(root, ["curate"], env)
            assert len(bad.requests) > 20
        papers, done, failed = curated_or_failed(root)
        assert failed, "the faults should have cost some papers a step"
        assert papers == done | failed
        assert integrity(root) == "ok"
        assert_nothing_duplicated(root)
        run_to_end(root, ["curate"], model_env(good.url))
        assert_fully_curated_like(root, expected)


def test_the_server_dies_and_comes_back_mid_curation(clean_run: CleanRun, tmp_path: Path) -> None:
    expected = clean_run.snapshot
    root = copy_of(clean_run.ingested, tmp_path)
    with FakeOpenAI(answer) as first:
        port = first.port
        proc = start(root, ["curate"], model_env(first.url))
        deadline = time.monotonic() + 60
        while len(first.requests) < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(first.requests) >= 5, "curation never reached the model"
    time.sleep(1.5)  # the server is down: calls fail or wait for it
    with FakeOpenAI(answer, port=port) as second:
        assert proc.wait(timeout=600) in (0, 1)
        papers, done, failed = curated_or_failed(root)
        assert papers == done | failed
        assert_nothing_duplicated(root)
        run_to_end(root, ["curate"], model_env(second.url))
    assert integrity(root) == "ok"
    assert_fully_curated_like(root, expected)
