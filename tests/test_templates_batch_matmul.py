"""search_spaces/batch_matmul.mlir applies for fixed knob settings and gives
the reference's results (dividing and non-dividing shapes, not timed); the
cast_away_vector_leading_one_dim pattern it relies on, on its own."""

from __future__ import annotations

import pytest
from support import REPO, bmm_payload
from test_transform_loop import apply
from xdsl.dialects import scf
from xdsl.dialects.builtin import VectorType

import xlinalg
import xlinalg.errors

SPACE = (REPO / "search_spaces" / "batch_matmul.mlir").read_text()

TESTED_OPS = [
    "transform.apply_patterns.vector.cast_away_vector_leading_one_dim",
    "transform.apply_patterns.vector.lower_contraction",
    "transform.apply_patterns.vector.lower_outerproduct",
]


KNOBS = [
    {"tile_m": 32, "tile_n": 64, "tile_k": 64, "reg_m": 4, "reg_n": 16, "reg_k": 1, "cache_order": 0,
     "unroll_k": 0, "pack_b": 0, "peel": 0, "pipeline_c": 0},
    {"tile_m": 64, "tile_n": 128, "tile_k": 64, "reg_m": 8, "reg_n": 32, "reg_k": 2, "cache_order": 1,
     "unroll_k": 1, "pack_b": 0, "peel": 1, "pipeline_c": 0},
    # B's cache tile copied to a local buffer (partial tiles on the odd shape: a dynamic view
    # of the buffer), M in one cache tile
    {"tile_m": 256, "tile_n": 16, "tile_k": 64, "reg_m": 16, "reg_n": 16, "reg_k": 1, "cache_order": 1,
     "unroll_k": 0, "pack_b": 1, "peel": 2, "pipeline_c": 0},
    {"tile_m": 32, "tile_n": 32, "tile_k": 64, "reg_m": 8, "reg_n": 32, "reg_k": 2, "cache_order": 0,
     "unroll_k": 1, "pack_b": 1, "peel": 0, "pipeline_c": 0},
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


PIPELINED = {"tile_m": 32, "tile_n": 16, "tile_k": 64, "reg_m": 8, "reg_n": 16, "reg_k": 1,
             "cache_order": 1, "unroll_k": 0, "pack_b": 1, "peel": 0, "pipeline_c": 1}


@pytest.mark.parametrize("knobs", [PIPELINED, {**PIPELINED, "tile_m": 64, "reg_k": 2, "unroll_k": 1,
                                               "cache_order": 0, "pack_b": 0}],
                         ids=["pack_b", "unrolled"])
@pytest.mark.parametrize("pipeline_c", [0, 1])
def test_pipelined_c_carries_the_next_row_block_across_the_k_loop(knobs: dict, pipeline_c: int) -> None:
    """pipeline_c = 1: the loop over register row blocks reads the next row block's C
    before the k loop of this one and carries it (a vector iter_arg of a loop around the k
    loop; with pipeline_c = 0 only the k loops carry vectors); vs NumPy on a shape the cache
    tiles divide (M by tile_m, N by tile_n = reg_n), K odd."""
    knobs = {**knobs, "pipeline_c": pipeline_c}
    payload = bmm_payload(2, 64, 48, 29)
    module = xlinalg.apply_schedule(xlinalg.parse(payload), SPACE, knobs=knobs)
    carrying = [op for op in module.walk() if isinstance(op, scf.ForOp)
                and any(isinstance(inner, scf.ForOp) for inner in op.body.block.ops)
                and any(isinstance(arg.type, VectorType) for arg in op.body.block.args)]
    assert len(carrying) == pipeline_c
    kernel = xlinalg.compile(payload, schedule=SPACE, knobs=knobs)
    result = kernel.check(*kernel.make_inputs(seed=8))
    assert result.ok, result.message


@pytest.mark.parametrize(("shape", "reason"), [((2, 40, 32, 16), "static loop bounds"),
                                               ((2, 64, 40, 16), "single stage")],
                         ids=["tile_m_not_dividing", "tile_n_not_dividing"])
def test_pipelined_c_needs_dividing_tiles(shape: tuple, reason: str) -> None:
    with pytest.raises(xlinalg.errors.TransformFailure, match=reason):
        xlinalg.compile(bmm_payload(*shape), schedule=SPACE, knobs=PIPELINED)


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
