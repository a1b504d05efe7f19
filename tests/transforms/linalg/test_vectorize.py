"""transform.structured.vectorize, hoist_redundant_vector_transfers and the vector
lowering transform ops, end to end against the NumPy reference."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.errors import TransformFailure, XlinalgError

from support import REPO

TESTED_OPS = [
    "transform.structured.vectorize",
    "transform.structured.vectorize_children_and_apply_patterns",
    "transform.structured.hoist_redundant_vector_transfers",
    "transform.vector.lower_contraction",
    "transform.vector.lower_outerproduct",
    "transform.apply_patterns.vector.lower_contraction",
    "transform.apply_patterns.vector.lower_outerproduct",
]

MATMUL = """
func.func @mm(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
  return
}
"""

HEADER = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
"""
FOOTER = """    transform.yield
  }
}
"""
VECTORIZE_GENERIC = """
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g : !transform.any_op
"""

TILE_VECTORIZE = """
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [8, 32, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %t : !transform.any_op
"""

LOWER = """
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    %f2 = transform.vector.lower_contraction %f1 lowering_strategy = "outerproduct" : (!transform.any_op) -> !transform.any_op
    %f3 = transform.vector.lower_outerproduct %f2 : (!transform.any_op) -> !transform.any_op
"""


def _schedule(body: str) -> str:
    return HEADER + body + FOOTER


def _check(payload: str, schedule: str) -> None:
    k = xlinalg.compile(payload, schedule=schedule)
    args = k.make_inputs()
    result = k.check(*args)
    assert result.ok, result.message


def test_vectorize_matmul_emits_contract() -> None:
    _check(MATMUL, _schedule(TILE_VECTORIZE))


def test_hoisting_moves_the_accumulator_out_of_the_k_loop() -> None:
    _check(MATMUL, _schedule(TILE_VECTORIZE + LOWER))


def test_lower_contraction_only_leaves_outerproducts() -> None:
    body = (
        TILE_VECTORIZE
        + """
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f2 = transform.vector.lower_contraction %f lowering_strategy = "outerproduct" : (!transform.any_op) -> !transform.any_op
"""
    )
    _check(MATMUL, _schedule(body))


def test_vectorize_elementwise_with_broadcast_operand() -> None:
    payload = """
func.func @f(%A: memref<4x16xf32>, %b: memref<16xf32>, %O: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%A, %b : memref<4x16xf32>, memref<16xf32>) outs(%O : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %x : f32
    linalg.yield %m : f32
  }
  return
}
"""
    _check(payload, _schedule(VECTORIZE_GENERIC))


def test_vectorize_children_vectorizes_fill_and_matmul() -> None:
    payload = """
func.func @f(%A: memref<8x4xf32>, %B: memref<4x16xf32>, %C: memref<8x16xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%C : memref<8x16xf32>)
  linalg.matmul ins(%A, %B : memref<8x4xf32>, memref<4x16xf32>) outs(%C : memref<8x16xf32>)
  return
}
"""
    body = """
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f : (!transform.any_op) -> !transform.any_op
"""
    _check(payload, _schedule(body))


def test_dynamic_shapes_without_vector_sizes_is_a_silenceable_failure() -> None:
    payload = """
func.func @f(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  linalg.matmul ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  return
}
"""
    body = """
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %mm : !transform.any_op
"""
    with pytest.raises(XlinalgError, match="dynamic shapes without vector sizes") as info:
        xlinalg.apply_schedule(xlinalg.parse(payload), _schedule(body))
    assert isinstance(info.value, TransformFailure)
    assert info.value.silenceable


def test_transform_ops_print_in_upstream_syntax() -> None:
    text = _schedule(TILE_VECTORIZE + LOWER)
    printed = str(xlinalg.parse(text))
    assert "transform.structured.vectorize %" in printed
    assert 'lowering_strategy = "outerproduct"' in printed
    assert str(xlinalg.parse(printed)) == printed


def test_matmul_vectorize_search_space_runs() -> None:
    payload = (REPO / "examples" / "matmul_512.mlir").read_text()
    knobs = {
        "tile_m": 64,
        "tile_n": 128,
        "tile_k": 128,
        "reg_m": 8,
        "reg_n": 32,
        "reg_k": 2,
        "cache_order": 0,
        "unroll_k": 1,
        "peel": 0,
    }
    k = xlinalg.compile(
        payload, schedule=REPO / "search_spaces" / "matmul_vectorize.mlir", knobs=knobs
    )
    args = k.make_inputs()
    assert k.check(*args).ok


ODD_MATMUL = """
func.func @mm(%A: memref<13x5xf32>, %B: memref<5x37xf32>, %C: memref<13x37xf32>) {
  linalg.matmul ins(%A, %B : memref<13x5xf32>, memref<5x37xf32>) outs(%C : memref<13x37xf32>)
  return
}
"""


