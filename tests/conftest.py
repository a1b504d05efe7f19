"""Shared fixtures: paths of the repository's examples and search spaces."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings
from support import REPO

# The property tests draw the same examples on every run (a red CI run is reproducible and
# never depends on luck); `HYPOTHESIS_PROFILE=explore pytest ...` draws new ones to hunt bugs.
settings.register_profile("reproducible", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))


@pytest.fixture
def root() -> Path:
    return REPO
