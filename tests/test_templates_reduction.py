"""search_spaces/reduction.mlir applies for fixed knob settings (both
strategies) and gives the reference's results on small shapes (not timed)."""

from __future__ import annotations

import pytest
from support import REPO

import xlinalg

SPACE = (REPO / "search_spaces" / "reduction.mlir").read_text()

TESTED_OPS = [
    "transform.structured.generalize",
    "transform.structured.split_reduction",
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


@pytest.mark.parametrize("knobs", [
    {"reg_m": 4, "tile_n": 64, "reg_k": 1, "strategy": 0},
    {"reg_m": 2, "tile_n": 128, "reg_k": 4, "strategy": 1},
    {"reg_m": 8, "tile_n": 64, "reg_k": 2, "strategy": 1},
], ids=["multi_reduction", "split-4", "split-2"])
@pytest.mark.parametrize("combiner", ["arith.addf", "arith.maximumf"])
def test_reduction_template_matches_reference(knobs: dict, combiner: str) -> None:
    kernel = xlinalg.compile(reduce_payload(16, 256, combiner), schedule=SPACE, knobs=knobs)
    text = str(kernel.module)
    assert "vector.multi_reduction" in text
    if knobs["strategy"] == 1:
        assert "memref.expand_shape" in text  # split by 16 lanes
    args = kernel.make_inputs(seed=5)
    result = kernel.check(*args)
    assert result.ok, result.message


def test_reduction_template_odd_rows() -> None:
    kernel = xlinalg.compile(reduce_payload(13, 96), schedule=SPACE,
                             knobs={"reg_m": 4, "tile_n": 64, "reg_k": 2, "strategy": 1})
    args = kernel.make_inputs(seed=6)
    result = kernel.check(*args)
    assert result.ok, result.message
