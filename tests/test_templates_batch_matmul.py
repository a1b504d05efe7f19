"""search_spaces/batch_matmul.mlir applies for fixed knob settings and gives
the reference's results (dividing and non-dividing shapes, not timed); the
cast_away_vector_leading_one_dim pattern it relies on, on its own."""

from __future__ import annotations

import pytest
from support import REPO, bmm_payload
from test_transform_loop import apply

import xlinalg

SPACE = (REPO / "search_spaces" / "batch_matmul.mlir").read_text()

TESTED_OPS = [
    "transform.apply_patterns.vector.cast_away_vector_leading_one_dim",
    "transform.apply_patterns.vector.lower_contraction",
    "transform.apply_patterns.vector.lower_outerproduct",
]


KNOBS = [
    {"tile_m": 32, "tile_n": 64, "tile_k": 64, "reg_m": 4, "reg_n": 16, "reg_k": 1, "cache_order": 0,
     "unroll_k": 0, "pack_b": 0, "peel": 0},
    {"tile_m": 64, "tile_n": 128, "tile_k": 64, "reg_m": 8, "reg_n": 32, "reg_k": 2, "cache_order": 1,
     "unroll_k": 1, "pack_b": 0, "peel": 1},
    # B's cache tile copied to a local buffer (partial tiles on the odd shape: a dynamic view
    # of the buffer), M in one cache tile
    {"tile_m": 256, "tile_n": 16, "tile_k": 64, "reg_m": 16, "reg_n": 16, "reg_k": 1, "cache_order": 1,
     "unroll_k": 0, "pack_b": 1, "peel": 2},
    {"tile_m": 32, "tile_n": 32, "tile_k": 64, "reg_m": 8, "reg_n": 32, "reg_k": 2, "cache_order": 0,
     "unroll_k": 1, "pack_b": 1, "peel": 0},
]


@pytest.mark.parametrize("knobs", KNOBS, ids=["small", "unrolled", "pack_b", "pack_b_unrolled"])
@pytest.mark.parametrize("shape", [(2, 64, 128, 64), (3, 37, 45, 29)], ids=["dividing", "odd"])
def test_batch_matmul_template_matches_reference(knobs: dict, shape: tuple) -> None:
    kernel = xlinalg.compile(bmm_payload(*shape), schedule=SPACE, knobs=knobs)
    text = str(kernel.module)
    assert "vector.contract" not in text and "vector.fma" in text
    # pack_b: B's tile is read from a local buffer filled by a copy inside the cache loops
    assert ("memref.alloc" in text and "linalg.copy" in text) == bool(knobs["pack_b"])
    args = kernel.make_inputs(seed=4)
    result = kernel.check(*args)
    assert result.ok, result.message


CAST_AWAY = """
    %b = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %b : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
    } : !transform.any_op
"""


def test_cast_away_leading_unit_dim_of_contract() -> None:
    payload = bmm_payload(1, 4, 16, 3)
    text = str(apply(payload, CAST_AWAY))
    # the contraction lost the batch dim: rank-2 accumulator, broadcast back to 1x4x16
    assert "vector<4x16xf32>" in text and "vector.broadcast" in text
    contract = next(line for line in text.splitlines() if "vector.contract" in line)
    assert "(d0, d1, d2) -> (d0, d2)" in contract and '"parallel", "parallel", "reduction"' in contract
    kernel = xlinalg.compile(payload, schedule=__import__("test_transform_loop").schedule(CAST_AWAY))
    args = kernel.make_inputs()
    result = kernel.check(*args)
    assert result.ok, result.message


def test_cast_away_leaves_non_unit_batch_alone() -> None:
    text = str(apply(bmm_payload(2, 4, 16, 3), CAST_AWAY))
    assert "vector<2x4x16xf32>" in text and "vector.broadcast" not in text
