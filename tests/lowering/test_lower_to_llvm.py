"""func/cf/arith/math/memref → LLVM dialect → LLVM IR → native code (llvmlite MCJIT), checked against NumPy."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import llvmlite.binding as llvm_binding
import numpy as np
import pytest

from xlinalg.errors import LoweringError
from xlinalg.lowering.abi import LoweredModule, MemRefArg, ScalarArg
from xlinalg.lowering.to_llvm import convert_to_llvm_dialect, convert_to_llvm_ir, emit_llvm_ir

from support import needs_iree, run_iree_opt
from support import parse_module as parse
from support.lowering import LlvmliteModule

# ---------------------------------------------------------------------------
# helpers: parse, lower, JIT with llvmlite, call with NumPy arrays per the ABI
# ---------------------------------------------------------------------------


def lower(text: str) -> LoweredModule:
    return convert_to_llvm_ir(parse(text))


def jit(text: str, name: str) -> tuple[Callable[..., Any], LoweredModule]:
    lowered = lower(text)
    return LlvmliteModule(lowered).function(name), lowered


def loop(iv: str, lb: str, ub: str, step: str, body: str, label: str, after: str) -> str:
    """A cf loop `for iv in [lb, ub) step` whose body is straight-line code, then branch to `after`."""
    return f"""
  cf.br ^{label}_h({lb} : index)
^{label}_h({iv}: index):
  %{label}_c = arith.cmpi slt, {iv}, {ub} : index
  cf.cond_br %{label}_c, ^{label}_b, ^{after}
^{label}_b:
{body}
  %{label}_n = arith.addi {iv}, {step} : index
  cf.br ^{label}_h(%{label}_n : index)
"""


# ---------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------

COPY_2D = """
func.func @copy2d(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %a, %c0 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  %n = memref.dim %a, %c1 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  cf.br ^outer(%c0 : index)
^outer(%i: index):
  %ci = arith.cmpi slt, %i, %m : index
  cf.cond_br %ci, ^inner0, ^exit
^inner0:
  cf.br ^inner(%c0 : index)
^inner(%j: index):
  %cj = arith.cmpi slt, %j, %n : index
  cf.cond_br %cj, ^body, ^latch
^body:
  %v = memref.load %a[%i, %j] : memref<?x?xf32, strided<[?, ?], offset: ?>>
  memref.store %v, %b[%i, %j] : memref<?x?xf32>
  %j1 = arith.addi %j, %c1 : index
  cf.br ^inner(%j1 : index)
^latch:
  %i1 = arith.addi %i, %c1 : index
  cf.br ^outer(%i1 : index)
^exit:
  return
}
"""


def test_strided_copy_2d_dynamic_shapes() -> None:
    call, lowered = jit(COPY_2D, "copy2d")
    base = np.arange(13 * 17, dtype=np.float32).reshape(13, 17)
    view = base[2:11:3, 1:15:2]  # non-unit strides and a non-zero offset
    out = np.zeros(view.shape, dtype=np.float32)
    call((view, base), out)
    np.testing.assert_array_equal(out, view)
    sig = lowered.functions["copy2d"]
    assert sig.args[0] == MemRefArg(np.dtype(np.float32), (None, None), (None, None))
    assert sig.args[1] == MemRefArg(np.dtype(np.float32), (None, None), None)
    assert sig.result is None


def test_load_store_loop_uses_gep_and_alignment_not_ptrtoint() -> None:
    ir = lower(COPY_2D).llvm_ir
    assert "getelementptr inbounds float" in ir
    assert "load float, ptr" in ir
    assert ", align 4" in ir
    assert "store float" in ir
    assert "ptrtoint" not in ir
    assert "inttoptr" not in ir
    for line in ir.splitlines():
        if " load " in line or line.strip().startswith("store "):
            assert "align 4" in line, line


def test_static_strides_are_constants() -> None:
    text = """
func.func @get(%a: memref<4x8xf64>, %i: index, %j: index) -> f64 {
  %v = memref.load %a[%i, %j] : memref<4x8xf64>
  return %v : f64
}
"""
    ir = lower(text).llvm_ir
    # the static row stride 8 is an immediate; strides and offset are not read from the descriptor
    assert re.search(r"mul i64 %v\d+, 8\n", ir)
    assert not re.search(r"extractvalue .*, [24](, \d)?\n", ir)
    call, lowered = jit(text, "get")
    a = np.arange(32, dtype=np.float64).reshape(4, 8)
    assert call(a, 3, 5) == a[3, 5]
    assert lowered.functions["get"].result == ScalarArg(np.dtype(np.float64))


SUBVIEW = (
    """
