"""Data tiling templates: search_spaces/matmul_mmt4d.mlir (pack a tensor matmul into mmt4d
form and register-block it) and search_spaces/mmt4d.mlir (linalg.mmt4d itself), checked
against NumPy on small and non-dividing shapes; the unit-loop folding they rely on."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.dialects.linalg.generic import GenericOp
from xlinalg.interpreter import parse_module
from xlinalg.transforms.linalg.fold_unit_dims import fold_unit_dims_in

from support import REPO

TESTED_OPS = [
    "transform.structured.pack",
    "transform.structured.pack_transpose",
    "transform.structured.fuse",
    "transform.bufferization.one_shot_bufferize",
    "transform.structured.tile_using_for",
    "transform.structured.vectorize",
    "transform.structured.hoist_redundant_vector_transfers",
    "transform.structured.generalize",
    "transform.apply_patterns",
    "transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices",
]

MATMUL_SPACE = (REPO / "search_spaces" / "matmul_mmt4d.mlir").read_text()
MMT4D_SPACE = (REPO / "search_spaces" / "mmt4d.mlir").read_text()


def tensor_matmul(m: int, n: int, k: int) -> str:
    """examples/matmul_tensor_512.mlir at another shape."""
    text = (REPO / "examples" / "matmul_tensor_512.mlir").read_text()
    body = text[text.index("func.func") :]
    return (
        body.replace("%A: tensor<512x512xf32>", f"%A: tensor<{m}x{k}xf32>")
        .replace("%B: tensor<512x512xf32>", f"%B: tensor<{k}x{n}xf32>")
        .replace(
            "ins(%A, %B : tensor<512x512xf32>, tensor<512x512xf32>)",
            f"ins(%A, %B : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>)",
        )
        .replace("tensor<512x512xf32>", f"tensor<{m}x{n}xf32>")
    )


@pytest.mark.parametrize(
    ("shape", "knobs"),
    [
        (
            (64, 96, 48),
            {
                "m0": 8,
                "n0": 32,
                "tm1": 2,
                "tn1": 2,
                "tk": 64,
                "rk": 4,
                "cache_order": 0,
                "reg_order": 1,
                "zero_c": 0,
            },
        ),
        (
            (64, 96, 48),
            {
                "m0": 8,
                "n0": 32,
                "tm1": 2,
                "tn1": 2,
                "tk": 64,
                "rk": 4,
                "cache_order": 0,
                "reg_order": 1,
                "zero_c": 1,
            },
        ),
        # non-dividing everywhere: padded packs, partial cache tiles, a masked last k step
        (
            (37, 70, 42),
            {
                "m0": 6,
                "n0": 16,
                "tm1": 4,
                "tn1": 1,
                "tk": 64,
                "rk": 4,
                "cache_order": 1,
                "reg_order": 0,
                "zero_c": 0,
            },
        ),
        (
            (37, 70, 42),
            {
                "m0": 6,
                "n0": 16,
                "tm1": 4,
                "tn1": 1,
                "tk": 64,
                "rk": 4,
                "cache_order": 1,
                "reg_order": 0,
                "zero_c": 1,
            },
        ),
    ],
)
def test_matmul_mmt4d_template(shape, knobs):
    m, n, k = shape
    payload = tensor_matmul(m, n, k)
    kernel = xlinalg.compile(payload, MATMUL_SPACE, knobs=knobs)
    a, b = kernel.make_inputs()
    np.testing.assert_allclose(kernel(a, b), a @ b, rtol=1e-5, atol=1e-5)
    names = [op.name for op in kernel.module.walk()]
    assert "vector.fma" in names
    assert "linalg.generic" not in names
    assert names.count("linalg.pack") == 2  # A and B; C is filled in its packed shape
    block = f"vector<{knobs['m0']}x{knobs['n0']}xf32>"
    if knobs["zero_c"]:
        # the fill's zeros are the accumulators' initial value: no fill, no read of a C block
        assert "linalg.fill" not in names
        assert not [
            op
            for op in kernel.module.walk()
            if op.name == "vector.transfer_read" and str(op.results[0].type) == block
        ]
        return
    # the accumulator block stays in registers across the k loop: read and written once per block
    assert names.count("vector.transfer_write") == 1
    # the fill of C is fused into the cache tiles (zeroes a tile right before its micro-kernels)
    (fill,) = [op for op in kernel.module.walk() if op.name == "linalg.fill"]
    assert fill.parent_op().name == "scf.for"


def test_matmul_mmt4d_knobs_and_constraints():
    knobs = {k.name: k.options for k in xlinalg.list_knobs(MATMUL_SPACE)}
    assert {"m0", "n0", "tm1", "tn1", "tk", "rk", "cache_order"} <= set(knobs)
    assert all(r >= 2 for r in knobs["rk"])


MMT4D = """
func.func @mmt4d(%lhs: memref<6x64x8x1xf32>, %rhs: memref<3x64x32x1xf32>, %acc: memref<6x3x8x32xf32>) {
  linalg.mmt4d ins(%lhs, %rhs : memref<6x64x8x1xf32>, memref<3x64x32x1xf32>) outs(%acc : memref<6x3x8x32xf32>)
  return
}
"""


def test_mmt4d_template():
    knobs = {"tm1": 4, "tn1": 2, "tk": 64, "rk": 4, "cache_order": 0, "reg_order": 1}
    kernel = xlinalg.compile(MMT4D, MMT4D_SPACE, knobs=knobs)
    lhs, rhs, acc = kernel.make_inputs()
    want = acc + np.einsum("mkix,nkjx->mnij", lhs, rhs)
    kernel(lhs, rhs, acc)
    np.testing.assert_allclose(acc, want, rtol=1e-5, atol=1e-5)
    assert "vector.fma" in [op.name for op in kernel.module.walk()]


UNIT = """
func.func @f(%a: memref<1x5x3xf32>, %b: memref<5x1xf32>, %c: memref<1x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%a, %b : memref<1x5x3xf32>, memref<5x1xf32>) outs(%c : memref<1x3xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %i = linalg.index 3 : index
    %j = linalg.index 2 : index
    %s = arith.addi %i, %j : index
    %n = arith.index_cast %s : index to i64
    %f = arith.sitofp %n : i64 to f32
    %p = arith.mulf %x, %y : f32
    %q = arith.addf %p, %f : f32
    %r = arith.addf %z, %q : f32
    linalg.yield %r : f32
  }
  return
}
"""


def test_fold_unit_extent_dims_via_slices():
    module = parse_module(UNIT)
    assert fold_unit_dims_in(module) == 1
    (generic,) = [op for op in module.walk() if isinstance(op, GenericOp)]
    assert [str(m) for m in generic.get_indexing_maps()] == [
        "(d0, d1) -> (d0, d1)",
        "(d0, d1) -> (d0)",
        "(d0, d1) -> (d1)",
    ]
    assert [str(o.type.get_shape()) for o in generic.operands] == ["(5, 3)", "(5,)", "(3,)"]
    kernel = xlinalg.compile(UNIT)
    a, b, c = kernel.make_inputs()
    want = c + (a[0] * b).sum(axis=0) + 5 * np.arange(3, dtype=np.float32)
    folded = xlinalg.compile(str(module))
    folded(a, b, c)
    np.testing.assert_allclose(c, want, rtol=1e-5)
    assert fold_unit_dims_in(module) == 0  # nothing left to fold
