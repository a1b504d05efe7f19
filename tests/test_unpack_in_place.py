"""`xl-unpack-in-place` (xlinalg/lowering/unpack_in_place.py): a packed buffer unpacked
without padding becomes a strided view of the unpack's destination; every other case is
left alone. Results vs NumPy, the rewritten IR, and the cases that must not be rewritten."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support import fill_matmul_tensor_payload

import xlinalg
from xlinalg.dialects.linalg.pack import UnPackOp
from xlinalg.interpreter import parse_module
from xlinalg.lowering.unpack_in_place import packed_view_type, unpack_in_place

ROOT = Path(__file__).resolve().parent.parent
MATMUL_SPACE = (ROOT / "search_spaces" / "matmul_mmt4d.mlir").read_text()



def _scheduled(m: int, n: int, k: int, knobs: dict[str, int]):  # type: ignore[no-untyped-def]
    return xlinalg.apply_schedule(xlinalg.parse(fill_matmul_tensor_payload(m, n, k)), MATMUL_SPACE, knobs=knobs)


KNOBS = {"m0": 8, "n0": 32, "tm1": 2, "tn1": 2, "tk": 64, "rk": 4, "cache_order": 0, "reg_order": 1}


@pytest.mark.parametrize(("shape", "knobs", "in_place"), [
    ((64, 96, 72), KNOBS, True),                                  # m0, n0 divide: C is written directly
    ((48, 128, 40), {**KNOBS, "m0": 6, "n0": 64, "reg_order": 0, "cache_order": 1}, True),
    # padding: the micro-kernel's C block and the fused fill are clamped to C's edges
    ((37, 53, 29), KNOBS, True),
    ((64, 100, 16), KNOBS, True),                                 # N not a multiple of n0
    ((45, 70, 33), {**KNOBS, "m0": 6, "n0": 64, "tk": 256, "reg_order": 0}, True),  # tk > K, 6 ∤ 45
])
def test_matmul_mmt4d_writes_c_in_place(shape, knobs, in_place):
    m, n, k = shape
    module = _scheduled(m, n, k, knobs)
    assert unpack_in_place(module) == int(in_place)
    names = [op.name for op in module.walk()]
    assert ("linalg.unpack" in names) != in_place
    assert ("memref.reinterpret_cast" in names) == in_place
    assert names.count("memref.alloc") == 2 + (not in_place)  # packed A, packed B (+ packed C)
    kernel = xlinalg.compile(fill_matmul_tensor_payload(m, n, k), MATMUL_SPACE, knobs=knobs)
    rng = np.random.default_rng(m + n + k)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    np.testing.assert_allclose(kernel(a, b), a.astype(np.float64) @ b, rtol=2e-5, atol=2e-4)


def test_the_view_strides_follow_outer_dims_perm():
    module = parse_module("""
func.func @f(%p: memref<5x3x4x2xf32>, %c: memref<6x20xf32>) {
  linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [4, 2] into %c
    : memref<5x3x4x2xf32> -> memref<6x20xf32>
  return
}
""")
    (unpack,) = [op for op in module.walk() if isinstance(op, UnPackOp)]
    view = packed_view_type(unpack)
    assert view is not None
    # packed[j1, j0, t1, t0] = c[j0 * 2 + t0, j1 * 4 + t1]
    assert str(view) == "memref<5x3x4x2xf32, strided<[4, 40, 1, 20]>>"
    # the argument is not an allocation: nothing to rewrite
    assert unpack_in_place(module) == 0


MEMREF_PACKED = """
func.func @f(%a: memref<16x8xf32>, %c: memref<16x8xf32>) {{
  %p = memref.alloc() : memref<4x2x4x4xf32>
  linalg.pack %a inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %p : memref<16x8xf32> -> memref<4x2x4x4xf32>
  {between}
  linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %c : memref<4x2x4x4xf32> -> memref<16x8xf32>
  memref.dealloc %p : memref<4x2x4x4xf32>
  return
}}
"""


@pytest.mark.parametrize(("between", "in_place"), [
    ("", False),   # the pack reads %a, an argument that may alias %c
    ("linalg.fill ins(%z : f32) outs(%c : memref<16x8xf32>)", False),
])
def test_memory_of_unknown_provenance_between_blocks_the_rewrite(between, in_place):
    text = MEMREF_PACKED.format(between=("%z = arith.constant 1.0 : f32\n  " + between) if between else "")
    module = parse_module(text)
    assert unpack_in_place(module) == int(in_place)
    kernel = xlinalg.compile(text)
    a, c = kernel.make_inputs(seed=3)
    kernel(a, c)
    np.testing.assert_array_equal(c, a)  # the unpack (last) wins over the fill


def test_a_local_buffer_in_between_does_not_block_it():
    text = """
func.func @f(%c: memref<16x8xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<16x8xf32>
  linalg.fill ins(%one : f32) outs(%t : memref<16x8xf32>)
  %p = memref.alloc() : memref<4x2x4x4xf32>
  linalg.pack %t inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %p : memref<16x8xf32> -> memref<4x2x4x4xf32>
  %s = memref.subview %p[1, 0, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : memref<4x2x4x4xf32> to memref<2x4x4xf32, strided<[16, 4, 1], offset: 32>>
  linalg.fill ins(%two : f32) outs(%s : memref<2x4x4xf32, strided<[16, 4, 1], offset: 32>>)
  linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %c : memref<4x2x4x4xf32> -> memref<16x8xf32>
  memref.dealloc %p : memref<4x2x4x4xf32>
  memref.dealloc %t : memref<16x8xf32>
  return
}
"""
    module = parse_module(text)
    assert unpack_in_place(module) == 1
    (view,) = [op for op in module.walk() if op.name == "memref.subview"]
    # the rank-reducing subview now views C: rows 4..7 (stride 8 per row), all columns
    assert str(view.results[0].type) == "memref<2x4x4xf32, strided<[4, 8, 1], offset: 32>>"
    kernel = xlinalg.compile(text)
    (c,) = kernel.make_inputs()
    kernel(c)
    want = np.ones((16, 8), np.float32)
    want[4:8] = 2
    np.testing.assert_array_equal(c, want)