func.func @sub(%a: memref<?x?xf32>, %o0: index, %o1: index, %out: memref<2x3xf32>, %row: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %s = memref.subview %a[%o0, %o1] [2, 3] [1, 2] : memref<?x?xf32> to memref<2x3xf32, strided<[?, 2], offset: ?>>
  %r = memref.subview %a[%o1, %o0] [1, %c3] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
  %n = memref.dim %row, %c0 : memref<?xf32>
"""
    + loop(
        "%t",
        "%c0",
        "%c6",
        "%c1",
        """
  %i = arith.divui %t, %c3 : index
  %j = arith.remui %t, %c3 : index
  %v = memref.load %s[%i, %j] : memref<2x3xf32, strided<[?, 2], offset: ?>>
  memref.store %v, %out[%i, %j] : memref<2x3xf32>
""",
        "t",
        "rows",
    )
    + """
^rows:
"""
    + loop(
        "%k",
        "%c0",
        "%n",
        "%c1",
        """
  %w = memref.load %r[%k] : memref<?xf32, strided<[1], offset: ?>>
  memref.store %w, %row[%k] : memref<?xf32>
""",
        "k",
        "done",
    )
    + """
^done:
  return
}
"""
)


def test_subview_dynamic_offsets_and_rank_reduction() -> None:
    call, _ = jit(SUBVIEW, "sub")
    a = np.arange(6 * 9, dtype=np.float32).reshape(6, 9)
    out = np.zeros((2, 3), dtype=np.float32)
    row = np.zeros(3, dtype=np.float32)
    call(a, 3, 2, out, row)
    np.testing.assert_array_equal(out, a[3:5, 2:8:2])
    np.testing.assert_array_equal(row, a[2, 3:6])


def test_alloc_dealloc_and_alloca() -> None:
    text = (
        """
func.func @tmp(%n: index, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.5 : f64
  %buf = memref.alloc(%n) : memref<?xf64>
  %st = memref.alloca() : memref<4xi32>
"""
        + loop(
            "%i",
            "%c0",
            "%n",
            "%c1",
            """
  %ii = arith.index_cast %i : index to i64
  %f = arith.sitofp %ii : i64 to f64
  %g = arith.mulf %f, %two : f64
  memref.store %g, %buf[%i] : memref<?xf64>
""",
            "fill",
            "copy",
        )
        + """
^copy:
"""
        + loop(
            "%j",
            "%c0",
            "%n",
            "%c1",
            """
  %v = memref.load %buf[%j] : memref<?xf64>
  %w = arith.addf %v, %v : f64
  memref.store %w, %out[%j] : memref<?xf64>
""",
            "cp",
            "stack",
        )
        + """
^stack:
  %k = arith.constant 7 : i32
  memref.store %k, %st[%c1] : memref<4xi32>
  %kk = memref.load %st[%c1] : memref<4xi32>
  %kf = arith.sitofp %kk : i32 to f64
  memref.store %kf, %out[%c0] : memref<?xf64>
  memref.dealloc %buf : memref<?xf64>
  return
}
"""
    )
    lowered = lower(text)
    assert "@aligned_alloc(i64 64," in lowered.llvm_ir
    assert "@free(" in lowered.llvm_ir
    assert "alloca i32, i64 4" in lowered.llvm_ir
    call, _ = jit(text, "tmp")
    out = np.zeros(37, dtype=np.float64)
    call(37, out)
    expected = np.arange(37) * 5.0
    expected[0] = 7.0
    np.testing.assert_array_equal(out, expected)


def test_reduction_loop_block_args() -> None:
    text = """
