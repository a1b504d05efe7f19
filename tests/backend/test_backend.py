"""Tests of xlinalg.backend on hand-written LLVM IR that follows the ABI in abi.py."""

from __future__ import annotations

import time

import llvmlite.binding as llvm
import numpy as np
import pytest
from xdsl.parser import Parser

import xlinalg
import xlinalg.backend.jit as jit_module
from xlinalg.backend.elf import undefined_symbols
from xlinalg.backend.jit import JitModule
from xlinalg.backend.peak import measure_fma_peak_gflops
from xlinalg.backend.timing import Timing, time_native
from xlinalg.dialects.context import make_context
from xlinalg.errors import BackendError
from xlinalg.host import host_info, host_target_machine
from xlinalg.lowering.abi import FunctionSignature, LoweredModule, MemRefArg, ScalarArg
from xlinalg.lowering.to_llvm.written_args import written_memref_args

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
F16 = np.dtype(np.float16)
I64 = np.dtype(np.int64)
I32 = np.dtype(np.int32)

# C[i, j] += A[i, j] * 2 on two strided 2-D memrefs (descriptor: alloc, aligned, offset, sizes, strides).
SCALE_ADD_IR = r"""
define void @scale_add(ptr %a_alloc, ptr %a, i64 %a_off, i64 %a_s0, i64 %a_s1, i64 %a_st0, i64 %a_st1,
                       ptr %c_alloc, ptr %c, i64 %c_off, i64 %c_s0, i64 %c_s1, i64 %c_st0, i64 %c_st1) {
entry:
  %ne0 = icmp sgt i64 %a_s0, 0
  %ne1 = icmp sgt i64 %a_s1, 0
  %ne = and i1 %ne0, %ne1
  br i1 %ne, label %outer, label %exit
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %ai0 = mul i64 %i, %a_st0
  %aj = mul i64 %j, %a_st1
  %ai1 = add i64 %ai0, %aj
  %ai = add i64 %ai1, %a_off
  %ap = getelementptr float, ptr %a, i64 %ai
  %av = load float, ptr %ap, align 4
  %ci0 = mul i64 %i, %c_st0
  %cj = mul i64 %j, %c_st1
  %ci1 = add i64 %ci0, %cj
  %ci = add i64 %ci1, %c_off
  %cp = getelementptr float, ptr %c, i64 %ci
  %cv = load float, ptr %cp, align 4
  %m = fmul float %av, 2.0
  %s = fadd float %cv, %m
  store float %s, ptr %cp, align 4
  %j.next = add i64 %j, 1
  %jd = icmp eq i64 %j.next, %a_s1
  br i1 %jd, label %latch, label %inner
latch:
  %i.next = add i64 %i, 1
  %id = icmp eq i64 %i.next, %a_s0
  br i1 %id, label %exit, label %outer
exit:
  ret void
}
"""

# Sum of a strided 1-D f64 memref, returned as a scalar (reads memory only).
SUM_IR = r"""
define double @sum(ptr %alloc, ptr %x, i64 %off, i64 %n, i64 %st) {
entry:
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %k0 = mul i64 %i, %st
  %k = add i64 %k0, %off
  %p = getelementptr double, ptr %x, i64 %k
  %v = load double, ptr %p, align 8
  %acc.next = fadd double %acc, %v
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  ret double %r
}
"""

# counter[0] += 1 on a memref<1xi64>.
BUMP_IR = r"""
define void @bump(ptr %alloc, ptr %c, i64 %off, i64 %n, i64 %st) {
  %p = getelementptr i64, ptr %c, i64 %off
  %v = load i64, ptr %p, align 8
  %w = add i64 %v, 1
  store i64 %w, ptr %p, align 8
  ret void
}
"""

