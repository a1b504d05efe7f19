"""Direct kernel calls planned per argument signature (`xlinalg/backend/call.py` `_CallPlan`,
`frame.py`, `data_pointer.py`): same results as NumPy, and every check of the full path
still applies once a plan exists."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.backend import call, data_pointer, frame
from xlinalg.errors import BackendError

from support import load_script, run_in_threads

MATMUL = """
func.func @mm(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}
"""

# Any view (strided layout, dynamic sizes), a scalar of each kind, a scalar result.
AXPY = """
func.func @axpy(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>, %y: memref<?x?xf32, strided<[?, ?], offset: ?>>,
                %alpha: f32, %k: i32) -> f32 {
  %kf = arith.sitofp %k : i32 to f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xf32, strided<[?, ?], offset: ?>>) outs(%y : memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %alpha : f32
    %s = arith.addf %m, %b : f32
    %t = arith.addf %s, %kf : f32
    linalg.yield %t : f32
  }
  %r = arith.mulf %alpha, %kf : f32
  return %r : f32
}
"""

ADD_TENSORS = """
func.func @add(%a: tensor<4x8xf32>, %b: tensor<?xf32>) -> (tensor<4x8xf32>, tensor<?xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.add ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %b, %c0 : tensor<?xf32>
  %f = tensor.empty(%n) : tensor<?xf32>
  %s = linalg.add ins(%b, %b : tensor<?xf32>, tensor<?xf32>) outs(%f : tensor<?xf32>) -> tensor<?xf32>
  return %r, %s : tensor<4x8xf32>, tensor<?xf32>
}
"""


@pytest.fixture(scope="module")
def matmul() -> xlinalg.Kernel:
    return xlinalg.compile(MATMUL)


@pytest.fixture(scope="module")
def axpy() -> xlinalg.Kernel:
    return xlinalg.compile(AXPY)


def _arrays(seed: int, *shapes: tuple[int, ...]) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def test_data_pointer_is_the_arrays_data() -> None:
    base = np.arange(60, dtype=np.float32).reshape(6, 10)
    for a in (base, base[1:, 2:], base[::-1, ::3], base.T, np.zeros(0), np.full((), 1.0)):
        assert data_pointer.data_pointer(a) == a.ctypes.data
    # This machine is 64-bit CPython: the fast read is in use.
    assert data_pointer.MEMORY is not None


def test_calls_in_a_loop_match_numpy(matmul: xlinalg.Kernel) -> None:
    for seed in range(20):
        a, b = _arrays(seed, (8, 8), (8, 8))
        c = np.ones((8, 8), np.float32)
        matmul(a, b, c)
        np.testing.assert_allclose(c, 1 + a @ b, rtol=1e-5, atol=1e-5)
    assert len(matmul._fn._plans) == 1  # one argument signature: one plan


def test_each_signature_has_its_plan_and_views_work(axpy: xlinalg.Kernel) -> None:
    fn = axpy._fn
    base_x, base_y = _arrays(1, (9, 12), (9, 12))
    views = [
        (base_x, base_y.copy()),
        (base_x[1:, ::2], base_y[1:, ::2].copy()),
        (base_x.T, np.ascontiguousarray(base_y.T)),
        (base_x[::-1, 3:7], base_y[::-1, 3:7].copy()),
    ]
    for _ in range(3):  # alternate between the signatures
        for x, y in views:
            y_before = y.copy()
            r = axpy(x, y, 2.0, 3)
            np.testing.assert_allclose(y, x * 2 + y_before + 3, rtol=1e-6)
            assert r == np.float32(6.0)
            assert isinstance(r, np.float32)
    assert len(fn._plans) == len(views)
    # Scalars of other Python / NumPy types take the checked conversion.
    x, y = views[0]
    y_before = y.copy()
    assert axpy(x, y, np.float32(0.5), np.int8(-2)) == np.float32(-1.0)
    np.testing.assert_allclose(y, x * 0.5 + y_before - 2, rtol=1e-6)


def test_bad_arguments_give_the_same_errors_after_a_plan(
    matmul: xlinalg.Kernel, axpy: xlinalg.Kernel
) -> None:
    a, b = _arrays(0, (8, 8), (8, 8))
    c = np.zeros((8, 8), np.float32)
    matmul(a, b, c)  # the plan exists now
    cases = [
        ((a.astype(np.float64), b, c), "argument 0: expected dtype float32, got float64"),
        ((a, b[:, :4].copy(), c), r"argument 1: dim 1 must be 8"),
        ((a, b, c[None]), r"argument 2: expected rank 2"),
        ((a.T, b, c), r"argument 0: .*identity layout.*C-contiguous"),
        ((a, b), r"'mm' takes 3 arguments, got 2"),
        ((a, b, c, c), r"'mm' takes 3 arguments, got 4"),
        ((a, [[1.0]], c), r"argument 1: expected a numpy.ndarray, got list"),
        ((a, np.float32(1.0), c), r"argument 1: expected a numpy.ndarray, got float32"),
        ((a, b, a), r"arguments 0 and 2 share memory and the kernel writes argument 2"),
    ]
    for args, message in cases:
        with pytest.raises(BackendError, match=message):
            matmul(*args)
    read_only = c.copy()
    read_only.flags.writeable = False
    with pytest.raises(
        BackendError, match=r"argument 2: the array is read-only and the kernel writes"
    ):
        matmul(a, b, read_only)
    frozen_a = a.copy()
    frozen_a.flags.writeable = False  # an input the kernel only reads may be read-only
    matmul(frozen_a, b, c)
    # Misaligned data: a float32 view one byte into a buffer.
    raw = np.zeros(8 * 8 * 4 + 4, np.uint8)
    misaligned = raw[1 : 1 + 8 * 8 * 4].view(np.float32).reshape(8, 8)
    with pytest.raises(BackendError, match=r"argument 0: data pointer is not aligned"):
        matmul(misaligned, b, c)
    # Scalars are checked on every call.
    x, y = _arrays(2, (3, 4), (3, 4))
    axpy(x, y, 1.0, 1)
    with pytest.raises(BackendError, match=r"argument 3: 4294967296 does not fit in int32"):
        axpy(x, y, 1.0, 2**32)
    with pytest.raises(BackendError, match=r"argument 3: expected an integer \(int32\), got float"):
        axpy(x, y, 1.0, 1.5)
    with pytest.raises(BackendError, match=r"argument 2: expected a float32 scalar, got str"):
        axpy(x, y, "1", 1)
    # After all the errors the plan still computes right.
    c[...] = 0
    matmul(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_overlapping_bounds_without_shared_memory_are_allowed(axpy: xlinalg.Kernel) -> None:
    """Even and odd columns of one array: bounds overlap, memory does not (`shares_memory`)."""
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    want = base.copy()
    want[:, 1::2] += base[:, 0::2] * 2 + 1
    for _ in range(2):  # the second call has a plan: its bounds test defers to the full check
        got = base.copy()
        axpy(got[:, 0::2], got[:, 1::2], 2.0, 1)
        np.testing.assert_allclose(got, want)


def test_tensor_results_are_new_arrays_each_call() -> None:
    kernel = xlinalg.compile(ADD_TENSORS)
    seen = []
    for n in (5, 5, 3):
        a, b = _arrays(n, (4, 8), (n,))
        r, s = kernel(a, b)
        np.testing.assert_allclose(r, a + a)
        np.testing.assert_allclose(s, b + b)
        seen.append(r)
    assert seen[0] is not seen[1]
    assert not np.shares_memory(seen[0], seen[1])
    np.testing.assert_allclose(seen[0], 2 * _arrays(5, (4, 8), (5,))[0])


def test_several_python_threads_share_a_kernel(matmul: xlinalg.Kernel) -> None:
    def work(seed: int) -> None:
        for k in range(200):
            a, b = _arrays(seed * 1000 + k, (8, 8), (8, 8))
            c = np.zeros((8, 8), np.float32)
            matmul(a, b, c)
            np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)

    run_in_threads(work, 4)


def test_without_the_fast_data_pointer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(data_pointer, "MEMORY", None)
    monkeypatch.setattr(call, "MEMORY", None)
    kernel = xlinalg.compile(MATMUL)
    a, b = _arrays(3, (8, 8), (8, 8))
    c = np.zeros((8, 8), np.float32)
    kernel(a, b, c)
    kernel(a, b, c)
    np.testing.assert_allclose(c, 2 * (a @ b), rtol=1e-5, atol=1e-5)
    plan = next(iter(kernel._fn._plans.values()))
    assert "data_pointer(a0)" in plan.source
    assert "memory[" not in plan.source


def test_plans_are_bounded() -> None:
    kernel = xlinalg.compile(AXPY)
    for n in range(1, call._PLANS_KEPT + 6):
        x, y = _arrays(n, (1, n), (1, n))
        y_before = y.copy()
        kernel(x, y, 1.0, 0)
        np.testing.assert_allclose(y, x + y_before)
    assert 1 <= len(kernel._fn._plans) <= call._PLANS_KEPT


def test_frame_wrapper_keeps_the_kernel_out_of_line(matmul: xlinalg.Kernel) -> None:
    """The frame wrapper only loads the parameters and calls the kernel (no second copy of it)."""
    ir = matmul._jit.optimized_ir
    start = ir.index("@__xlinalg_frame_mm(")
    wrapper = ir[start : ir.index("\n}", start)]
    assert "call void @mm(" in wrapper
    assert "fmul" not in wrapper
    assert "fma" not in wrapper


def test_the_frame_is_laid_out_once_per_signature() -> None:
    """The frame wrapper's IR and the kernel's call share one `Frame` class, and so do two
    compiles of one signature (a study's trials); both compiles still compute `x + y`."""
    frame.frame_layout.cache_clear()
    first, second = xlinalg.compile(AXPY), xlinalg.compile(AXPY)
    info = frame.frame_layout.cache_info()
    assert (info.misses, info.currsize) == (1, 1)
    assert info.hits == 3
    assert first._fn._layout is second._fn._layout
    for kernel in (first, second):
        x, y = _arrays(3, (5, 7), (5, 7))
        y_before = y.copy()
        assert kernel(x, y, 2.0, 1) == 2.0
        np.testing.assert_allclose(y, 2 * x + y_before + 1, rtol=1e-6)


def test_bench_call_overhead_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """The overhead bench (`scripts/bench_call_overhead.py`) runs and checks its kernel."""
    bench_call_overhead = load_script("bench_call_overhead")

    assert bench_call_overhead.main(["--rounds", "1", "--calls", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[1:]] == [
        "direct",
        "checked",
        "repeat1",
        "ctypes",
        "native",
        "overhead",
    ]


def test_bool_f16_and_no_arguments_through_the_frame() -> None:
    """i1 (a C bool byte in the frame) and f16 (its bit pattern) scalars and results; a
    function without arguments."""
    negate = xlinalg.compile("""
func.func @negate(%c: i1) -> i1 {
  %t = arith.constant true
  %x = arith.xori %c, %t : i1
  return %x : i1
}""")
    for value in (True, False, np.bool_(True), 1, 0):
        assert negate(value) == np.bool_(not value)
    with pytest.raises(BackendError, match=r"argument 0: expected a bool, got 2"):
        negate(2)
    half = xlinalg.compile("""
func.func @twice(%x: f16, %m: memref<4xf16>) -> f16 {
  %c0 = arith.constant 0 : index
  memref.store %x, %m[%c0] : memref<4xf16>
  %y = arith.addf %x, %x : f16
  return %y : f16
}""")
    m = np.zeros(4, np.float16)
    for value in (1.5, np.float16(-2.5), 0.1):
        r = half(value, m)
        assert r.dtype == np.float16
        assert r == np.float16(value) * 2
        assert m[0] == np.float16(value)
    seven = xlinalg.compile("""
func.func @seven() -> i32 {
  %r = arith.constant 7 : i32
  return %r : i32
}""")
    assert seven() == seven() == np.int32(7)