func.func @sum(%a: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %a, %c0 : memref<?xf32>
  cf.br ^head(%c0, %zero : index, f32)
^head(%i: index, %acc: f32):
  %c = arith.cmpi slt, %i, %n : index
  cf.cond_br %c, ^body, ^exit(%acc : f32)
^body:
  %v = memref.load %a[%i] : memref<?xf32>
  %acc2 = arith.addf %acc, %v : f32
  %i2 = arith.addi %i, %c1 : index
  cf.br ^head(%i2, %acc2 : index, f32)
^exit(%r: f32):
  return %r : f32
}
"""
    call, lowered = jit(text, "sum")
    a = np.linspace(-1, 3, 101, dtype=np.float32)
    assert call(a) == pytest.approx(float(a.astype(np.float64).sum()), rel=1e-5)
    assert call(a[:0]) == 0.0
    assert "phi float" in lowered.llvm_ir
    assert "phi i64" in lowered.llvm_ir


MATH_OPS = [
    ("math.exp", np.exp, (-2.0, 2.0)),
    ("math.exp2", np.exp2, (-2.0, 2.0)),
    ("math.log", np.log, (0.1, 5.0)),
    ("math.log2", np.log2, (0.1, 5.0)),
    ("math.log10", np.log10, (0.1, 5.0)),
    ("math.sqrt", np.sqrt, (0.0, 9.0)),
    ("math.rsqrt", lambda x: 1.0 / np.sqrt(x), (0.1, 9.0)),
    ("math.tanh", np.tanh, (-3.0, 3.0)),
    ("math.erf", np.vectorize(math.erf), (-2.0, 2.0)),
    ("math.absf", np.abs, (-3.0, 3.0)),
    ("math.ceil", np.ceil, (-3.0, 3.0)),
    ("math.floor", np.floor, (-3.0, 3.0)),
    ("math.round", lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), (-3.0, 3.0)),
    ("math.roundeven", np.round, (-3.0, 3.0)),
    ("math.trunc", np.trunc, (-3.0, 3.0)),
    ("math.sin", np.sin, (-3.0, 3.0)),
    ("math.cos", np.cos, (-3.0, 3.0)),
    ("math.atan", np.arctan, (-3.0, 3.0)),
    ("math.log1p", np.log1p, (0.0, 3.0)),
]

UNARY = (
    """
func.func @f(%a: memref<?xT>, %b: memref<?xT>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xT>
"""
    + loop(
        "%i",
        "%c0",
        "%n",
        "%c1",
        """
  %x = memref.load %a[%i] : memref<?xT>
  %y = OP %x : T
  memref.store %y, %b[%i] : memref<?xT>
""",
        "l",
        "exit",
    )
    + """
^exit:
  return
}
"""
)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_math_unary(dtype: type) -> None:
    t = "f32" if dtype is np.float32 else "f64"
    for op, ref, (lo, hi) in MATH_OPS:
        call, _ = jit(UNARY.replace("OP", op).replace("xT", f"x{t}").replace(": T", f": {t}"), "f")
        x = np.linspace(lo, hi, 41).astype(dtype)
        x[3] = 2.5  # a tie for the rounding ops
        y = np.zeros_like(x)
        call(x, y)
        np.testing.assert_allclose(y, ref(x.astype(np.float64)), rtol=2e-6, atol=1e-6, err_msg=op)


def test_math_binary_ternary_and_libm_declarations() -> None:
    text = """
func.func @f(%x: f32, %y: f32, %z: f32, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %p = math.powf %x, %y : f32
  %f = math.fma %x, %y, %z : f32
  %a = math.atan2 %x, %y : f32
  %s = math.copysign %x, %z : f32
  memref.store %p, %out[%c0] : memref<4xf32>
  memref.store %f, %out[%c1] : memref<4xf32>
  memref.store %a, %out[%c2] : memref<4xf32>
  memref.store %s, %out[%c3] : memref<4xf32>
  return
}
"""
    call, lowered = jit(text, "f")
    out = np.zeros(4, dtype=np.float32)
    call(1.5, 2.25, -0.5, out)
    np.testing.assert_allclose(
        out, [1.5**2.25, 1.5 * 2.25 - 0.5, math.atan2(1.5, 2.25), -1.5], rtol=1e-6
    )
    ir = lowered.llvm_ir
    assert "declare float @llvm.pow.f32(float, float)" in ir
    assert "declare float @llvm.fma.f32(float, float, float)" in ir
    assert "declare float @atan2f(float, float)" in ir


def test_float_compare_select_and_nan_semantics() -> None:
    text = """
