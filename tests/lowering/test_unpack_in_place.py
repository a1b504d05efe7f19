"""`xl-unpack-in-place` (xlinalg/lowering/unpack_in_place.py): a packed buffer unpacked
without padding becomes a strided view of the unpack's destination; every other case is
left alone. Results vs NumPy, the rewritten IR, and the cases that must not be rewritten."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xlinalg
from xlinalg.dialects.linalg.pack import UnPackOp
from xlinalg.examples import fill_matmul
from xlinalg.interpreter import parse_module
from xlinalg.lowering.unpack_in_place import packed_view_type, unpack_in_place

from support import REPO, load_script, needs_avx512, spills_are_checked
from support.machine_code import innermost_fma_loop

MATMUL_SPACE = (REPO / "search_spaces" / "matmul_mmt4d.mlir").read_text()


def _scheduled(m: int, n: int, k: int, knobs: dict[str, int]):
    return xlinalg.apply_schedule(xlinalg.parse(fill_matmul(m, n, k)), MATMUL_SPACE, knobs=knobs)


KNOBS = {
    "m0": 8,
    "n0": 32,
    "tm1": 2,
    "tn1": 2,
    "tk": 64,
    "rk": 4,
    "cache_order": 0,
    "reg_order": 1,
    "zero_c": 0,
}


@pytest.mark.parametrize(
    ("shape", "knobs", "in_place"),
    [
        ((64, 96, 72), KNOBS, True),  # m0, n0 divide: C is written directly
        ((48, 128, 40), {**KNOBS, "m0": 6, "n0": 64, "reg_order": 0, "cache_order": 1}, True),
        # padding: the micro-kernel's C block and the fused fill are clamped to C's edges
        ((37, 53, 29), KNOBS, True),
        ((64, 100, 16), KNOBS, True),  # N not a multiple of n0
        (
            (45, 70, 33),
            {**KNOBS, "m0": 6, "n0": 64, "tk": 256, "reg_order": 0},
            True,
        ),  # tk > K, 6 ∤ 45
        # zero_c = 1: the blocks start from zeros (no fill, no read of C): only clamped writes
        ((37, 53, 29), {**KNOBS, "zero_c": 1}, True),
        ((45, 70, 33), {**KNOBS, "m0": 6, "n0": 64, "tk": 256, "reg_order": 0, "zero_c": 1}, True),
    ],
)
def test_matmul_mmt4d_writes_c_in_place(shape, knobs, in_place):
    m, n, k = shape
    module = _scheduled(m, n, k, knobs)
    assert unpack_in_place(module) == int(in_place)
    names = [op.name for op in module.walk()]
    assert ("linalg.unpack" in names) != in_place
    assert ("memref.reinterpret_cast" in names) == in_place
    assert names.count("memref.alloc") == 2 + (not in_place)  # packed A, packed B (+ packed C)
    kernel = xlinalg.compile(fill_matmul(m, n, k), MATMUL_SPACE, knobs=knobs)
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


@pytest.mark.parametrize(
    ("between", "in_place"),
    [
        ("", False),  # the pack reads %a, an argument that may alias %c
        ("linalg.fill ins(%z : f32) outs(%c : memref<16x8xf32>)", False),
    ],
)
def test_memory_of_unknown_provenance_between_blocks_the_rewrite(between, in_place):
    text = MEMREF_PACKED.format(
        between=("%z = arith.constant 1.0 : f32\n  " + between) if between else ""
    )
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


# C 14x7 packed by 4x4 (padding: the last row and column of tiles hang over C's edges);
# {body} touches the packed buffer %p between a fill of all of it and the unpack.
PADDED = """
func.func @f(%c: memref<14x7xf32>) {{
  %one = arith.constant 1.0 : f32
  %pad = arith.constant 5.0 : f32
  %c0 = arith.constant 0 : index
  %p = memref.alloc() : memref<4x2x4x4xf32>
  linalg.fill ins(%one : f32) outs(%p : memref<4x2x4x4xf32>)
  %corner4 = memref.subview %p[3, 1, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1] : memref<4x2x4x4xf32> to memref<1x1x4x4xf32, strided<[32, 16, 4, 1], offset: 112>>
  %corner = memref.subview %corner4[0, 0, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1] : memref<1x1x4x4xf32, strided<[32, 16, 4, 1], offset: 112>> to memref<4x4xf32, strided<[4, 1], offset: 112>>
  %first = memref.subview %p[0, 0, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1] : memref<4x2x4x4xf32> to memref<4x4xf32, strided<[4, 1]>>
  %v = vector.transfer_read %corner[%c0, %c0], %pad {{in_bounds = [true, true]}} : memref<4x4xf32, strided<[4, 1], offset: 112>>, vector<4x4xf32>
  %w = arith.addf %v, %v : vector<4x4xf32>
  {body}
  linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %c : memref<4x2x4x4xf32> -> memref<14x7xf32>
  memref.dealloc %p : memref<4x2x4x4xf32>
  return
}}
"""
_CORNER = "memref<4x4xf32, strided<[4, 1], offset: 112>>"
_FIRST = "memref<4x4xf32, strided<[4, 1]>>"


def _padded_result(body: str, in_place: bool) -> np.ndarray:
    text = PADDED.format(body=body)
    module = parse_module(text)
    assert unpack_in_place(module) == int(in_place)
    names = [op.name for op in module.walk()]
    assert ("linalg.unpack" in names) != in_place
    kernel = xlinalg.compile(text)
    (c,) = kernel.make_inputs()
    kernel(c)
    return c


def test_padded_tiles_are_clamped_to_the_destination():
    """The fill and the transfers of the corner tile (rows 12-13, columns 4-6 of C are
    its valid part) are clamped to C: nothing lands in the rows that the padding would
    alias, and the result is the unpack's."""
    c = _padded_result(
        f"vector.transfer_write %w, %corner[%c0, %c0] {{in_bounds = [true, true]}} : "
        f"vector<4x4xf32>, {_CORNER}",
        in_place=True,
    )
    want = np.ones((14, 7), np.float32)
    want[12:, 4:] = 2
    np.testing.assert_array_equal(c, want)


