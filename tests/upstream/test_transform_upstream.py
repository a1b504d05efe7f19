"""The same schedule applied by upstream MLIR (`iree-opt --transform-interpreter`)
and by xlinalg gives kernels with the same behaviour: both results are compiled
by xlinalg and run on the same inputs, next to the untransformed kernel.
Skipped when iree-opt is not installed.

Not compared here (upstream differs by design or emits IR xlinalg does not
lower): decompose and promote (upstream decomposes tensors only; its promotion
uses `memref.view`), coalesce (`affine.delinearize_index`) and outline
(`scf.execute_region` with an implicit terminator), multibuffer (upstream's
analysis accepts only `memref.copy` writes, whose custom syntax xDSL does not
parse; on such a payload iree-opt gives the same IR as ours: a 2x1x4 buffer
and a rank-reducing subview at `iv mod 2`); their own tests check them against
the untransformed kernel."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg

from support import needs_iree
from support.transform import LOOP, MATMUL, MATMUL_SHAPES, script, upstream

pytestmark = needs_iree

TESTED_OPS = [
    "transform.loop.peel",
    "transform.loop.pipeline",
    "transform.loop.unroll",
    "transform.structured.split",
    "transform.structured.multitile_sizes",
    "transform.structured.scalarize",
    "transform.structured.tile_using_for",
    "transform.affine.simplify_bounded_affine_ops",
    "transform.apply_patterns",
    "transform.apply_cse",
    "transform.apply_licm",
    "transform.foreach",
    "transform.alternatives",
]

NEST = """
func.func @f(%a: memref<4x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c6 step %c2 {
      %x = memref.load %a[%i, %j] : memref<4x6xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %a[%i, %j] : memref<4x6xf32>
    }
  } {outer}
  func.return
}
"""
CONV = """
func.func @f(%i: memref<2x1x11x3xf32>, %w: memref<1x3x3x4xf32>, %o: memref<2x1x5x4xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%i, %w : memref<2x1x11x3xf32>, memref<1x3x3x4xf32>) outs(%o : memref<2x1x5x4xf32>)
  func.return
}
"""
DYN_ADD = """
func.func @f(%a: memref<?x8xf32>, %b: memref<?x8xf32>, %c: memref<?x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<?x8xf32>, memref<?x8xf32>) outs(%c : memref<?x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  func.return
}
"""

M = '%mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op'
TILE = (
    M
    + "\n%t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [8, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)"
)
FOR = '%for = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op\n%f = transform.cast %for : !transform.any_op to !transform.op<"scf.for">'
FUNC = '%fn = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op'

CASES: dict[str, tuple[str, str, list[tuple[int, ...]], list[int]]] = {
    # name: (payload, schedule body, memref shapes, extra index args)
    "tile_peel": (
        MATMUL,
        TILE + '\n%f = transform.cast %l#0 : !transform.any_op to !transform.op<"scf.for">\n'
        '%m, %r = transform.loop.peel %f : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)',
        MATMUL_SHAPES,
        [],
    ),
    "tile_peel_front": (
        MATMUL,
        TILE + '\n%f = transform.cast %l#1 : !transform.any_op to !transform.op<"scf.for">\n'
        '%m, %r = transform.loop.peel %f peel_front = true : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)',
        MATMUL_SHAPES,
        [],
    ),
    "split": (
        MATMUL,
        M + "\n%s = transform.structured.split %mm after 13 {dimension = 2} : !transform.any_op",
        MATMUL_SHAPES,
        [],
    ),
    "multitile_split_tile": (
        MATMUL,
        M
        + "\n%lo, %hi, %sp = transform.structured.multitile_sizes %mm dimension = 0 target_size = 8 divisor = 1 : (!transform.any_op) -> !transform.param<i64>"
        + "\n%parts = transform.structured.split %mm after %sp {dimension = 0} : !transform.any_op, !transform.param<i64>",
        MATMUL_SHAPES,
        [],
    ),
    "scalarize": (
        DYN_ADD,
        (
            '%a = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op\n'
            "%s = transform.structured.scalarize %a : (!transform.any_op) -> !transform.any_op"
        ),
        [(5, 8), (5, 8), (5, 8)],
        [],
    ),
    "pipeline": (
        LOOP,
        FOR
        + '\n%p = transform.loop.pipeline %f iteration_interval = 1 read_latency = 2 : (!transform.op<"scf.for">) -> !transform.any_op',
        [(10,), (10,)],
        [],
    ),
    "unroll": (
        LOOP,
        FOR + '\ntransform.loop.unroll %f factor = 3 : !transform.op<"scf.for">',
        [(10,), (10,)],
        [],
    ),
    "patterns_cse_licm": (
        MATMUL,
        TILE
        + "\n"
        + FUNC
        + "\ntransform.apply_patterns to %fn {\n  transform.apply_patterns.canonicalization\n} : !transform.any_op"
        + "\ntransform.apply_cse to %fn : !transform.any_op"
        + '\n%loops = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op'
        + "\ntransform.apply_licm to %loops : !transform.any_op",
        MATMUL_SHAPES,
        [],
    ),
    "foreach_alternatives": (
        MATMUL,
        M
        + "\ntransform.foreach %mm : !transform.any_op {\n^bb0(%one: !transform.any_op):\n"
        + "  %t, %l:2 = transform.structured.tile_using_for %one tile_sizes [4, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)\n}"
        + "\n"
        + FUNC
        + "\n%r = transform.alternatives %fn : !transform.any_op -> !transform.any_op {\n^bb0(%s: !transform.any_op):\n"
        + '  %x = transform.structured.match ops{["linalg.matmul"]} in %s : (!transform.any_op) -> !transform.any_op\n'
        + '  %bad = transform.get_parent_op %x {op_name = "scf.while"} : (!transform.any_op) -> !transform.any_op\n'
        + "  transform.yield %s : !transform.any_op\n}, {\n^bb0(%s: !transform.any_op):\n  transform.yield %s : !transform.any_op\n}",
        MATMUL_SHAPES,
        [],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_behaviour_as_upstream(name: str, tmp_path) -> None:
    payload, body, shapes, _ = CASES[name]
    theirs = upstream(payload, body, tmp_path)
    rng = np.random.default_rng(3)
    inputs = [np.asarray(rng.random(shape), dtype=np.float32) for shape in shapes]
    runs = []
    for kernel in (
        xlinalg.compile(payload, entry="f"),
        xlinalg.compile(payload, schedule=script(body), entry="f"),
        xlinalg.compile(theirs, entry="f"),
    ):
        args = [a.copy() for a in inputs]
        kernel(*args)
        runs.append(args)
    reference, ours, upstream_run = runs
    for a, b, c in zip(reference, ours, upstream_run):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(c, a, rtol=1e-5, atol=1e-5)