func.func @f(%x: f64, %y: f64, %out: memref<4xf64>, %flags: memref<4xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %a = arith.minimumf %x, %y : f64
  %b = arith.minnumf %x, %y : f64
  %c = arith.maximumf %x, %y : f64
  %d = arith.maxnumf %x, %y : f64
  memref.store %a, %out[%c0] : memref<4xf64>
  memref.store %b, %out[%c1] : memref<4xf64>
  memref.store %c, %out[%c2] : memref<4xf64>
  memref.store %d, %out[%c3] : memref<4xf64>
  %lt = arith.cmpf olt, %x, %y : f64
  %ult = arith.cmpf ult, %x, %y : f64
  %une = arith.cmpf une, %x, %x : f64
  %ord = arith.cmpf ord, %x, %y : f64
  memref.store %lt, %flags[%c0] : memref<4xi1>
  memref.store %ult, %flags[%c1] : memref<4xi1>
  memref.store %une, %flags[%c2] : memref<4xi1>
  memref.store %ord, %flags[%c3] : memref<4xi1>
  return
}
"""
    call, lowered = jit(text, "f")
    out = np.zeros(4, dtype=np.float64)
    flags = np.zeros(4, dtype=np.bool_)
    call(float("nan"), 2.0, out, flags)
    assert math.isnan(out[0])
    assert out[1] == 2.0
    assert math.isnan(out[2])
    assert out[3] == 2.0
    assert flags.tolist() == [False, True, True, False]
    call(1.0, 2.0, out, flags)
    assert out.tolist() == [1.0, 1.0, 2.0, 2.0]
    assert flags.tolist() == [True, True, False, True]
    assert lowered.functions["f"].args[3] == MemRefArg(np.dtype(np.bool_), (4,), None)
    assert "@llvm.minimum.f64" in lowered.llvm_ir
    assert "@llvm.minnum.f64" in lowered.llvm_ir


INT_OPS = (
    """
func.func @ints(%a: memref<?xi32>, %b: memref<?xi32>, %out: memref<?x12xi32>, %wide: memref<?xi64>, %fl: memref<?xf32>, %sel: memref<?xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %c11 = arith.constant 11 : index
  %k3 = arith.constant 3 : i32
  %n = memref.dim %a, %c0 : memref<?xi32>
"""
    + loop(
        "%i",
        "%c0",
        "%n",
        "%c1",
        """
  %x = memref.load %a[%i] : memref<?xi32>
  %y = memref.load %b[%i] : memref<?xi32>
  %r0 = arith.divsi %x, %y : i32
  %r1 = arith.remsi %x, %y : i32
  %r2 = arith.ceildivsi %x, %y : i32
  %r3 = arith.floordivsi %x, %y : i32
  %r4 = arith.minsi %x, %y : i32
  %r5 = arith.maxui %x, %y : i32
  %r6 = arith.shli %x, %k3 : i32
  %r7 = arith.shrsi %x, %k3 : i32
  %r8 = arith.shrui %x, %k3 : i32
  %r9 = arith.xori %x, %y : i32
  %m = arith.muli %x, %y : i32
  %r10 = arith.subi %m, %x : i32
  %r11 = arith.divui %x, %k3 : i32
  memref.store %r0, %out[%i, %c0] : memref<?x12xi32>
  memref.store %r1, %out[%i, %c1] : memref<?x12xi32>
  memref.store %r2, %out[%i, %c2] : memref<?x12xi32>
  memref.store %r3, %out[%i, %c3] : memref<?x12xi32>
  memref.store %r4, %out[%i, %c4] : memref<?x12xi32>
  memref.store %r5, %out[%i, %c5] : memref<?x12xi32>
  memref.store %r6, %out[%i, %c6] : memref<?x12xi32>
  memref.store %r7, %out[%i, %c7] : memref<?x12xi32>
  memref.store %r8, %out[%i, %c8] : memref<?x12xi32>
  memref.store %r9, %out[%i, %c9] : memref<?x12xi32>
  memref.store %r10, %out[%i, %c10] : memref<?x12xi32>
  memref.store %r11, %out[%i, %c11] : memref<?x12xi32>
  %xw = arith.extsi %x : i32 to i64
  %yw = arith.extui %y : i32 to i64
  %s = arith.addi %xw, %yw : i64
  memref.store %s, %wide[%i] : memref<?xi64>
  %xf = arith.sitofp %x : i32 to f32
  %h = arith.constant 0.5 : f32
  %xh = arith.mulf %xf, %h : f32
  %back = arith.fptosi %xh : f32 to i32
  %bf = arith.sitofp %back : i32 to f32
  %bf2 = arith.addf %bf, %xh : f32
  memref.store %bf2, %fl[%i] : memref<?xf32>
  %lt = arith.cmpi slt, %x, %y : i32
  %t8 = arith.trunci %x : i32 to i8
  %u8 = arith.trunci %y : i32 to i8
  %pick = arith.select %lt, %t8, %u8 : i8
  memref.store %pick, %sel[%i] : memref<?xi8>
""",
        "l",
        "exit",
    )
    + """
^exit:
  return
}
"""
)


def test_integer_ops_and_casts() -> None:
    call, lowered = jit(INT_OPS, "ints")
    rng = np.random.default_rng(0)
    a = rng.integers(-1000, 1000, 64).astype(np.int32)
    b = rng.integers(-50, 50, 64).astype(np.int32)
    b[b == 0] = 7
    a[:4] = [7, -7, 6, -6]
    b[:4] = [2, 2, -3, 4]
    out = np.zeros((64, 12), dtype=np.int32)
    wide = np.zeros(64, dtype=np.int64)
    fl = np.zeros(64, dtype=np.float32)
    sel = np.zeros(64, dtype=np.int8)
    call(a, b, out, wide, fl, sel)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    trunc_div = np.trunc(a64 / b64).astype(np.int64)
    with np.errstate(over="ignore"):
        expected = np.stack(
            [
                trunc_div,
                a64 - trunc_div * b64,
                -((-a64) // b64),
                a64 // b64,
                np.minimum(a64, b64),
                np.maximum(a.view(np.uint32), b.view(np.uint32)).view(np.int32),
                a << 3,
                a >> 3,
                (a.view(np.uint32) >> 3).view(np.int32),
                a ^ b,
                a * b - a,
                (a.view(np.uint32) // 3).view(np.int32),
            ],
            axis=1,
        ).astype(np.int32)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(wide, a64 + b.view(np.uint32).astype(np.int64))
    half = a.astype(np.float32) * np.float32(0.5)
    np.testing.assert_array_equal(fl, np.trunc(half) + half)
    np.testing.assert_array_equal(sel, np.where(a < b, a.astype(np.int8), b.astype(np.int8)))
    sig = lowered.functions["ints"]
    assert sig.args[2] == MemRefArg(np.dtype(np.int32), (None, 12), None)
    assert sig.args[5].dtype == np.dtype(np.int8)


def test_scalar_args_index_result_and_internal_call() -> None:
    text = """