# y[i] = alpha * expf(x[i]) + k on 1-D f32 memrefs; scalars f32 and i32; calls libm.
EXP_IR = r"""
declare float @expf(float)
define void @scaled_exp(float %alpha, ptr %xa, ptr %x, i64 %xo, i64 %n, i64 %xs,
                        ptr %ya, ptr %y, i64 %yo, i64 %yn, i64 %ys, i32 %k) {
entry:
  %kf = sitofp i32 %k to float
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %xi0 = mul i64 %i, %xs
  %xi = add i64 %xi0, %xo
  %xp = getelementptr float, ptr %x, i64 %xi
  %xv = load float, ptr %xp, align 4
  %e = call float @expf(float %xv)
  %m = fmul float %e, %alpha
  %r = fadd float %m, %kf
  %yi0 = mul i64 %i, %ys
  %yi = add i64 %yi0, %yo
  %yp = getelementptr float, ptr %y, i64 %yi
  store float %r, ptr %yp, align 4
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
"""

# f16 scalars in and out: fill a 0-d memref<f16> with v, return v * 2.
F16_IR = r"""
define half @fill_twice(ptr %a, ptr %p, i64 %off, half %v) {
  %q = getelementptr half, ptr %p, i64 %off
  store half %v, ptr %q, align 2
  %r = fmul half %v, 2.0
  ret half %r
}
"""

# memref<?x?xf32, strided<[?, ?], offset: ?>>: any view.
STRIDED_2D = MemRefArg(F32, (None, None), strides=(None, None))
SCALE_ADD_SIG = FunctionSignature("scale_add", (STRIDED_2D, STRIDED_2D))
SUM_SIG = FunctionSignature("sum", (MemRefArg(F64, (None,), strides=(None,)),), ScalarArg(F64))
BUMP_SIG = FunctionSignature("bump", (MemRefArg(I64, (1,)),))
EXP_SIG = FunctionSignature(
    "scaled_exp",
    (ScalarArg(F32), MemRefArg(F32, (None,)), MemRefArg(F32, (None,), (None,)), ScalarArg(I32)),
)
F16_SIG = FunctionSignature("fill_twice", (MemRefArg(F16, ()), ScalarArg(F16)), ScalarArg(F16))


def _jit(ir: str, *sigs: FunctionSignature) -> JitModule:
    return JitModule(LoweredModule(ir, {s.name: s for s in sigs}))


@pytest.fixture(scope="module")
def kernels() -> JitModule:
    ir = SCALE_ADD_IR + SUM_IR + BUMP_IR + EXP_IR + F16_IR
    return _jit(ir, SCALE_ADD_SIG, SUM_SIG, BUMP_SIG, EXP_SIG, F16_SIG)


def test_compile_records_time_and_functions(kernels: JitModule) -> None:
    assert 0 < kernels.compile_seconds < 10
    assert set(kernels.function_names) == {"scale_add", "sum", "bump", "scaled_exp", "fill_twice"}
    with pytest.raises(BackendError, match="no function 'nope'"):
        kernels.function("nope")


def test_contiguous(kernels: JitModule) -> None:
    f = kernels.function("scale_add")
    rng = np.random.default_rng(0)
    a = rng.random((6, 9), dtype=np.float32)
    c = rng.random((6, 9), dtype=np.float32)
    expected = c + 2 * a
    assert f(a, c) is None
    np.testing.assert_allclose(c, expected, rtol=1e-6)


def test_transposed_and_sliced_views(kernels: JitModule) -> None:
    f = kernels.function("scale_add")
    rng = np.random.default_rng(1)
    a = rng.random((9, 6), dtype=np.float32).T  # transposed: strides (1, 6)
    c_base = np.zeros((12, 20), dtype=np.float32)
    c = c_base[::2, 1:10]  # sliced: offset data pointer, strides (40, 1)
    f(a, c)
    np.testing.assert_allclose(c, 2 * a, rtol=1e-6)
    # Only the view was written.
    mask = np.ones_like(c_base, dtype=bool)
    mask[::2, 1:10] = False
    assert not c_base[mask].any()
    # Negative strides (reversed views) on both sides.
    a2 = rng.random((7, 10), dtype=np.float32)[::-1, ::-2]
    c2 = np.ones((7, 5), dtype=np.float32)[:, ::-1]
    f(a2, c2)
    np.testing.assert_allclose(c2, 1 + 2 * a2, rtol=1e-6)


