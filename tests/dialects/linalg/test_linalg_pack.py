"""linalg.pack / linalg.unpack: assembly, verifier rules, reference, lowering, pack∘unpack = identity."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xlinalg
from xlinalg.coverage.linalg_handwritten_cases import (
    IREE_ROUND_TRIP,
    PACK_VERIFY_CASES,
    RUN_CASES,
    exercised,
)
from xlinalg.dialects.linalg.pack import PackOp, UnPackOp
from xlinalg.errors import XlinalgError
from xlinalg.reference.function import run_function
from xlinalg.reference.linalg_misc import pack, unpack

from support import iree_opt, needs_iree
from support.linalg_forms import PACK_FORMS


def test_round_trip() -> None:
    printed = str(xlinalg.parse(PACK_FORMS))  # each form: tests/filecheck/linalg/pack.mlir
    assert str(xlinalg.parse(printed)) == printed
    module = xlinalg.parse(PACK_FORMS)
    dyn = [o for o in module.walk() if isinstance(o, PackOp)][1]
    assert isinstance(dyn.mixed_tiles()[0], type(dyn.inner_tiles[0]))


@needs_iree
def test_upstream_round_trip() -> None:
    assert {op for op, _ in exercised(xlinalg.parse(PACK_FORMS))} == set(
        IREE_ROUND_TRIP["test_linalg_pack.py::test_upstream_round_trip"]
    )
    upstream = iree_opt(str(xlinalg.parse(PACK_FORMS)))
    again = xlinalg.parse(upstream)
    assert len([o for o in again.walk() if isinstance(o, PackOp)]) == 3
    assert len([o for o in again.walk() if isinstance(o, UnPackOp)]) == 2
    # upstream's generic form parses too (its unpack carries a stray discardable
    # `operandSegmentSizes` attribute, which is kept as such)
    generic = xlinalg.parse(iree_opt(str(xlinalg.parse(PACK_FORMS)), "--mlir-print-op-generic"))
    assert len([o for o in generic.walk() if isinstance(o, (PackOp, UnPackOp))]) == 5


def _parse_one(op_text: str, args: str) -> None:
    xlinalg.parse(f"func.func @f({args}) {{\n  {op_text}\n  return\n}}\n")


ARGS = "%a: tensor<9xf32>, %b: tensor<16x4xf32>, %pad: f32, %t: index, %i: i32"


@pytest.mark.parametrize(("op_text", "message"), PACK_VERIFY_CASES)
def test_verifier_rules(op_text: str, message: str) -> None:
    dest_type = (
        op_text.rsplit("-> ", 1)[1]
        if "linalg.pack" in op_text
        else op_text.split(": ")[1].split(" ->")[0]
    )
    with pytest.raises(XlinalgError, match=re.escape(message)):
        _parse_one(op_text, f"{ARGS}, %d: {dest_type}")


def test_unpack_may_drop_padding() -> None:
    # [003]: shape(result)[pos] <= shape(src)[n-k+i] * shape(src)[pos]: 9 <= 2 * 8
    _parse_one(
        "%0 = linalg.unpack %d inner_dims_pos = [0] inner_tiles = [8] into %a "
        ": tensor<2x8xf32> -> tensor<9xf32>",
        f"{ARGS}, %d: tensor<2x8xf32>",
    )


def _pack_by_loops(
    a: np.ndarray, tiles: dict[int, int], perm: list[int], pad: float, packed_shape: tuple[int, ...]
) -> np.ndarray:
    """An independent element-by-element formula of pack."""
    n = a.ndim
    positions = list(tiles)
    out = np.empty(packed_shape, a.dtype)
    for idx in np.ndindex(*packed_shape):
        outer = [0] * n
        for j, d in enumerate(perm):
            outer[d] = idx[j]
        src = list(outer)
        for i, d in enumerate(positions):
            src[d] = outer[d] * tiles[d] + idx[n + i]
        out[idx] = a[tuple(src)] if all(s < a.shape[d] for d, s in enumerate(src)) else pad
    return out


KERNEL = """\
func.func @k(%a: memref<9x5x3xf32>, %p: memref<3x5x2x4x3xf32>, %pad: f32, %u: memref<9x5x3xf32>) {
  linalg.pack %a padding_value(%pad : f32) outer_dims_perm = [1, 0, 2] inner_dims_pos = [2, 0] inner_tiles = [3, 4] into %p : memref<9x5x3xf32> -> memref<5x3x1x3x4xf32>
  linalg.unpack %p outer_dims_perm = [1, 0, 2] inner_dims_pos = [2, 0] inner_tiles = [3, 4] into %u : memref<5x3x1x3x4xf32> -> memref<9x5x3xf32>
  return
}
""".replace("memref<3x5x2x4x3xf32>", "memref<5x3x1x3x4xf32>")


def test_execution_matches_independent_formula() -> None:
    assert exercised(xlinalg.parse(KERNEL)) == set(
        RUN_CASES["test_linalg_pack.py::test_execution_matches_independent_formula"]
    )
    kernel = xlinalg.compile(KERNEL)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((9, 5, 3), dtype=np.float32)
    p = np.zeros((5, 3, 1, 3, 4), np.float32)
    u = np.zeros_like(a)
    kernel(a, p, np.float32(-7.5), u)
    expected = _pack_by_loops(a, {2: 3, 0: 4}, [1, 0, 2], -7.5, p.shape)
    np.testing.assert_array_equal(p, expected)
    assert (p == -7.5).sum() == 3 * 5 * 3  # the padded rows 9..11 of the last tile
    np.testing.assert_array_equal(u, a)
    np.testing.assert_array_equal(pack(a, [2, 0], [3, 4], [1, 0, 2], -7.5, p.shape), expected)
    assert kernel.check(a, np.zeros_like(p), np.float32(-7.5), np.zeros_like(a)).ok


DYNAMIC = """\
func.func @roundtrip(%a: memref<?x?xf64>, %p: memref<?x?x?x?xf64>, %t0: index, %t1: index, %pad: f64, %u: memref<?x?xf64>) {
  linalg.pack %a padding_value(%pad : f64) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [%t0, %t1] into %p : memref<?x?xf64> -> memref<?x?x?x?xf64>
  linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [%t0, %t1] into %u : memref<?x?x?x?xf64> -> memref<?x?xf64>
  return
}
"""


@functools.cache
def _dynamic_kernel() -> xlinalg.Kernel:
    return xlinalg.compile(DYNAMIC)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 13), cols=st.integers(1, 11), t0=st.integers(1, 6), t1=st.integers(1, 6))
def test_pack_then_unpack_is_identity_compiled(rows: int, cols: int, t0: int, t1: int) -> None:
    assert exercised(xlinalg.parse(DYNAMIC)) == set(
        RUN_CASES["test_linalg_pack.py::test_pack_then_unpack_is_identity_compiled"]
    )
    kernel = _dynamic_kernel()
    a = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols) + 0.5
    packed_shape = (-(-cols // t1), -(-rows // t0), t0, t1)
    p = np.full(packed_shape, np.nan)
    u = np.zeros_like(a)
    kernel(a, p, t0, t1, -1.0, u)
    np.testing.assert_array_equal(u, a)
    np.testing.assert_array_equal(p, _pack_by_loops(a, {0: t0, 1: t1}, [1, 0], -1.0, packed_shape))


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_pack_then_unpack_is_identity_reference(data: st.DataObject) -> None:
    rank = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 7), min_size=rank, max_size=rank)))
    positions = data.draw(st.lists(st.integers(0, rank - 1), unique=True, max_size=rank))
    tiles = data.draw(st.lists(st.integers(1, 5), min_size=len(positions), max_size=len(positions)))
    perm = data.draw(st.permutations(list(range(rank))))
    a = np.random.default_rng(rank).standard_normal(shape)
    tile_of = dict(zip(positions, tiles))
    outer = [-(-s // tile_of[d]) if d in tile_of else s for d, s in enumerate(shape)]
    packed_shape = tuple([outer[d] for d in perm] + tiles)
    p = pack(a, positions, tiles, perm, 0.0, packed_shape)
    assert p.shape == packed_shape
    np.testing.assert_array_equal(unpack(p, positions, perm, shape), a)


def test_tensor_reference_with_dynamic_tile() -> None:
    a = np.arange(45, dtype=np.float32).reshape(9, 5)
    (result,) = run_function(
        xlinalg.parse(PACK_FORMS),
        "f",
        [
            a,
            np.zeros((2, 3, 4, 3), np.float32),
            np.float32(0),
            2,
            np.zeros((5, 5, 2), np.float32),
            np.zeros((9, 5), np.float32),
            np.zeros((3, 5, 4), np.float32),
        ],
    )
    np.testing.assert_array_equal(result, a)  # unpack(pack(a)) on tensors
    text = PACK_FORMS.replace(
        "return %1 : tensor<9x5xf32>", "return %2 : tensor<?x5x?xf32>"
    ).replace(") -> tensor<9x5xf32> {", ") -> tensor<?x5x?xf32> {")
    (packed,) = run_function(
        xlinalg.parse(text),
        "f",
        [
            a,
            np.zeros((2, 3, 4, 3), np.float32),
            np.float32(-1),
            2,
            np.zeros((5, 5, 2), np.float32),
            np.zeros((9, 5), np.float32),
            np.zeros((3, 5, 4), np.float32),
        ],
    )
    np.testing.assert_array_equal(packed, _pack_by_loops(a, {0: 2}, [0, 1], -1.0, (5, 5, 2)))


def test_tensor_kernel_compiles_and_matches() -> None:
    kernel = xlinalg.compile(PACK_FORMS)
    a = np.arange(45, dtype=np.float32).reshape(9, 5)
    args = [
        a,
        np.zeros((2, 3, 4, 3), np.float32),
        np.float32(0),
        2,
        np.zeros((5, 5, 2), np.float32),
        np.zeros((9, 5), np.float32),
        np.zeros((3, 5, 4), np.float32),
    ]
    np.testing.assert_array_equal(kernel(*args), a)  # unpack(pack(a)) on tensors
    text = PACK_FORMS.replace(
        "return %1 : tensor<9x5xf32>", "return %2 : tensor<?x5x?xf32>"
    ).replace(") -> tensor<9x5xf32> {", ") -> tensor<?x5x?xf32> {")
    packed = xlinalg.compile(text)(*args[:2], np.float32(-1), 2, *args[4:])
    np.testing.assert_array_equal(packed, _pack_by_loops(a, {0: 2}, [0, 1], -1.0, (5, 5, 2)))
