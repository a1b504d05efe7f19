"""Bounds checks of unrolled transfers fold what is static (`unroll_to_1d`): the size of a
static memref dim is a constant (no `memref.dim`), a row or lane index that is a constant
below a constant size needs no compare, constant offsets and `size - i` are constants.
Fewer ops for every later Python pass; the machine code is the same as without the folds
on a masked conv register block, and the folded kernels compute what NumPy computes."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith, memref

import xlinalg
from xlinalg.lowering.vector_to_llvm import unroll_to_1d
from xlinalg.lowering.vector_to_llvm.unroll_to_1d import unroll_vectors_to_1d

from support import parse_module
from support.masked_conv import compile_masked_conv

RNG = np.random.default_rng(11)

#: a 4x16 block read from a 3x13 (static) or ?x13 (dynamic) memref, out of bounds in both
#: dims: rows 0-2 are in bounds, row 3 is not; lanes 13-15 are past the end
READ = """func.func @f(%A: memref<{rows}x13xf32>, %O: memref<4x16xf32>) {{
  %c0 = arith.constant 0 : index
  %pad = arith.constant -1.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad : memref<{rows}x13xf32>, vector<4x16xf32>
  vector.transfer_write %v, %O[%c0, %c0] {{in_bounds = [true, true]}} : vector<4x16xf32>, memref<4x16xf32>
  return
}}
"""

#: a 3-D vector, the middle dim out of bounds and dynamic, the others static
READ_3D = """func.func @f(%A: memref<2x?x13xf32>, %O: memref<2x3x16xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant -1.0 : f32
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad : memref<2x?x13xf32>, vector<2x3x16xf32>
  vector.transfer_write %v, %O[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<2x3x16xf32>, memref<2x3x16xf32>
  return
}
"""


def _count(module, kind: type) -> int:
    return sum(isinstance(op, kind) for op in module.walk())


def _padded(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    out = np.full(shape, -1.0, np.float32)
    out[tuple(slice(0, min(s, t)) for s, t in zip(a.shape, shape))] = a[
        tuple(slice(0, min(s, t)) for s, t in zip(a.shape, shape))
    ]
    return out


def test_static_dims_need_no_dim_op_and_in_bounds_rows_no_compare() -> None:
    module = parse_module(READ.format(rows=3))
    unroll_vectors_to_1d(module)
    module.verify()
    assert _count(module, memref.DimOp) == 0
    # rows 0-2 are in bounds (0, 1, 2 < 3): only row 3's check remains, a constant compare
    assert _count(module, arith.CmpiOp) == 1
    assert _count(module, arith.AddiOp) == 0  # row offsets of a constant index are constants


def test_dynamic_dims_keep_their_checks() -> None:
    module = parse_module(READ.format(rows="?"))
    unroll_vectors_to_1d(module)
    module.verify()
    assert _count(module, memref.DimOp) == 4  # the ?-dim once per row; 13 is static
    assert _count(module, arith.CmpiOp) == 4


#: the rows of a subview whose size is a constant operand (the type says `?`): known
SUBVIEW = """func.func @f(%A: memref<8x13xf32>, %O: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %pad = arith.constant -1.0 : f32
  %s = memref.subview %A[%c0, %c0] [%c3, 13] [1, 1] : memref<8x13xf32> to memref<?x13xf32, strided<[13, 1], offset: ?>>
  %v = vector.transfer_read %s[%c0, %c0], %pad : memref<?x13xf32, strided<[13, 1], offset: ?>>, vector<4x16xf32>
  vector.transfer_write %v, %O[%c0, %c0] {in_bounds = [true, true]} : vector<4x16xf32>, memref<4x16xf32>
  return
}
"""


def test_constant_subview_sizes_are_known() -> None:
    module = parse_module(SUBVIEW)
    unroll_vectors_to_1d(module)
    module.verify()
    assert _count(module, memref.DimOp) == 0
    assert _count(module, arith.CmpiOp) == 1  # row 3 of 3
    kernel = xlinalg.compile(SUBVIEW, entry="f")
    a = RNG.standard_normal((8, 13)).astype(np.float32)
    out = np.full((4, 16), np.nan, np.float32)
    kernel(a, out)
    np.testing.assert_array_equal(out, _padded(a[:3], (4, 16)))


@pytest.mark.parametrize("rows", [3, 5])
def test_folded_static_read_computes_the_reference(rows: int) -> None:
    kernel = xlinalg.compile(READ.format(rows=rows), entry="f")
    a = RNG.standard_normal((rows, 13)).astype(np.float32)
    out = np.full((4, 16), np.nan, np.float32)
    kernel(a, out)
    np.testing.assert_array_equal(out, _padded(a, (4, 16)))


@pytest.mark.parametrize("mid", [1, 3, 4])
def test_folded_3d_read_computes_the_reference(mid: int) -> None:
    kernel = xlinalg.compile(READ_3D, entry="f")
    a = RNG.standard_normal((2, mid, 13)).astype(np.float32)
    out = np.full((2, 3, 16), np.nan, np.float32)
    kernel(a, out)
    np.testing.assert_array_equal(out, _padded(a, (2, 3, 16)))


def _old_dim(self, source, d):  # the unfolded form: always `memref.dim`
    return self.add(memref.DimOp(source, self.index(d)))


@pytest.mark.perf
def test_masked_conv_block_same_machine_code_and_result(monkeypatch: pytest.MonkeyPatch) -> None:
    folded = compile_masked_conv()
    with monkeypatch.context() as m:
        m.setattr(unroll_to_1d, "static_index", lambda v: None)
        m.setattr(unroll_to_1d._Unroller, "dim", _old_dim)
        unfolded = compile_masked_conv()
    assert folded.lowered.llvm_ir.count("\n") < unfolded.lowered.llvm_ir.count("\n")
    assert folded._jit.asm() == unfolded._jit.asm()
    i = RNG.standard_normal((1, 9, 9, 64)).astype(np.float32)
    f = RNG.standard_normal((3, 3, 64, 64)).astype(np.float32)
    out = np.zeros((1, 7, 7, 64), np.float32)
    folded(i, f, out)
    want = sum(
        np.einsum("hwc,cf->hwf", i[0, y : y + 7, x : x + 7], f[y, x])
        for y in range(3)
        for x in range(3)
    )
    np.testing.assert_allclose(out[0], want, rtol=1e-4, atol=1e-4)
