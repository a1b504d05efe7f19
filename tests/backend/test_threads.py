"""`scf.forall` on native threads (`xlinalg/lowering/forall_to_threads.py` and the pool
of `xlinalg/backend/thread_pool.py`): every iteration runs exactly once, a pool worker
really runs a part, results equal the 1-thread kernel, nested foralls, dynamic trip
counts, a forall in a loop, repeated calls reuse the same OS threads, several Python
threads and several kernels share the pool, fork safety, a clean interpreter exit."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import xlinalg
from xlinalg.backend.thread_pool import (
    DEFAULT_SPIN,
    pool_worker_chunks,
    pool_workers,
    set_pool_spin,
)

from support import REPO
from support.threads import (
    IN_LOOP,
    ROWS,
    SPIN,
    TWO_CPUS,
    parallel_matmul,
    worker_parts_of_spin_calls,
)


def _tasks() -> int:
    """The process's thread count as the kernel keeps it (a listing of /proc/self/task can
    stop early at a thread that is exiting)."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("Threads:"))


@pytest.mark.parametrize("ub", [0, 1, 2, 3, 64])
def test_every_iteration_runs_once(ub: int) -> None:
    kernel = xlinalg.compile(ROWS.format(n=64))
    out = np.zeros((64, 16), np.float32)
    kernel(out, ub)
    expected = np.zeros((64, 16), np.float32)
    expected[:ub] = np.arange(1, ub + 1, dtype=np.float32)[:, None]
    np.testing.assert_array_equal(out, expected)
    assert "xl_forall_run" in kernel.lowered.llvm_ir


@TWO_CPUS
def test_a_pool_worker_runs_a_part() -> None:
    kernel = xlinalg.compile(SPIN)
    parts = worker_parts_of_spin_calls(kernel)
    assert parts[-1] >= 1, parts
    assert set(parts) <= {0, 1, 2}, parts  # a part ran on a worker
    assert pool_workers() >= 1


@pytest.mark.parametrize("dim", [0, 1])
def test_two_threads_equal_one_thread(dim: int) -> None:
    one = parallel_matmul(70, 90, 50, 1, dim)
    two = parallel_matmul(70, 90, 50, 2, dim)
    a, b, c1 = one.make_inputs(seed=2)
    c2 = c1.copy()
    one(a, b, c1)
    two(a, b, c2)
    np.testing.assert_array_equal(c1, c2)  # the same per-element order of the k reduction
    assert two.check(a, b, c2).ok
    assert "xl_forall_run" in two.lowered.llvm_ir


@TWO_CPUS
def test_repeated_calls_reuse_the_same_threads() -> None:
    kernel = parallel_matmul(64, 64, 64, 2, 0)
    args = kernel.make_inputs(seed=0)
    kernel(*args)
    before = _tasks()
    workers = pool_workers()
    chunks = pool_worker_chunks()
    for _ in range(3):
        kernel.time(*args, max_total_s=0.05)
        assert _tasks() == before  # no thread started or left behind per call
    assert pool_workers() == workers >= 1
    assert pool_worker_chunks() > chunks  # ... yet the worker ran parts
    assert kernel.check(*args).ok


def test_kernel_runs_in_a_forked_child() -> None:
    kernel = parallel_matmul(64, 64, 64, 2, 1)
    a, b, c = kernel.make_inputs(seed=4)
    kernel(a, b, c)  # threads in the parent first
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        try:
            got = np.zeros_like(c)
            kernel(a, b, got)
            os._exit(0 if np.array_equal(got, c) else 1)
        except BaseException:  # any error in the child is a failure
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


def test_forall_inside_a_loop() -> None:
    kernel = xlinalg.compile(IN_LOOP)
    out = np.zeros((7, 5), np.float32)
    kernel(out, 13)  # 13 foralls of 35 iterations in one call, 2 parts each
    expected = 13 * (np.arange(7, dtype=np.float32)[:, None] + 1) * np.ones((1, 5), np.float32)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("spin", [0, 50])
def test_sleeping_workers_are_woken(spin: int) -> None:
    """No spinning (or almost none): every wait goes through the futex sleep and wake-up."""
    kernel = xlinalg.compile(IN_LOOP)
    set_pool_spin(spin)
    try:
        for calls in range(1, 30):
            out = np.zeros((7, 5), np.float32)
            kernel(out, calls)
            expected = calls * (np.arange(7, dtype=np.float32)[:, None] + 1) * np.ones((1, 5))
            np.testing.assert_array_equal(out, expected)
            time.sleep(0.001 * (calls % 3))  # let the worker fall asleep between some calls
    finally:
        set_pool_spin(DEFAULT_SPIN)


def test_kernels_called_from_several_python_threads() -> None:
    kernels = [parallel_matmul(70, 90, 50, 2, dim) for dim in (0, 1)]
    inputs = [k.make_inputs(seed=5 + i) for i, k in enumerate(kernels)]
    expected = []
    for k, (a, b, c) in zip(kernels, inputs, strict=True):
        c0 = c.copy()
        k(a, b, c0)
        assert k.check(a, b, c0).ok
        expected.append(c0)
    failures: list[str] = []

    def hammer(t: int) -> None:
        k, (a, b, c) = kernels[t % 2], inputs[t % 2]
        for _ in range(30):
            got = c.copy()
            k(a, b, got)  # the pool is busy with another thread's forall half of the time
            if not np.array_equal(got, expected[t % 2]):
                failures.append(f"thread {t}")
                return

    threads = [threading.Thread(target=hammer, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_dropping_a_kernel_leaves_the_pool_usable() -> None:
    first = xlinalg.compile(ROWS.format(n=8))
    out = np.zeros((8, 16), np.float32)
    first(out, 8)
    del first
    gc.collect()  # its machine code is freed; the pool's workers are parked in the pool
    second = xlinalg.compile(ROWS.format(n=9))
    out = np.zeros((9, 16), np.float32)
    second(out, 9)
    np.testing.assert_array_equal(
        out, np.arange(1, 10, dtype=np.float32)[:, None] * np.ones((1, 16))
    )


EXIT_CHILD = """
import numpy as np, xlinalg
from support.threads import SPIN, parallel_matmul
from xlinalg.backend.thread_pool import pool_workers
k = parallel_matmul(64, 64, 64, 2, 0)
args = k.make_inputs(seed=1)
k(*args)
xlinalg.compile(SPIN)(np.zeros(2, np.float32), 1000)
assert k.check(*args).ok
print("workers", pool_workers())
"""


@pytest.mark.slow
def test_interpreter_exit_joins_the_workers() -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests")]))
    proc = subprocess.run(
        [sys.executable, "-c", EXIT_CHILD],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]  # no hang, no crash in a parked worker
    expected = min(2, len(os.sched_getaffinity(0))) - 1
    assert proc.stdout.split() == ["workers", str(expected)]