func.func private @scale(%m: memref<?xf32, strided<[?], offset: ?>>, %i: index, %s: f32) {
  %v = memref.load %m[%i] : memref<?xf32, strided<[?], offset: ?>>
  %w = arith.mulf %v, %s : f32
  memref.store %w, %m[%i] : memref<?xf32, strided<[?], offset: ?>>
  return
}
func.func @entry(%a: memref<8xf32>, %i: index, %s: f32, %k: i64) -> index {
  %c = "memref.cast"(%a) : (memref<8xf32>) -> memref<?xf32, strided<[?], offset: ?>>
  func.call @scale(%c, %i, %s) : (memref<?xf32, strided<[?], offset: ?>>, index, f32) -> ()
  %ki = arith.index_cast %k : i64 to index
  %r = arith.addi %ki, %i : index
  return %r : index
}
"""
    call, lowered = jit(text, "entry")
    assert set(lowered.functions) == {"entry"}
    assert "define internal void @scale" in lowered.llvm_ir
    a = np.arange(8, dtype=np.float32)
    assert call(a, 5, 3.0, 100) == 105
    assert a[5] == 15.0
    assert a[4] == 4.0
    assert lowered.functions["entry"].result == ScalarArg(np.dtype(np.int64))


def test_copy_reinterpret_cast_and_metadata() -> None:
    text = """
func.func @f(%a: memref<2x6xf32>, %b: memref<12xf32>, %out: memref<3xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %flat = memref.reinterpret_cast %a to offset: [0], sizes: [12], strides: [1] : memref<2x6xf32> to memref<12xf32>
  "memref.copy"(%flat, %b) : (memref<12xf32>, memref<12xf32>) -> ()
  %s = memref.subview %a[1, 2] [1, 3] [1, 1] : memref<2x6xf32> to memref<3xf32, strided<[1], offset: 8>>
  %base, %off, %size, %stride = "memref.extract_strided_metadata"(%s) : (memref<3xf32, strided<[1], offset: 8>>) -> (memref<f32>, index, index, index)
  memref.store %off, %out[%c0] : memref<3xindex>
  memref.store %size, %out[%c1] : memref<3xindex>
  memref.store %stride, %out[%c2] : memref<3xindex>
  return
}
"""
    call, lowered = jit(text, "f")
    a = np.arange(12, dtype=np.float32).reshape(2, 6)
    b = np.zeros(12, dtype=np.float32)
    out = np.zeros(3, dtype=np.int64)
    call(a, b, out)
    np.testing.assert_array_equal(b, a.ravel())
    assert out.tolist() == [8, 3, 1]
    assert "@llvm.memcpy.p0.p0.i64" in lowered.llvm_ir


def test_half_precision_libm_goes_through_f32() -> None:
    text = """
