"""Shared pytest fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from arxiv_replay import ArxivReplayServer
from helpers import corpus, run_cli
from hypothesis import HealthCheck, settings

# Property tests: the default profile (CI, `make test`) is derandomized, so every run tries the
# same inputs; HYPOTHESIS_PROFILE=long tries ten times as many, at random, for local runs.
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long",
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def arxiv_server() -> Iterator[ArxivReplayServer]:
    """A running arXiv replay server on 127.0.0.1; use `.settings()` for ArxivSettings."""
    server = ArxivReplayServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A fresh workspace made by the real `frontier init`."""
    root = tmp_path / "kb"
    result = run_cli("init", str(root))
    assert result.code == 0, result.err
    return root


@pytest.fixture(scope="session")
def shared_corpus() -> Path:
    return corpus()
