"""One clean run of the small pipeline, ingest then curate against the stand-in model, that the
fault tests start from and compare with."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from fake_openai import FakeOpenAI
from pipeline import make_workspace, model_env, run_to_end, snapshot, steps
from schema_model import answer


@dataclass(frozen=True)
class CleanRun:
    """The small workspace ingested, then curated against the stand-in model without a fault."""

    ingested: Path  # after ingest alone: a test copies it to curate under faults
    curated: Path  # a copy of it after curate: tests read it or copy it, never change it
    snapshot: dict[str, object]  # of `curated`
    seconds: dict[str, float]  # how long ingest and curate took


def clean_run_in(base: Path) -> CleanRun:
    with FakeOpenAI(answer) as model:  # its replies are a function of the request alone
        env = model_env(model.url)
        ingested = make_workspace(base / "ingested")
        ingest, curate = steps(ingested)[:2]
        seconds = {"ingest": run_to_end(ingested, ingest, env)}
        curated = base / "curated"
        shutil.copytree(ingested, curated)
        seconds["curate"] = run_to_end(curated, curate, env)
    return CleanRun(ingested, curated, snapshot(curated), seconds)