@pytest.mark.parametrize(
    "body",
    [
        # a lane of the padding read would reach a valid element of another tile
        f"vector.transfer_write %w, %first[%c0, %c0] {{in_bounds = [true, true]}} : vector<4x4xf32>, {_FIRST}",
        # a row moves to another row of the same tile
        f"""%r = vector.extract %w[3] : vector<4xf32> from vector<4x4xf32>
  %x = vector.insert %r, %w [0] : vector<4xf32> into vector<4x4xf32>
  vector.transfer_write %x, %corner[%c0, %c0] {{in_bounds = [true, true]}} : vector<4x4xf32>, {_CORNER}""",
        # lanes cross (a scalar of the tile broadcast)
        f"""%s = vector.extract %w[3, 3] : f32 from vector<4x4xf32>
  %b = vector.broadcast %s : f32 to vector<4x4xf32>
  vector.transfer_write %b, %corner[%c0, %c0] {{in_bounds = [true, true]}} : vector<4x4xf32>, {_CORNER}""",
        # an op that is not a clamped access uses the buffer
        f"memref.store %one, %corner[%c0, %c0] : {_CORNER}",
    ],
)
def test_padded_buffer_stays_when_padding_could_be_observed(body):
    c = _padded_result(body, in_place=False)
    # the reference semantics: the padding elements hold the fill (1), as in the buffer
    want = np.ones((14, 7), np.float32)
    if "%first" in body:
        want[:4, :4] = 2
    if "%x" in body or "%b" in body:
        want[12:, 4:] = 2  # (the padding lanes hold 1 + 1, not 5 + 5 as a clamped read would give)
    np.testing.assert_array_equal(c, want)


def test_padded_rows_and_columns_of_the_matmul_micro_kernel():
    """matmul_mmt4d at M, N, K that no tile divides, with k tiles (the C block read and
    written once per k tile) and the fill fused into each cache tile: C is computed in
    place; results vs NumPy."""
    m, n, k = 29, 75, 150
    knobs = {**KNOBS, "m0": 6, "n0": 16, "tk": 64, "rk": 4}
    module = _scheduled(m, n, k, knobs)
    assert unpack_in_place(module) == 1
    kinds = [
        (op.name, str(op.properties.get("in_bounds")))
        for op in module.walk()
        if op.name in ("vector.transfer_write",)
    ]
    assert ("vector.transfer_write", "[false, false]") in kinds  # both edges masked
    kernel = xlinalg.compile(fill_matmul(m, n, k), MATMUL_SPACE, knobs=knobs)
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    np.testing.assert_allclose(kernel(a, b), a.astype(np.float64) @ b, rtol=2e-5, atol=2e-4)


@needs_avx512
def test_stored_384x1000x256_writes_c_with_masked_edge_stores():
    """bench_mmt4d's stored knobs at 384x1000x256 (n0 = 64 pads N to 1024): no packed C and
    no unpack; the C block is stored with AVX-512 masked stores (the last panel's 40
    columns), the spill-free FMA loop of 24 accumulators is the one without padding."""
    STORED_KNOBS = load_script("bench_mmt4d").STORED_KNOBS

    knobs = STORED_KNOBS[(384, 1000, 256)]
    module = _scheduled(384, 1000, 256, knobs)
    assert unpack_in_place(module) == 1
    kernel = xlinalg.compile(fill_matmul(384, 1000, 256), MATMUL_SPACE, knobs=knobs)
    asm = kernel._jit.asm(kernel.entry)
    assert re.search(r"vmovups\s+%zmm\d+, [^\n]*\{%k\d\}", asm)  # masked store of a C row
    loop = innermost_fma_loop(asm)
    assert sum("vfmadd" in line for line in loop) == 24 * 4  # rk = 4 steps of 6 x 4 zmm
    if spills_are_checked():
        assert not any("rsp" in line for line in loop)
    rng = np.random.default_rng(7)
    a = rng.standard_normal((384, 256)).astype(np.float32)
    b = rng.standard_normal((256, 1000)).astype(np.float32)
    np.testing.assert_allclose(kernel(a, b), a.astype(np.float64) @ b, rtol=2e-5, atol=2e-4)
