"""Two frontier processes curate the same workspace at once: no corruption, nothing twice, and
the KB they leave equals the one a single process leaves."""

from __future__ import annotations

from pathlib import Path

import pytest
from clean import CleanRun
from fake_openai import FakeOpenAI
from helpers import copy_of
from pipeline import integrity, model_env, snapshot, start
from schema_model import answer
from test_model_faults import assert_nothing_duplicated, curated_or_failed

pytestmark = pytest.mark.slow


def test_two_curations_at_once_leave_the_kb_of_one(clean_run: CleanRun, tmp_path: Path) -> None:
    shared = copy_of(clean_run.ingested, tmp_path)
    with FakeOpenAI(answer) as model:
        env = model_env(model.url)
        first, second = start(shared, ["curate"], env), start(shared, ["curate"], env)
        assert first.wait(timeout=600) in (0, 1) and second.wait(timeout=600) in (0, 1)
    assert integrity(shared) == "ok"
    assert_nothing_duplicated(shared)
    papers, done, _ = curated_or_failed(shared)
    assert papers == done
    assert snapshot(shared) == clean_run.snapshot
