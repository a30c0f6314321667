"""SIGKILL at 20 random points across ingest -> curate -> map -> render, each followed by the
same command again: the store stays intact and the final KB equals that of a clean run."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from clean import CleanRun
from fake_openai import FakeOpenAI
from helpers import copy_of
from pipeline import (
    integrity,
    make_workspace,
    model_env,
    run_killed_after,
    run_to_end,
    snapshot,
    steps,
)
from schema_model import answer

KILLS = 20
BUDGET = {"ingest": 6, "curate": 7, "map": 4, "render": 3}
MAX_ATTEMPTS = 80

pytestmark = pytest.mark.slow


def test_twenty_kills_then_reruns_end_in_the_same_kb(clean_run: CleanRun, tmp_path: Path) -> None:
    rng = random.Random(20261130)
    clean = copy_of(clean_run.curated, tmp_path)  # ingested and curated: map and render follow
    with FakeOpenAI(answer) as model:
        env = model_env(model.url)
        durations = dict(clean_run.seconds)
        durations |= {args[0]: run_to_end(clean, args, env) for args in steps(clean)[2:]}
        # a second run of each command has nothing to do: how long that takes bounds late kills
        idle = {args[0]: run_to_end(clean, args, env) for args in steps(clean)}
        faulted = make_workspace(tmp_path / "faulted")
        kills = attempts = 0
        for args in steps(faulted):
            remaining = durations[args[0]]
            for _ in range(BUDGET[args[0]]):
                delay = rng.uniform(0.2, max(0.4, remaining))
                attempts += 1
                if not run_killed_after(faulted, args, env, delay):
                    break  # it finished first: the command is done
                kills += 1
                remaining = max(idle[args[0]], remaining - delay / 2)
                assert integrity(faulted) == "ok", f"after a kill during {args[0]}"
            run_to_end(faulted, args, env)
        # more kills, each during a rerun that finds its work done, until there are twenty
        names = itertools.cycle(steps(faulted))
        while kills < KILLS and attempts < MAX_ATTEMPTS:
            args = next(names)
            attempts += 1
            if run_killed_after(faulted, args, env, rng.uniform(0.2, 0.8 * idle[args[0]])):
                kills += 1
                assert integrity(faulted) == "ok", f"after a kill during {args[0]}"
            run_to_end(faulted, args, env)
    assert kills >= KILLS, f"only {kills} of {attempts} kills landed before their command ended"
    assert integrity(faulted) == "ok"
    expected, got = snapshot(clean), snapshot(faulted)
    for part in expected:
        assert got[part] == expected[part], f"{part} differs after {kills} kills"