def test_scalar_result_on_views(kernels: JitModule) -> None:
    f = kernels.function("sum")
    x = np.arange(100, dtype=np.float64)
    assert f(x) == pytest.approx(x.sum())
    assert f(x[::-3]) == pytest.approx(x[::-3].sum())
    assert f(x[5:5]) == 0.0
    assert isinstance(f(x), np.float64)


def test_scalar_arguments_and_libm(kernels: JitModule) -> None:
    f = kernels.function("scaled_exp")
    x = np.linspace(-2, 2, 32, dtype=np.float32)
    y = np.zeros(64, dtype=np.float32)[::2]
    f(0.5, x, y, 3)
    np.testing.assert_allclose(y, 0.5 * np.exp(x) + 3, rtol=1e-6)
    f(np.float32(2), x, y, np.int32(-1))
    np.testing.assert_allclose(y, 2 * np.exp(x) - 1, rtol=1e-6)


def test_f16_scalars(kernels: JitModule) -> None:
    f = kernels.function("fill_twice")
    a = np.zeros((), dtype=np.float16)
    r = f(a, 1.5)
    assert a[()] == np.float16(1.5)
    assert r == np.float16(3.0)
    assert r.dtype == np.float16


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((np.zeros((2, 2), np.float32),), r"takes 2 arguments, got 1"),
        (
            (np.zeros((2, 2), np.float64), np.zeros((2, 2), np.float32)),
            r"argument 0: expected dtype float32, got float64",
        ),
        (
            (np.zeros((2, 2), np.float32), np.zeros(4, np.float32)),
            r"argument 1: expected rank 2 .*got rank 1",
        ),
        (
            ([[1.0]], np.zeros((1, 1), np.float32)),
            r"argument 0: expected a numpy.ndarray, got list",
        ),
    ],
)
def test_argument_mismatch(kernels: JitModule, args: tuple[object, ...], message: str) -> None:
    with pytest.raises(BackendError, match=message):
        kernels.function("scale_add")(*args)


def test_static_shape_and_stride_checks() -> None:
    sig = FunctionSignature(
        "scale_add", (MemRefArg(F32, (4, None), strides=(8, 1)), MemRefArg(F32, (4, 8)))
    )
    f = _jit(SCALE_ADD_IR, sig).function("scale_add")
    a = np.ones((4, 8), np.float32)
    c = np.zeros((4, 8), np.float32)
    f(a, c)
    np.testing.assert_allclose(c, 2.0)
    with pytest.raises(BackendError, match=r"argument 1: dim 1 must be 8"):
        f(a, np.zeros((4, 9), np.float32))
    with pytest.raises(
        BackendError, match=r"argument 0: stride of dim 0 must be 8 elements, got 1"
    ):
        f(np.ones((8, 4), np.float32).T, c)


def test_identity_layout_needs_contiguous_arrays() -> None:
    identity = MemRefArg(F32, (None, None))  # memref<?x?xf32>
    f = _jit(SCALE_ADD_IR, FunctionSignature("scale_add", (identity, STRIDED_2D))).function(
        "scale_add"
    )
    c = np.zeros((3, 4), np.float32)
    f(np.ones((3, 4), np.float32), c)
    f(np.ones((6, 4), np.float32)[:3], c)  # a contiguous slice is fine
    f(np.ones((1, 4), np.float32), c[:1])  # size-1 dims may have any stride
    np.testing.assert_allclose(c, [[6] * 4, [4] * 4, [4] * 4])
    for view in (np.ones((4, 3), np.float32).T, np.ones((3, 8), np.float32)[:, ::2]):
        with pytest.raises(BackendError, match=r"argument 0: .*identity layout.*C-contiguous"):
            f(view, c)


def test_scalar_and_alignment_errors(kernels: JitModule) -> None:
    f = kernels.function("scaled_exp")
    x = np.zeros(4, np.float32)
    with pytest.raises(BackendError, match=r"argument 3: 4294967296 does not fit in int32"):
        f(1.0, x, x, 2**32)
    with pytest.raises(BackendError, match=r"argument 3: expected an integer \(int32\), got float"):
        f(1.0, x, x, 1.5)
    with pytest.raises(BackendError, match=r"argument 0: expected a float32 scalar, got str"):
        f("1", x, x, 1)
    misaligned = np.frombuffer(bytearray(20), dtype=np.float32, count=4, offset=1)
    with pytest.raises(BackendError, match=r"argument 1: data pointer is not aligned"):
        f(1.0, misaligned, x, 1)


