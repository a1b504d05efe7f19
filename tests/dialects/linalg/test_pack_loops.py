"""Loop lowering of linalg.pack / linalg.unpack over the packed index space (`pack_loops.py`).

Checked against the NumPy reference (`xlinalg.reference.linalg_misc`) on non-dividing
shapes (padding), `outer_dims_perm`, permuted `inner_dims_pos`, untiled dims and
several dtypes; and structurally: no index is divided or taken modulo, the
per-tile branch exists only when some tile can be partial.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import xlinalg
from xlinalg.lowering.pipeline import lower_to_loops
from xlinalg.reference.linalg_misc import pack, unpack

# (source shape, inner_dims_pos, tiles, outer_dims_perm or None)
CASES = [
    ((9, 5), [0, 1], [4, 3], [1, 0]),  # both dims non-dividing, outer transposed
    ((8, 6), [0, 1], [4, 3], None),  # dividing: no padding, no branch
    ((7, 10), [1, 0], [4, 2], None),  # inner dims permuted (inner tile order n, m)
    ((5, 7, 3), [2, 0], [2, 4], [1, 0, 2]),  # 3-D, one untiled dim in the middle
    ((1000, 16), [0], [64], [1, 0]),  # the matmul B panel shape of 384x1000x256
    ((3, 1), [1, 0], [1, 2], [1, 0]),
]

DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i8": np.int8, "f16": np.float16}


def _packed_shape(shape, pos, tiles, perm) -> tuple[int, ...]:
    outer = list(shape)
    for d, t in zip(pos, tiles):
        outer[d] = -(-shape[d] // t)
    if perm:
        outer = [outer[p] for p in perm]
    return (*outer, *tiles)


def _kernel_text(shape, pos, tiles, perm, elem: str) -> str:
    packed = _packed_shape(shape, pos, tiles, perm)
    src = "x".join(map(str, shape)) + "x" + elem
    dst = "x".join(map(str, packed)) + "x" + elem
    attrs = (
        f"outer_dims_perm = {list(perm)} " if perm else ""
    ) + f"inner_dims_pos = {list(pos)} inner_tiles = {list(tiles)}"
    return f"""\
func.func @f(%a: memref<{src}>, %p: memref<{dst}>, %pad: {elem}, %u: memref<{src}>) {{
  linalg.pack %a padding_value(%pad : {elem}) {attrs} into %p : memref<{src}> -> memref<{dst}>
  linalg.unpack %p {attrs} into %u : memref<{dst}> -> memref<{src}>
  return
}}
"""


@functools.cache
def _kernel(case_index: int, elem: str) -> xlinalg.Kernel:
    return xlinalg.compile(_kernel_text(*CASES[case_index], elem))


def _data(shape, dtype, rng) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-100, 100, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("case_index", range(len(CASES)))
def test_pack_unpack_match_numpy_f32(case_index: int) -> None:
    shape, pos, tiles, perm = CASES[case_index]
    rng = np.random.default_rng(case_index)
    a = _data(shape, np.float32, rng)
    packed_shape = _packed_shape(shape, pos, tiles, perm)
    p = np.full(packed_shape, np.nan, np.float32)
    u = np.full(shape, np.nan, np.float32)
    _kernel(case_index, "f32")(a, p, np.float32(-3.5), u)
    np.testing.assert_array_equal(p, pack(a, pos, tiles, perm, np.float32(-3.5), packed_shape))
    np.testing.assert_array_equal(u, a)
    np.testing.assert_array_equal(unpack(p, pos, perm, shape), a)
    padded = int(np.prod(packed_shape)) - a.size
    assert int((p == -3.5).sum()) >= padded  # every padding element written (NaN would not compare)


@pytest.mark.parametrize("elem", sorted(set(DTYPES) - {"f32"}))
def test_pack_unpack_dtypes(elem: str) -> None:
    dtype = DTYPES[elem]
    for case_index in (0, 3):
        shape, pos, tiles, perm = CASES[case_index]
        a = _data(shape, dtype, np.random.default_rng(7))
        packed_shape = _packed_shape(shape, pos, tiles, perm)
        p = np.zeros(packed_shape, dtype)
        u = np.zeros(shape, dtype)
        pad = dtype(5)
        _kernel(case_index, elem)(a, p, pad, u)
        np.testing.assert_array_equal(p, pack(a, pos, tiles, perm, pad, packed_shape))
        np.testing.assert_array_equal(u, a)


def _loop_ir(text: str) -> str:
    return str(lower_to_loops(xlinalg.parse(text)))


def test_no_division_and_branch_per_tile_only() -> None:
    ir = _loop_ir(_kernel_text(*CASES[0], "f32"))
    assert "arith.divui" not in ir
    assert "arith.remui" not in ir
    assert "arith.divsi" not in ir
    assert "arith.remsi" not in ir
    # one full/partial branch per op (pack and unpack), none per element
    assert ir.count("scf.if") == 2
    assert (
        ir.count("arith.minsi") == 4
    )  # valid = min(tile, size - base) for each tiled dim of each op


def test_dividing_tiles_emit_no_branch() -> None:
    ir = _loop_ir(_kernel_text(*CASES[1], "f32"))
    assert "scf.if" not in ir
    assert "arith.minsi" not in ir
    assert "arith.divui" not in ir
    assert "arith.remui" not in ir


DYNAMIC = """\
func.func @f(%a: memref<?x?xf32>, %p: memref<?x?x?x?xf32>, %t0: index, %t1: index, %pad: f32, %u: memref<?x?xf32>) {
  linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [1, 0] inner_tiles = [%t0, %t1] into %p : memref<?x?xf32> -> memref<?x?x?x?xf32>
  linalg.unpack %p inner_dims_pos = [1, 0] inner_tiles = [%t0, %t1] into %u : memref<?x?x?x?xf32> -> memref<?x?xf32>
  return
}
"""


@pytest.mark.parametrize(
    ("rows", "cols", "t0", "t1"), [(7, 5, 2, 3), (6, 9, 3, 2), (1, 1, 4, 4), (16, 8, 4, 8)]
)
def test_dynamic_tiles(rows: int, cols: int, t0: int, t1: int) -> None:
    kernel = _dynamic_kernel()
    a = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    packed_shape = (-(-rows // t1), -(-cols // t0), t0, t1)
    p = np.full(packed_shape, np.nan, np.float32)
    u = np.zeros_like(a)
    kernel(a, p, t0, t1, np.float32(-1), u)
    np.testing.assert_array_equal(p, pack(a, [1, 0], [t0, t1], None, np.float32(-1), packed_shape))
    np.testing.assert_array_equal(u, a)


@functools.cache
def _dynamic_kernel() -> xlinalg.Kernel:
    return xlinalg.compile(DYNAMIC)
