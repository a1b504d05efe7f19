"""Shared fixtures and markers: the repository's root, the hypothesis profile, and the
`iree_opt` / `perf` markers of the tests that skip without iree-opt or AVX-512 (see
tests/README.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from support import REPO, needs_avx512, needs_iree

# The property tests draw the same examples on every run (a red CI run is reproducible and
# never depends on luck); `HYPOTHESIS_PROFILE=explore pytest ...` draws new ones to hunt bugs.
settings.register_profile("reproducible", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test skipped without iree-opt runs it (`iree_opt`); one skipped without AVX-512
    asserts on the machine code of AVX-512 register blocks (`perf`)."""
    for item in items:
        skips = list(item.iter_markers("skipif"))
        if needs_iree.mark in skips:
            item.add_marker(pytest.mark.iree_opt)
        if needs_avx512.mark in skips:
            item.add_marker(pytest.mark.perf)


@pytest.fixture
def root() -> Path:
    return REPO