def test_repeat_wrapper_runs_n_times(kernels: JitModule) -> None:
    f = kernels.function("bump")
    counter = np.zeros(1, np.int64)
    f.repeat(7, counter)
    assert counter[0] == 7
    f.repeat(0, counter)
    assert counter[0] == 7
    f(counter)
    assert counter[0] == 8
    asm = kernels.asm("__xlinalg_repeat_bump")
    assert "call" in asm  # the kernel is called, not inlined or folded into one add


def test_repeat_of_read_only_kernel_is_not_hoisted(kernels: JitModule) -> None:
    # `sum` only reads memory: without care LLVM could call it once for all n.
    f = kernels.function("sum")
    prepared = f.prepare(np.ones(4096, np.float64))

    def run(n: int) -> float:
        # CPU time of this thread (the calls run on it): time spent descheduled on a loaded
        # machine does not count, so a short run cannot look as long as a long one.
        start = time.thread_time()
        f.repeat_prepared(prepared, n)
        return time.thread_time() - start

    run(10)
    short = min(run(100) for _ in range(5))
    long = min(run(2000) for _ in range(5))
    assert long > 5 * short  # 20x the calls (one call for all would be about equal)


def test_disallowed_symbol_rejected() -> None:
    ir = r"""
declare i32 @system(ptr)
@cmd = private constant [3 x i8] c"ls\00"
define void @evil(ptr %a, ptr %p, i64 %off, i64 %n, i64 %s) {
  %r = call i32 @system(ptr @cmd)
  ret void
}
"""
    sig = FunctionSignature("evil", (MemRefArg(F32, (None,)),))
    with pytest.raises(BackendError, match=r"'system'"):
        _jit(ir, sig)


@pytest.mark.parametrize(
    ("ir", "message"),
    [
        (
            'define void @f() {\n  call void asm sideeffect "nop", ""()\n  ret void\n}',
            "inline assembly",
        ),
        (
            "declare float @llvm.not.an.intrinsic(float)\ndefine void @f() {\n  ret void\n}",
            "not a known LLVM intrinsic",
        ),
        (
            "@environ = external global ptr\ndefine void @f() {\n  ret void\n}",
            "external global variable 'environ'",
        ),
        (
            "define void @f() {\n  %p = inttoptr i64 4096 to ptr\n  call void %p()\n  ret void\n}",
            "indirect call",
        ),
        ('module asm "nop"\ndefine void @f() {\n  ret void\n}', "module-level assembly"),
        ("define void @f() {\n  ret i32 0\n}", "invalid LLVM IR"),
    ],
)
def test_unsafe_or_invalid_modules_rejected(ir: str, message: str) -> None:
    with pytest.raises(BackendError, match=message):
        _jit(ir, FunctionSignature("f", ()))


POWI_IR = r"""
declare float @llvm.powi.f32.i32(float, i32)
define float @powi(float %x, i32 %n) {
  %r = call float @llvm.powi.f32.i32(float %x, i32 %n)
  ret float %r
}
"""
POWI_SIG = FunctionSignature("powi", (ScalarArg(F32), ScalarArg(I32)), ScalarArg(F32))


def test_codegen_runtime_helpers_are_linked() -> None:
    # llvm.powi becomes a call to libgcc's __powisf2, which the IR never names.
    jit = _jit(POWI_IR, POWI_SIG)
    assert "__powisf2" in jit.asm("powi")
    assert jit.function("powi")(2.0, 10) == 1024.0
    assert jit.function("powi")(2.0, -2) == 0.25


def test_object_undefined_symbols() -> None:
    module = llvm.parse_assembly(POWI_IR + EXP_IR)
    obj = host_target_machine().emit_object(module)
    assert sorted(undefined_symbols(obj) or []) == ["__powisf2", "expf"]
    assert undefined_symbols(b"not an object") is None


