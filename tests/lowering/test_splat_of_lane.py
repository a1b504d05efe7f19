"""`vector.broadcast` of a constant lane of a 1-D vector (`broadcast(extract(v, i))`, the
unrolled outer product / FMA of every register block) becomes one LLVM `shufflevector`
with a splat mask, as LLVM's instcombine would fold extractelement + insertelement +
shufflevector, and the extract is dropped: fewer ops to convert, print and parse, the
same machine code (checked with the fold disabled), the same numbers as NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.lowering.to_llvm import convert_vector_to_llvm

from support.masked_conv import compile_masked_conv

RNG = np.random.default_rng(5)

#: O = A[lane] * B + O for one 8-lane A and a 16-lane B (widths differ, as in the conv's
#: reg_c = 8 by reg_f = 16 block), plus a splat of a scalar argument (not a lane: unchanged)
KERNEL = """func.func @f(%A: memref<8xf32>, %B: memref<16xf32>, %O: memref<3x16xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pad = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0], %pad {in_bounds = [true]} : memref<8xf32>, vector<8xf32>
  %b = vector.transfer_read %B[%c0], %pad {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  %x = vector.extract %a[3] : f32 from vector<8xf32>
  %xs = vector.broadcast %x : f32 to vector<16xf32>
  %y = vector.extract %b[15] : f32 from vector<16xf32>
  %ys = vector.broadcast %y : f32 to vector<16xf32>
  %ss = vector.broadcast %s : f32 to vector<16xf32>
  %o0 = vector.fma %xs, %b, %b : vector<16xf32>
  %o1 = arith.mulf %ys, %b : vector<16xf32>
  vector.transfer_write %o0, %O[%c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<3x16xf32>
  vector.transfer_write %o1, %O[%c1, %c0] {in_bounds = [true]} : vector<16xf32>, memref<3x16xf32>
  vector.transfer_write %ss, %O[%c2, %c0] {in_bounds = [true]} : vector<16xf32>, memref<3x16xf32>
  return
}
"""


def test_lane_broadcasts_are_one_shufflevector_and_compute_the_reference() -> None:
    kernel = xlinalg.compile(KERNEL, entry="f")
    ir = kernel.lowered.llvm_ir
    assert "extractelement" not in ir  # both extracts only fed broadcasts
    assert "<16 x i32> <i32 3, i32 3," in ir
    assert "<16 x i32> <i32 15, i32 15," in ir
    assert ir.count("insertelement") == 1  # the scalar argument's splat
    a = RNG.standard_normal(8).astype(np.float32)
    b = RNG.standard_normal(16).astype(np.float32)
    out = np.zeros((3, 16), np.float32)
    kernel(a, b, out, np.float32(2.5))
    np.testing.assert_allclose(out[0], a[3] * b + b, rtol=1e-6)
    np.testing.assert_array_equal(out[1], b[15] * b)
    np.testing.assert_array_equal(out[2], np.full(16, 2.5, np.float32))


def test_an_extract_with_other_uses_stays() -> None:
    text = KERNEL.replace(
        "%ss = vector.broadcast %s", "%z = arith.addf %y, %s : f32\n  %ss = vector.broadcast %z"
    )
    kernel = xlinalg.compile(text, entry="f")
    assert kernel.lowered.llvm_ir.count("extractelement") == 1  # lane 15 also feeds the addf
    b = RNG.standard_normal(16).astype(np.float32)
    out = np.zeros((3, 16), np.float32)
    kernel(np.zeros(8, np.float32), b, out, np.float32(1.5))
    np.testing.assert_array_equal(out[1], b[15] * b)
    np.testing.assert_array_equal(out[2], np.full(16, b[15] + np.float32(1.5), np.float32))


@pytest.mark.perf
def test_conv_register_block_same_machine_code(monkeypatch: pytest.MonkeyPatch) -> None:
    folded = compile_masked_conv()
    with monkeypatch.context() as m:
        m.setattr(convert_vector_to_llvm, "_splat_of_lane", lambda b, scalar, t: None)
        unfolded = compile_masked_conv()
    assert "extractelement" in unfolded.lowered.llvm_ir
    assert len(folded.lowered.llvm_ir) < len(unfolded.lowered.llvm_ir)
    assert folded._jit.asm() == unfolded._jit.asm()
