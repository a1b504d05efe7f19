"""search_spaces/reduction.mlir applies for fixed knob settings (both
strategies) and gives the reference's results on small shapes (not timed), including
reduction extents 16 does not divide (strategy 1 used split_reduction by 16, which
failed there: a compile error for every such sample of a tuning run)."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg

from support import REPO

SPACE = (REPO / "search_spaces" / "reduction.mlir").read_text()

TESTED_OPS = [
    "transform.structured.generalize",
    "transform.structured.tile_reduction_using_for",
    "transform.loop.peel",
    "transform.structured.vectorize",
]


def reduce_payload(m: int, n: int, combiner: str = "arith.addf") -> str:
    return f"""
func.func @f(%in: memref<{m}x{n}xf32>, %out: memref<{m}xf32>) {{
  linalg.reduce ins(%in : memref<{m}x{n}xf32>) outs(%out : memref<{m}xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {{
      %s = {combiner} %x, %acc : f32
      linalg.yield %s : f32
    }}
  func.return
}}
"""


@pytest.mark.parametrize(
    "knobs",
    [
        {"reg_m": 4, "tile_n": 64, "strategy": 0},
        {"reg_m": 2, "tile_n": 128, "strategy": 1},
        {"reg_m": 8, "tile_n": 64, "strategy": 1},
    ],
    ids=["multi_reduction", "lanes-2", "lanes-8"],
)
@pytest.mark.parametrize("combiner", ["arith.addf", "arith.maximumf"])
def test_reduction_template_matches_reference(knobs: dict, combiner: str) -> None:
    kernel = xlinalg.compile(reduce_payload(16, 256, combiner), schedule=SPACE, knobs=knobs)
    text = str(kernel.module)
    assert "vector.multi_reduction" in text
    if knobs["strategy"] == 1:
        assert "x16xf32>" in text
        assert "memref.alloc" in text  # a partial row of 16 lanes
    args = kernel.make_inputs(seed=5)
    result = kernel.check(*args)
    assert result.ok, result.message


def test_reduction_template_odd_rows() -> None:
    kernel = xlinalg.compile(
        reduce_payload(13, 96), schedule=SPACE, knobs={"reg_m": 4, "tile_n": 64, "strategy": 1}
    )
    args = kernel.make_inputs(seed=6)
    result = kernel.check(*args)
    assert result.ok, result.message


@pytest.mark.parametrize(("m", "n"), [(9, 4099), (3, 15), (50, 1), (1, 1), (33, 333)])
@pytest.mark.parametrize("combiner", ["arith.addf", "arith.maximumf"])
def test_lane_strategy_on_extents_16_does_not_divide(m: int, n: int, combiner: str) -> None:
    """Strategy 1 on any extent: whole steps of 16 lanes, the partial step peeled and
    masked; checked against NumPy (this payload was a compile error before)."""
    kernel = xlinalg.compile(
        reduce_payload(m, n, combiner),
        schedule=SPACE,
        knobs={"reg_m": 4, "tile_n": 64, "strategy": 1},
    )
    assert "vector.multi_reduction" in str(kernel.module) or n == 1
    args = kernel.make_inputs(seed=m + n)
    want = (
        args[1] + args[0].sum(axis=1)
        if combiner == "arith.addf"
        else np.maximum(args[1], args[0].max(axis=1))
    )
    (got_in, got_out) = [a.copy() for a in args]
    kernel(got_in, got_out)
    np.testing.assert_allclose(got_out, want, rtol=1e-5)