def test_unresolvable_machine_code_symbol_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jit_module, "resolve_object_symbols", list)
    with pytest.raises(BackendError, match=r"cannot be resolved: __powisf2"):
        _jit(POWI_IR, POWI_SIG)


def test_signature_must_match_module() -> None:
    with pytest.raises(
        BackendError,
        match=r"requires void \(ptr, ptr, i64, i64, i64, i64, i64, ptr, ptr, i64, i64, i64\)",
    ):
        _jit(
            SCALE_ADD_IR,
            FunctionSignature("scale_add", (MemRefArg(F32, (None, None)), MemRefArg(F32, (None,)))),
        )
    with pytest.raises(BackendError, match=r"'missing' of the signature is not in the module"):
        _jit(SCALE_ADD_IR, FunctionSignature("missing", ()))


def test_time_native(kernels: JitModule) -> None:
    f = kernels.function("bump")
    counter = np.zeros(1, np.int64)
    t = time_native(f, counter, max_total_s=0.3)
    assert isinstance(t, Timing)
    assert 0 < t.min_s <= t.median_s < 1e-3
    assert t.cv >= 0
    assert 5 <= t.repeats <= 200
    assert len(t.samples) == t.repeats
    assert t.inner_loops > 1  # a tiny kernel is looped in native code
    # Every sample ran inner_loops calls, plus warm-up and calibration.
    assert counter[0] >= t.repeats * t.inner_loops + 1


def test_time_native_stopping_rules(kernels: JitModule) -> None:
    f = kernels.function("sum")
    x = np.ones(10_000, np.float64)
    # No budget: exactly the minimum number of samples.
    t = time_native(f, x, max_total_s=0.0, min_repeats=3, min_sample_s=0.0005)
    assert t.repeats == 3
    # An unreachable CV target: stops at max_repeats.
    t = time_native(f, x, target_cv=0.0, max_repeats=7, max_total_s=10.0, min_sample_s=0.0005)
    assert t.repeats == 7
    assert t.median_s == pytest.approx(float(np.median(t.samples)))
    assert t.min_s == min(t.samples)
    with pytest.raises(ValueError, match="min_repeats <= max_repeats"):
        time_native(f, x, min_repeats=5, max_repeats=4)
    # A single sample is settled (it used to take the median of no earlier samples).
    t = time_native(f, x, min_repeats=1, max_repeats=1, min_sample_s=0.0005)
    assert t.repeats == 1
    assert t.median_s == t.min_s > 0
    t = time_native(f, x, min_repeats=1, max_repeats=3, max_total_s=0.0, min_sample_s=0.0005)
    assert t.repeats == 1


def test_time_native_scales_with_work(kernels: JitModule) -> None:
    f = kernels.function("sum")
    small = time_native(f, np.ones(1000, np.float64), max_total_s=0.2)
    big = time_native(f, np.ones(100_000, np.float64), max_total_s=0.2)
    assert big.median_s > 20 * small.median_s
    assert big.inner_loops < small.inner_loops


def test_host_info() -> None:
    info = host_info()
    for key in (
        "cpu_model",
        "llvm_cpu",
        "llvm_features",
        "cores",
        "llvmlite_version",
        "llvm_version",
    ):
        assert info[key]
    assert info["llvm_version"].startswith(
        str(__import__("llvmlite.binding").binding.llvm_version_info[0])
    )
    assert host_target_machine() is host_target_machine()


@pytest.mark.perf
def test_fma_peak() -> None:
    peak = measure_fma_peak_gflops()
    peak64 = measure_fma_peak_gflops(np.float64, max_total_s=0.2)
    print(f"single-core FMA peak: {peak:.1f} GFLOP/s float32, {peak64:.1f} GFLOP/s float64")
    assert 0 < peak < 1e4
    assert 0 < peak64 < 1e4
    with pytest.raises(ValueError, match="float32 or float64, not int32"):
        measure_fma_peak_gflops(np.int32)


