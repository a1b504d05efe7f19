"""`scf.forall` on native threads (`xlinalg/lowering/forall_to_threads.py`): every
iteration runs exactly once, more than one OS thread really runs, results equal the
1-thread kernel, nested foralls, dynamic trip counts, repeated calls, fork safety."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import xlinalg
from xlinalg.lowering.forall_to_threads import host_cores

ROOT = Path(__file__).resolve().parent.parent

# Each iteration i writes row i with i + 1 (and adds into it, so a row run twice shows).
ROWS = """
func.func @rows(%out: memref<{n}x16xf32>, %ub: index) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.forall (%i) = (0) to (%ub) step (1) {{
    %i64 = arith.index_cast %i : index to i64
    %f = arith.sitofp %i64 : i64 to f32
    %v = arith.addf %f, %one : f32
    scf.for %j = %c0 to %c16 step %c1 {{
      %old = memref.load %out[%i, %j] : memref<{n}x16xf32>
      %new = arith.addf %old, %v : f32
      memref.store %new, %out[%i, %j] : memref<{n}x16xf32>
    }}
  }}
  return
}}
"""


def _tasks() -> int:
    return len(os.listdir("/proc/self/task"))


def _settled_tasks(expected: int) -> int:
    """The thread count once exited threads are gone (a joined Python thread's OS thread
    may still be finishing when `join` returns)."""
    deadline = time.monotonic() + 2.0
    while _tasks() > expected and time.monotonic() < deadline:
        time.sleep(0.01)
    return _tasks()


@pytest.mark.parametrize("ub", [0, 1, 2, 3, 64])
def test_every_iteration_runs_once(ub: int) -> None:
    kernel = xlinalg.compile(ROWS.format(n=64))
    out = np.zeros((64, 16), np.float32)
    kernel(out, ub)
    expected = np.zeros((64, 16), np.float32)
    expected[:ub] = np.arange(1, ub + 1, dtype=np.float32)[:, None]
    np.testing.assert_array_equal(out, expected)
    assert "pthread_create" in kernel.lowered.llvm_ir


SPIN = """
func.func @spin(%out: memref<2xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.999999 : f32
  scf.forall (%i) in (2) {
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %one) -> (f32) {
      %m = arith.mulf %acc, %half : f32
      %a = arith.addf %m, %one : f32
      scf.yield %a : f32
    }
    memref.store %r, %out[%i] : memref<2xf32>
  }
  return
}
"""


@pytest.mark.skipif(host_cores() < 2, reason="one CPU: a forall gets one worker")
def test_more_than_one_os_thread_runs() -> None:
    kernel = xlinalg.compile(SPIN)
    out = np.zeros(2, np.float32)
    before = _tasks()
    seen = [0]
    done = threading.Event()

    def call() -> None:
        kernel(out, 60_000_000)  # ~0.1-0.3 s per iteration; ctypes releases the GIL
        done.set()

    runner = threading.Thread(target=call)
    runner.start()
    while not done.is_set():
        seen[0] = max(seen[0], _tasks())
        time.sleep(0.0005)
    runner.join()
    # main + runner (+ the worker the kernel started)
    assert seen[0] >= before + 2, (before, seen[0])
    assert out[0] == out[1] != 0
    assert _settled_tasks(before) == before  # workers are joined before the call returns


def _parallel_matmul(m: int, n: int, k: int, threads: int, dim: int) -> xlinalg.Kernel:
    payload = f"""
func.func @matmul(%A: memref<{m}x{k}xf32>, %B: memref<{k}x{n}xf32>, %C: memref<{m}x{n}xf32>) {{
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<{m}x{n}xf32>)
  linalg.matmul ins(%A, %B : memref<{m}x{k}xf32>, memref<{k}x{n}xf32>) outs(%C : memref<{m}x{n}xf32>)
  return
}}
"""
    knobs = {"threads": threads, "parallel_dim": dim, "tile_m": 32, "tile_n": 64, "tile_k": 64,
             "reg_m": 4, "reg_n": 32, "reg_k": 2, "cache_order": 1, "unroll_k": 1}
    return xlinalg.compile(payload, schedule=ROOT / "search_spaces" / "matmul_parallel.mlir", knobs=knobs)


@pytest.mark.parametrize("dim", [0, 1])
def test_two_threads_equal_one_thread(dim: int) -> None:
    one = _parallel_matmul(70, 90, 50, 1, dim)
    two = _parallel_matmul(70, 90, 50, 2, dim)
    a, b, c1 = one.make_inputs(seed=2)
    c2 = c1.copy()
    one(a, b, c1)
    two(a, b, c2)
    np.testing.assert_array_equal(c1, c2)  # the same per-element order of the k reduction
    assert two.check(a, b, c2).ok
    assert "pthread_create" in two.lowered.llvm_ir


def test_repeated_timing_leaks_no_threads() -> None:
    kernel = _parallel_matmul(64, 64, 64, 2, 0)
    args = kernel.make_inputs(seed=0)
    before = _tasks()
    for _ in range(3):
        kernel.time(*args, max_total_s=0.05)
    assert _settled_tasks(before) == before
    assert kernel.check(*args).ok


def test_kernel_runs_in_a_forked_child() -> None:
    kernel = _parallel_matmul(64, 64, 64, 2, 1)
    a, b, c = kernel.make_inputs(seed=4)
    kernel(a, b, c)  # threads in the parent first
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        try:
            got = np.zeros_like(c)
            kernel(a, b, got)
            os._exit(0 if np.array_equal(got, c) else 1)
        except BaseException:  # noqa: BLE001 - any error in the child is a failure
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


NESTED = """
func.func @nested(%out: memref<6x8xf32>) {
  scf.forall (%i) in (3) {
    scf.forall (%j, %k) = (0, 0) to (2, 8) step (1, 2) {
      %r = affine.apply affine_map<(d0, d1) -> (d0 * 2 + d1)>(%i, %j)
      %r64 = arith.index_cast %r : index to i64
      %k64 = arith.index_cast %k : index to i64
      %s = arith.muli %r64, %k64 : i64
      %f = arith.sitofp %s : i64 to f32
      memref.store %f, %out[%r, %k] : memref<6x8xf32>
    }
  }
  return
}
"""


def test_nested_forall_runs_inside_its_outer_task() -> None:
    kernel = xlinalg.compile(NESTED)
    out = np.full((6, 8), -1.0, np.float32)
    kernel(out)
    expected = np.full((6, 8), -1.0, np.float32)
    for r in range(6):
        for k in range(0, 8, 2):
            expected[r, k] = r * k
    np.testing.assert_array_equal(out, expected)
    ir = kernel.lowered.llvm_ir
    assert ir.count("define internal void @nested_forall") == 1  # only the outer one is outlined