func.func @f(%x: f16, %out: memref<1xf16>) {
  %c0 = arith.constant 0 : index
  %y = math.tanh %x : f16
  memref.store %y, %out[%c0] : memref<1xf16>
  return
}
"""
    ir = lower(text).llvm_ir
    assert "fpext half" in ir
    assert "call float @tanhf(float" in ir
    assert "fptrunc float" in ir
    llvm_binding.parse_assembly(ir).verify()


@pytest.mark.parametrize(
    "name",
    ["COPY_2D", "SUBVIEW", "INT_OPS", "ALLOC_AND_CALLS", "GLOBALS", "NESTED_SUBVIEW"],
)
def test_module_ends_in_llvm_dialect_and_verifies(name: str) -> None:
    module = parse(globals()[name])
    convert_to_llvm_dialect(module)
    module.verify()
    assert all(op.name.startswith("llvm.") for op in module.walk() if op is not module)
    assert "llvm.load" in str(module) or "llvm.store" in str(module)


def test_unsupported_op_raises_lowering_error_naming_it() -> None:
    text = """
func.func @f(%x: i32) -> i32 {
  %y = math.ipowi %x, %x : i32
  return %y : i32
}
"""
    with pytest.raises(LoweringError, match=re.escape("math.ipowi")):
        lower(text)


ALLOC_AND_CALLS = """
func.func private @helper(%m: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<?xf32>
  %e = math.exp %v : f32
  %t = math.tanh %e : f32
  return %t : f32
}
func.func @f(%n: index, %x: f32, %yd: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %buf = memref.alloc(%n) : memref<?xf32>
  %st = memref.alloca() : memref<2x2xf64>
  memref.store %x, %buf[%c0] : memref<?xf32>
  %r = func.call @helper(%buf) : (memref<?xf32>) -> f32
  %m = arith.maximumf %r, %x : f32
  %y = arith.truncf %yd : f32 to f16
  %yy = arith.extf %y : f16 to f32
  %z = arith.addf %m, %yy fastmath<fast> : f32
  %u = arith.fptoui %z : f32 to i32
  %w = arith.uitofp %u : i32 to f32
  memref.dealloc %buf : memref<?xf32>
  return %w : f32
}
"""


@needs_iree
@pytest.mark.parametrize("name", ["COPY_2D", "SUBVIEW", "INT_OPS", "ALLOC_AND_CALLS", "GLOBALS"])
def test_printed_llvm_dialect_is_accepted_by_upstream_mlir(name: str, tmp_path: Any) -> None:
    module = parse(globals()[name])
    convert_to_llvm_dialect(module)
    path = tmp_path / "m.mlir"
    path.write_text(str(module))
    proc = run_iree_opt(path)
    assert proc.returncode == 0, proc.stderr


def test_alloc_call_and_fastmath_execute() -> None:
    call, lowered = jit(ALLOC_AND_CALLS, "f")
    got = call(4, 0.25, 1.5)  # 1.5 is exact in f16
    r = math.tanh(math.exp(0.25))
    assert got == pytest.approx(float(int(max(r, 0.25) + 1.5)))
    assert "fadd fast float" in lowered.llvm_ir
    assert "fptoui float" in lowered.llvm_ir
    assert "uitofp i32" in lowered.llvm_ir


def test_strided_memref_copy_is_a_loop_nest() -> None:
    text = """
func.func @f(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?x?xf32, strided<[?, 1], offset: ?>>) -> f32 {
  "memref.copy"(%a, %b) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, 1], offset: ?>>) -> ()
  %c0 = arith.constant 0 : index
  %v = memref.load %b[%c0, %c0] : memref<?x?xf32, strided<[?, 1], offset: ?>>
  return %v : f32
}
"""
    call, lowered = jit(text, "f")
    base = np.arange(10 * 12, dtype=np.float32).reshape(10, 12)
    dst_base = np.zeros((8, 9), dtype=np.float32)
    src = base[1:9:2, 2:11:3]
    dst = dst_base[2:6, 4:7]
    assert call((src, base), (dst, dst_base)) == src[0, 0]
    np.testing.assert_array_equal(dst, src)
    assert dst_base.sum() == src.sum()
    assert "memcpy" not in lowered.llvm_ir


def test_vector_arith_and_math_emit_valid_ir() -> None:
    text = """
