"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from arxiv_replay import ArxivReplayServer


@pytest.fixture
def arxiv_server() -> Iterator[ArxivReplayServer]:
    """A running arXiv replay server on 127.0.0.1; use `.settings()` for ArxivSettings."""
    server = ArxivReplayServer().start()
    try:
        yield server
    finally:
        server.stop()