@pytest.mark.parametrize("k_step", [1, 2])
def test_masked_vectorization_of_partial_register_blocks(k_step: int) -> None:
    body = (
        f"""
    %mm = transform.structured.match ops{{["linalg.matmul"]}} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [8, 32, {k_step}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %s = transform.param.constant 32 -> !transform.param<i64>
    transform.structured.vectorize %t vector_sizes [8, %s, {k_step}] : !transform.any_op, !transform.param<i64>
"""
        + LOWER
    )
    _check(ODD_MATMUL, _schedule(body))


def test_vector_sizes_smaller_than_static_shape_fail_silenceably() -> None:
    body = """
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %mm vector_sizes [8, 8, 8] : !transform.any_op
"""
    with pytest.raises(TransformFailure, match="smaller than the static size") as info:
        xlinalg.apply_schedule(xlinalg.parse(ODD_MATMUL), _schedule(body))
    assert info.value.silenceable


def test_masked_elementwise_on_dynamic_shapes() -> None:
    payload = """
func.func @f(%A: memref<?x?xf32>, %O: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%A : memref<?x?xf32>) outs(%O : memref<?x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  }
  return
}
"""
    body = """
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g vector_sizes [4, 16] : !transform.any_op
"""
    k = xlinalg.compile(payload, schedule=_schedule(body))
    a = np.random.default_rng(1).random((3, 11), dtype=np.float32)
    o = np.full((3, 11), -1.0, np.float32)
    k(a, o)
    np.testing.assert_allclose(o, a * a, rtol=1e-6)


def test_vectorize_on_tensors_writes_into_the_tensor() -> None:
    """Tensors are vectorized in place now (more in test_vectorize_tensors.py)."""
    payload = """
func.func @f(%A: tensor<4x4xf32>, %B: tensor<4x4xf32>, %C: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<4x4xf32>, tensor<4x4xf32>) outs(%C : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
"""
    body = """
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %mm : !transform.any_op
"""
    _check(payload, _schedule(body))


def test_vectorize_reductions_to_multi_reduction() -> None:
    payload = """
func.func @f(%A: memref<6x20xf32>, %O: memref<6xf32>, %P: memref<20xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%A : memref<6x20xf32>) outs(%O : memref<6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    %s = arith.addf %o, %e : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%A : memref<6x20xf32>) outs(%P : memref<20xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.maximumf %o, %x : f32
    linalg.yield %s : f32
  }
  return
}
"""
    body = """
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f : (!transform.any_op) -> !transform.any_op
"""
    _check(payload, _schedule(body))


def test_unsupported_reduction_body_is_left_alone_by_vectorize_children() -> None:
    payload = """
func.func @f(%A: memref<4x8xf32>, %O: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%A : memref<4x8xf32>) outs(%O : memref<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.subf %o, %x : f32
    linalg.yield %s : f32
  }
  return
}
"""
    body = """
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f : (!transform.any_op) -> !transform.any_op
"""
    xlinalg.apply_schedule(xlinalg.parse(payload), _schedule(body))  # left alone
    with pytest.raises(TransformFailure, match="combine"):
        xlinalg.apply_schedule(xlinalg.parse(payload), _schedule(VECTORIZE_GENERIC))


def test_hoisting_after_unrolling_the_k_loop() -> None:
    body = (
        """
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [8, 32, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %t : !transform.any_op
    transform.loop.unroll %l#2 factor = 4 : !transform.any_op
"""
        + LOWER
    )
    _check(MATMUL, _schedule(body))


def test_apply_patterns_vector_lowerings_upstream_form() -> None:
    body = (
        TILE_VECTORIZE
        + """
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f1 {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
"""
    )
    schedule = _schedule(body)
    _check(MATMUL, schedule)
    with pytest.raises(XlinalgError, match="not supported yet"):
        xlinalg.parse(schedule.replace("= outerproduct", "= dot"))


ZERO_RESULT = """
func.func @f(%a: memref<1xf32>, %b: memref<64xf32>, %c: memref<{c}xf32>) {{
  linalg.generic {{indexing_maps = [affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ({out})>],
                  iterator_types = ["parallel"]}}
      ins(%a, %b : memref<1xf32>, memref<64xf32>) outs(%c : memref<{c}xf32>) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }}
  return
}}
"""


def test_input_map_with_a_zero_result_is_a_broadcast_read() -> None:
    """An input indexed by the constant 0 (upstream's projected permutation with zeros
    allowed): what folding the unit loops of a 1-row, 1-k-step block makes of A's one
    element (batch_matmul_mmt4d.mlir, m0 = 1); read once and broadcast to 64 lanes."""
    payload = ZERO_RESULT.format(c=64, out="d0")
    _check(payload, _schedule(VECTORIZE_GENERIC))


def test_output_map_with_a_zero_result_is_a_silenceable_failure() -> None:
    payload = ZERO_RESULT.format(c=1, out="0")
    with pytest.raises(TransformFailure, match="not a projected permutation") as info:
        xlinalg.apply_schedule(xlinalg.parse(payload), _schedule(VECTORIZE_GENERIC))
    assert info.value.silenceable