func.func @f(%x: vector<4xf32>) -> vector<4xf32> {
  %c = arith.constant dense<1.0> : vector<4xf32>
  %d = arith.constant dense<[1.0, 2.0, 3.0, 4.5]> : vector<4xf32>
  %y = arith.addf %x, %c : vector<4xf32>
  %z = arith.mulf %y, %d : vector<4xf32>
  %e = math.exp %z : vector<4xf32>
  %m = arith.maximumf %e, %z : vector<4xf32>
  %r = math.rsqrt %m : vector<4xf32>
  return %r : vector<4xf32>
}
"""
    module = parse(text)
    convert_to_llvm_dialect(module)
    ir = emit_llvm_ir(module)
    llvm_binding.parse_assembly(ir).verify()
    assert "@llvm.exp.v4f32(<4 x float>" in ir
    assert "@llvm.maximum.v4f32" in ir
    assert "float 0x4012000000000000" in ir  # 4.5 as LLVM's hex double spelling


def test_symbol_names_that_need_quoting() -> None:
    text = """
func.func @"kernel-v2.0"(%x: i64) -> i64 {
  %c = arith.constant 3 : i64
  %y = arith.muli %x, %c : i64
  return %y : i64
}
"""
    call, _ = jit(text, "kernel-v2.0")
    assert call(14) == 42
    text = text.replace('"kernel-v2.0"', '"kernel 2"')
    assert 'define i64 @"kernel 2"(' in lower(text).llvm_ir


def test_signature_of_static_strided_layout() -> None:
    text = """
func.func @f(%a: memref<4x?xf64, strided<[16, 2], offset: 3>>, %n: index, %t: i16) -> i1 {
  %c = arith.constant true
  return %c : i1
}
"""
    lowered = lower(text)
    sig = lowered.functions["f"]
    assert sig.args == (
        MemRefArg(np.dtype(np.float64), (4, None), (16, 2)),
        ScalarArg(np.dtype(np.int64)),
        ScalarArg(np.dtype(np.int16)),
    )
    assert sig.result == ScalarArg(np.dtype(np.bool_))
    assert "ret i1 true" in lowered.llvm_ir


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "func.func @f(%a: memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>) { return }",
            "only identity and strided layouts",
        ),
        (
            "func.func @f(%a: memref<4xf32>) -> memref<4xf32> { return %a : memref<4xf32> }",
            "memref result",
        ),
        (
            "func.func @f(%x: f32) -> (f32, f32) { return %x, %x : f32, f32 }",
            "at most one result",
        ),
    ],
)
def test_unsupported_inputs_raise_lowering_error(text: str, message: str) -> None:
    with pytest.raises(LoweringError, match=message):
        lower(text)


NESTED_SUBVIEW = (
    """
func.func @f(%a: memref<?x?x?xf32>, %o: index, %n: index, %m: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.subview %a[%o, 1, 0] [%n, 1, %m] [1, 1, 2]
      : memref<?x?x?xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %t = memref.subview %s[1, %c1] [1, 3] [1, 1]
      : memref<?x?xf32, strided<[?, ?], offset: ?>> to memref<3xf32, strided<[?], offset: ?>>
"""
    + loop(
        "%k",
        "%c0",
        "%m",
        "%c1",
        """
  %c3 = arith.constant 3 : index
  %inside = arith.cmpi slt, %k, %c3 : index
  %kk = arith.select %inside, %k, %c0 : index
  %v = memref.load %t[%kk] : memref<3xf32, strided<[?], offset: ?>>
  %w = memref.load %s[%c0, %k] : memref<?x?xf32, strided<[?, ?], offset: ?>>
  %r = arith.select %inside, %v, %w : f32
  memref.store %r, %out[%k] : memref<?xf32>
""",
        "k",
        "done",
    )
    + """
^done:
  return
}
"""
)


def test_rank_reducing_middle_dim_and_subview_of_subview() -> None:
    call, _ = jit(NESTED_SUBVIEW, "f")
    a = np.arange(5 * 4 * 11, dtype=np.float32).reshape(5, 4, 11)
    out = np.zeros(5, dtype=np.float32)
    call(a, 2, 3, 5, out)
    s = a[2 : 2 + 3, 1, 0:10:2]  # [%o, 1, 0] [%n, 1, %m] [1, 1, 2], middle dim dropped
    t = s[1, 1:4]
    np.testing.assert_array_equal(out, np.concatenate([t, s[0, 3:5]]))


GLOBALS = """
"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<2x3xf32>, initial_value = dense<[[1.5, 2.0, -3.0], [4.0, 5.25, 6.0]]> : tensor<2x3xf32>, constant}> : () -> ()
"memref.global"() <{sym_name = "zeros", sym_visibility = "private", type = memref<4xi32>, initial_value}> : () -> ()
func.func @f(%i: index, %j: index) -> f32 {
  %t = memref.get_global @table : memref<2x3xf32>
  %z = memref.get_global @zeros : memref<4xi32>
  %v = memref.load %t[%i, %j] : memref<2x3xf32>
  %w = memref.load %z[%j] : memref<4xi32>
  %wf = arith.sitofp %w : i32 to f32
  %r = arith.addf %v, %wf : f32
  return %r : f32
}
"""


def test_memref_global_constant_table() -> None:
    text = GLOBALS
    call, lowered = jit(text, "f")
    assert call(1, 1) == 5.25
    assert call(0, 2) == -3.0
    assert "@table = private constant [6 x float] [float 0x3FF8000000000000" in lowered.llvm_ir
    assert "@zeros = private global [4 x i32] zeroinitializer, align 64" in lowered.llvm_ir


def test_collapse_and_expand_shape() -> None:
    text = """