def test_names_that_need_quoting() -> None:
    ir = 'define i64 @"add-one"(i64 %x) {\n  %r = add i64 %x, 1\n  ret i64 %r\n}\n'
    sig = FunctionSignature("add-one", (ScalarArg(I64),), ScalarArg(I64))
    jit = _jit(ir, sig)
    f = jit.function("add-one")
    assert f(41) == 42
    f.repeat(3, 0)
    assert "add-one" in jit.asm("add-one")


def test_empty_array_with_zero_strides_is_accepted() -> None:
    """NumPy gives some empty arrays zero strides; an empty array is never indexed."""
    k = xlinalg.compile("""
    func.func @f(%a: memref<?x3xf32>, %b: memref<?x3xf32>) {
      linalg.copy ins(%a : memref<?x3xf32>) outs(%b : memref<?x3xf32>)
      return
    }""")
    a = np.random.rand(0, 3).astype(np.float32)
    b = np.empty((0, 3), np.float32)
    k(a, b)
    assert b.shape == (0, 3)


# ----------------------------------------------------------------- overlap check + noalias

OVERLAP_PAYLOAD = """
func.func @axpy(%x: memref<?xf32, strided<[?]>>, %y: memref<?xf32, strided<[?]>>, %out: memref<?xf32, strided<[?]>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %out, %c0 : memref<?xf32, strided<[?]>>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32, strided<[?]>>
    %b = memref.load %y[%i] : memref<?xf32, strided<[?]>>
    %s = arith.addf %a, %b : f32
    memref.store %s, %out[%i] : memref<?xf32, strided<[?]>>
  }
  return
}
"""


@pytest.fixture(scope="module")
def axpy():
    return xlinalg.compile(OVERLAP_PAYLOAD)


def test_written_arguments_are_known(axpy) -> None:
    assert [a.written for a in axpy.signature.args] == [False, False, True]


def test_entry_function_memref_pointers_are_noalias(axpy) -> None:
    define = next(line for line in axpy.lowered.llvm_ir.splitlines() if line.startswith("define"))
    assert define.count("ptr noalias") == 3  # the aligned pointer of each memref
    assert define.count("ptr %") == 3  # the allocated pointers stay plain


def test_overlapping_written_argument_is_rejected(axpy) -> None:
    x = np.arange(8, dtype=np.float32)
    with pytest.raises(
        BackendError, match="arguments 0 and 2 share memory and the kernel writes argument 2"
    ):
        axpy(x, np.ones(8, np.float32), x)
    buf = np.zeros(12, np.float32)
    with pytest.raises(BackendError, match="share memory"):
        axpy(buf[:8], np.ones(8, np.float32), buf[4:])  # partial overlap
    with pytest.raises(BackendError, match="arguments 1 and 2 share memory"):
        axpy(x, buf[:8], buf[7::-1])  # reversed view of the same elements


def test_read_only_and_disjoint_overlap_are_allowed(axpy) -> None:
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    axpy(x, x, out)  # the same array twice, only read
    np.testing.assert_array_equal(out, 2 * x)
    buf = np.zeros(16, np.float32)
    axpy(x, x, buf[::2])  # interleaved views: bounds overlap, no element shared
    axpy(buf[::2], x, buf[1::2])
    np.testing.assert_array_equal(buf[::2], 2 * x)
    np.testing.assert_array_equal(buf[1::2], 3 * x)


def test_written_analysis_sees_through_views_and_calls() -> None:
    module = Parser(
        make_context(),
        """
func.func private @ext(memref<4xf32>)
func.func @f(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<4xf32>, %d: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.subview %a[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  %x = memref.load %b[%c0] : memref<8xf32>
  memref.store %x, %v[%c0] : memref<4xf32, strided<[1], offset: 2>>
  func.call @ext(%c) : (memref<4xf32>) -> ()
  %y = memref.load %d[%c0] : memref<8xf32>
  return
}
""",
    ).parse_module()
    f = next(op for op in module.ops if getattr(op, "sym_name", None) and op.sym_name.data == "f")
    assert written_memref_args(f) == (True, False, True, False)
