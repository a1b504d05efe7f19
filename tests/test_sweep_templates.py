"""`scripts/sweep_templates.py`: its payloads are valid MLIR of the shapes they name, its
samples satisfy the templates' constraints, and one sample goes through the tuner's
isolated worker to a status (not timed; the sweep's figures come from running the script)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from support import REPO

import xlinalg
from tuner.constraints import first_violated, parse_constraints

sys.path.insert(0, str(REPO / "scripts"))
import sweep_templates
from sweep_templates import CASES, TEMPLATES, Conv, samples

from tuner.worker import measure


@pytest.mark.parametrize("template", list(CASES))
def test_every_payload_parses_and_verifies(template: str) -> None:
    for case in CASES[template]():
        xlinalg.parse(case.payload())


def test_conv_input_extent_covers_stride_and_dilation() -> None:
    """The input of a strided, dilated window is exactly what the last output pixel reads:
    the default compile of the payload agrees with a direct NumPy convolution."""
    conv = Conv(1, 3, 4, 2, 3, kh=2, kw=3, stride=2, dilation=2)
    kernel = xlinalg.compile(conv.tensor())
    rng = np.random.default_rng(0)
    i = rng.standard_normal((1, 7, 11, 2)).astype(np.float32)
    assert conv.types("tensor")[0] == "tensor<1x7x11x2xf32>"
    f = rng.standard_normal((2, 3, 2, 3)).astype(np.float32)
    want = np.zeros((1, 3, 4, 3), np.float64)
    for y in range(3):
        for x in range(4):
            for p in range(2):
                for q in range(3):
                    want[0, y, x] += i[0, 2 * y + 2 * p, 2 * x + 2 * q] @ f[p, q]
    got = kernel(i, f)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_samples_satisfy_the_constraints_and_differ() -> None:
    schedule = (REPO / "search_spaces" / "matmul_vectorize.mlir").read_text()
    constraints = parse_constraints(schedule)
    found = samples("matmul_vectorize", 3, seed=7)
    assert len(found) == 3 * len(TEMPLATES["matmul_vectorize"]())
    for sample in found:
        assert first_violated(constraints, sample.knobs) is None
    first_case = [s.knobs for s in found if s.case == found[0].case]
    assert len({tuple(sorted(k.items())) for k in first_case}) == 3
    assert samples("matmul_vectorize", 3, seed=7)[0].knobs == found[0].knobs  # seeded


def test_one_sample_runs_isolated_and_is_checked() -> None:
    sample = next(s for s in samples("matmul_tile", 1, seed=0) if s.case == "7x13x5")
    result = measure(sample.request, time_limit_s=120)
    assert result["status"] == "ok", result
    assert result["max_rel_error"] < 1e-5
    assert sweep_templates.STATUSES[0] == "ok"