func.func @f(%a: memref<2x3x4xf32>, %b: memref<?x4xf32, strided<[8, 1], offset: ?>>, %n: index, %out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %flat = memref.collapse_shape %a [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
  %v = memref.load %flat[%c5, %c2] : memref<6x4xf32>
  memref.store %v, %out[%c0] : memref<2xf32>
  %e = memref.expand_shape %b [[0, 1], [2]] output_shape [%n, 2, 4]
      : memref<?x4xf32, strided<[8, 1], offset: ?>> into memref<?x2x4xf32, strided<[16, 8, 1], offset: ?>>
  %w = memref.load %e[%c1, %c1, %c2] : memref<?x2x4xf32, strided<[16, 8, 1], offset: ?>>
  memref.store %w, %out[%c1] : memref<2xf32>
  return
}
"""
    call, _ = jit(text, "f")
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    base = np.arange(100, dtype=np.float32)
    view = np.lib.stride_tricks.as_strided(base[2:], shape=(6, 4), strides=(32, 4))
    out = np.zeros(2, dtype=np.float32)
    call(a, (view, base), 3, out)
    assert out[0] == a.reshape(6, 4)[5, 2]
    assert out[1] == view[3, 2]  # row 1*2 + 1 = 3 of the 2-row groups


def test_unreachable_blocks_are_dropped() -> None:
    text = """
func.func @f(%x: i64) -> i64 {
  cf.br ^done(%x : i64)
^dead(%y: i64):
  %z = arith.addi %y, %y : i64
  cf.br ^done(%z : i64)
^done(%r: i64):
  return %r : i64
}
"""
    call, lowered = jit(text, "f")
    assert call(7) == 7
    assert lowered.llvm_ir.count("phi i64") == 1


def test_integer_overflow_flags_are_kept() -> None:
    text = """
func.func @f(%x: i64, %y: i64) -> i64 {
  %a = arith.addi %x, %y overflow<nsw> : i64
  %b = arith.muli %a, %y overflow<nsw, nuw> : i64
  %c = arith.subi %b, %x : i64
  return %c : i64
}
"""
    call, lowered = jit(text, "f")
    assert call(3, 4) == (3 + 4) * 4 - 3
    ir = lowered.llvm_ir
    assert "add nsw i64" in ir
    assert "mul nuw nsw i64" in ir
    assert "sub i64" in ir


def test_cf_switch_and_assert() -> None:
    text = """
func.func @f(%x: i32, %y: i64) -> i64 {
  %ok = arith.constant true
  cf.assert %ok, "always holds"
  cf.switch %x : i32, [
    default: ^other(%y : i64),
    1: ^one,
    5: ^other(%y : i64),
    7: ^seven
  ]
^one:
  %c10 = arith.constant 10 : i64
  return %c10 : i64
^seven:
  %c70 = arith.constant 70 : i64
  return %c70 : i64
^other(%v: i64):
  %two = arith.constant 2 : i64
  %w = arith.muli %v, %two : i64
  return %w : i64
}
"""
    call, lowered = jit(text, "f")
    assert [call(1, 3), call(5, 3), call(7, 3), call(9, 4)] == [10, 6, 70, 8]
    assert "call void @llvm.trap()" in lowered.llvm_ir
    assert "unreachable" in lowered.llvm_ir
