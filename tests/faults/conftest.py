"""The fault suite shares the helpers of the main test folder, and one clean run of the small
pipeline that every fault test starts from or compares with."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from clean import CleanRun, clean_run_in


@pytest.fixture(scope="session")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> CleanRun:
    return clean_run_in(tmp_path_factory.mktemp("faults-clean"))
