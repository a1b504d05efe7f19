"""`transform.apply_patterns` rewrites the BODY of each target op, never the target itself
(upstream's ApplyPatternsOp: "greedily applies the specified patterns to the body of the
targeted op"): on a peeled, one-trip `scf.for` the loop canonicalizations used to promote
the target loop itself (then crashed with an internal error). The loop stays, its handle
stays valid, and the kernel is still right."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg

from support import iree_opt, needs_iree

PAYLOAD = """func.func @mm(%a: tensor<10x16xf32>, %b: tensor<16x12xf32>, %c: tensor<10x12xf32>) -> tensor<10x12xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x16xf32>, tensor<16x12xf32>) outs(%c : tensor<10x12xf32>) -> tensor<10x12xf32>
  return %r : tensor<10x12xf32>
}
"""

SCHEDULE = """module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %mm = transform.structured.match ops{{["linalg.matmul"]}} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %main, %rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.apply_patterns to %{target} {{
      {patterns}
    }} : !transform.any_op
    %inner = transform.structured.match ops{{["linalg.matmul"]}} in %{target} : (!transform.any_op) -> !transform.any_op
    %t2, %l2 = transform.structured.tile_using_for %inner tile_sizes [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }}
}}
"""

PATTERNS = [
    "transform.apply_patterns.linalg.tiling_canonicalization",
    "transform.apply_patterns.scf.for_loop_canonicalization",
]


def _schedule(target: str, patterns: str) -> str:
    return SCHEDULE.format(target=target, patterns=patterns)


@pytest.mark.parametrize("target", ["main", "rest"])
@pytest.mark.parametrize("patterns", PATTERNS)
def test_one_trip_target_loop_stays_and_its_handle_works(target: str, patterns: str) -> None:
    # the loops left: tests/filecheck/transform/apply_patterns.mlir
    ir = str(xlinalg.apply_schedule(PAYLOAD, _schedule(target, patterns)))
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(s, dtype=np.float32) for s in ((10, 16), (16, 12), (10, 12)))
    out = xlinalg.compile(ir)(a, b, c.copy())
    np.testing.assert_allclose(out, c + a @ b, rtol=1e-5, atol=1e-5)


@needs_iree
@pytest.mark.parametrize("target", ["main", "rest"])
@pytest.mark.parametrize("patterns", PATTERNS)
def test_loop_structure_matches_upstream(target: str, patterns: str) -> None:
    upstream = iree_opt(PAYLOAD + _schedule(target, patterns), "--transform-interpreter")
    upstream = upstream.split("module attributes {transform.with_named_sequence}")[0]
    ours = str(xlinalg.apply_schedule(PAYLOAD, _schedule(target, patterns)))
    assert ours.count("scf.for") == upstream.count("scf.for") == 3
    assert ours.count("linalg.matmul") == upstream.count("linalg.matmul") == 2


UNIT_DIMS = """func.func @f(%a: memref<1x8xf32>, %b: memref<1x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<1x8xf32>) outs(%b : memref<1x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  }
  return
}
"""

FOLD_ON_THE_GENERIC = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %g {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
    } : !transform.any_op
    %t, %l = transform.structured.tile_using_for %g tile_sizes [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
"""


def _generic_kept_and_tiled(ir: str) -> bool:
    payload = ir.split("module attributes {transform.with_named_sequence}")[0]
    return (
        payload.count("scf.for") == 1 and "memref<1x4xf32, strided<[8, 1], offset: ?>>" in payload
    )


def test_directly_applied_patterns_leave_the_target_itself() -> None:
    """A pattern set applied directly (fold_unit_extent_dims_via_slices) to a handle to the
    generic does not rewrite the generic (its body has none): the handle still tiles it."""
    ir = str(xlinalg.apply_schedule(UNIT_DIMS, FOLD_ON_THE_GENERIC))
    assert _generic_kept_and_tiled(ir)
    a = np.arange(8, dtype=np.float32).reshape(1, 8)
    b = np.zeros_like(a)
    xlinalg.compile(ir)(a, b)
    np.testing.assert_array_equal(b, a + a)


@needs_iree
def test_directly_applied_patterns_as_upstream() -> None:
    assert _generic_kept_and_tiled(
        iree_opt(UNIT_DIMS + FOLD_ON_THE_GENERIC, "--transform-interpreter")
    )
