"""The thread pool off x86_64/aarch64 Linux (`xlinalg/backend/thread_pool.py`): its runtime
for other targets (futex number, pointer-sized integers, no futex at all), the wait
without a futex (forced here with `set_pool_wait("sleep")` / `XLINALG_POOL_WAIT=sleep`)
against NumPy, and the CPU affinity of new workers."""

from __future__ import annotations

import os
import subprocess
import sys

import llvmlite.binding as llvm
import numpy as np
import pytest

import xlinalg
from xlinalg.backend.elf import undefined_symbols
from xlinalg.backend.thread_pool import (
    DEFAULT_SPIN,
    WAIT_ENV,
    _runtime_ir,
    futex_number,
    pointer_bits,
    pool_wait,
    set_pool_spin,
    set_pool_wait,
)
from xlinalg.errors import BackendError
from xlinalg.host import host_triple

from support import REPO, load_script, run_in_threads
from support.threads import (
    IN_LOOP,
    ROWS,
    SPIN,
    TWO_CPUS,
    parallel_matmul,
    worker_parts_of_spin_calls,
)

# (triple, SYS_futex or None, pointer bits, CPU features)
TARGETS = [
    ("x86_64-unknown-linux-gnu", 202, 64, ""),
    ("aarch64-unknown-linux-gnu", 98, 64, ""),
    ("riscv64-unknown-linux-gnu", 98, 64, "+m,+a"),
    ("loongarch64-unknown-linux-gnu", 98, 64, ""),
    ("powerpc64le-unknown-linux-gnu", 221, 64, ""),
    ("s390x-unknown-linux-gnu", 238, 64, ""),
    ("mips64el-unknown-linux-gnuabi64", 5194, 64, ""),
    ("i686-pc-linux-gnu", 240, 32, ""),
    ("armv7-unknown-linux-gnueabihf", 240, 32, ""),
    ("arm64-apple-macosx11.0.0", None, 64, ""),
    ("x86_64-unknown-freebsd13", None, 64, ""),
]
LIBC = {"syscall", "usleep", "pthread_create", "pthread_join", "sched_yield", ".TOC."}


@pytest.mark.parametrize(
    ("triple", "futex", "bits", "features"), TARGETS, ids=[t[0] for t in TARGETS]
)
def test_runtime_compiles_for_every_target(
    triple: str, futex: int | None, bits: int, features: str
) -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    machine = llvm.Target.from_triple(triple).create_target_machine(
        features=features, codemodel="default"
    )
    layout = str(machine.target_data)
    assert pointer_bits(layout) == bits
    assert futex_number(triple) == futex
    text = _runtime_ir(triple, layout)
    assert f"@futex_nr = internal constant i{bits} {-1 if futex is None else futex}" in text
    assert f"declare i32 @pthread_join(i{bits}, ptr)" in text
    assert "intptr" not in text
    module = llvm.parse_assembly(text)
    module.triple = triple
    module.data_layout = layout
    module.verify()
    obj = machine.emit_object(module)
    names = undefined_symbols(obj)  # 64-bit ELF only (None otherwise)
    if names is not None:
        assert set(names) <= LIBC, names  # libc only: no atomics library, no helper calls


@pytest.fixture
def sleep_wait():
    """The pool waits without its futex (and spins little) for one test."""
    assert set_pool_wait("sleep") == "sleep"
    set_pool_spin(50)
    try:
        yield
    finally:
        set_pool_spin(DEFAULT_SPIN)
        set_pool_wait("futex")


def test_wait_mode_switches() -> None:
    native = "futex" if futex_number(host_triple()) is not None else "sleep"
    assert pool_wait() == native
    assert set_pool_wait("sleep") == "sleep"
    assert pool_wait() == "sleep"
    assert set_pool_wait("futex") == native
    assert pool_wait() == native
    with pytest.raises(BackendError, match=r"'spin': the pool's wait is one of futex, sleep"):
        set_pool_wait("spin")


@pytest.mark.usefixtures("sleep_wait")
def test_foralls_in_a_loop_without_futex() -> None:
    kernel = xlinalg.compile(IN_LOOP)
    for calls in range(1, 40):
        out = np.zeros((7, 5), np.float32)
        kernel(out, calls)  # `calls` foralls of 2 parts in one call
        expected = calls * (np.arange(7, dtype=np.float32)[:, None] + 1) * np.ones((1, 5))
        np.testing.assert_array_equal(out, expected)
    rows = xlinalg.compile(ROWS.format(n=64))
    for ub in (0, 1, 2, 3, 64):
        out = np.zeros((64, 16), np.float32)
        rows(out, ub)
        expected = np.zeros((64, 16), np.float32)
        expected[:ub] = np.arange(1, ub + 1, dtype=np.float32)[:, None]
        np.testing.assert_array_equal(out, expected)


@TWO_CPUS
@pytest.mark.usefixtures("sleep_wait")
def test_a_napping_worker_still_runs_parts() -> None:
    kernel = xlinalg.compile(SPIN)
    parts = worker_parts_of_spin_calls(kernel)  # ~0.05-0.2 s per part: naps are 1 ms at most
    assert parts[-1] >= 1, parts
    assert set(parts) <= {0, 1, 2}, parts


@pytest.mark.usefixtures("sleep_wait")
def test_several_python_threads_without_futex() -> None:
    kernels = [parallel_matmul(70, 90, 50, 2, dim) for dim in (0, 1)]

    def work(index: int) -> None:
        kernel = kernels[index % 2]
        for k in range(15):
            a, b, c = kernel.make_inputs(seed=100 * index + k)
            kernel(a, b, c)
            np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)

    run_in_threads(work, 4)


SLEEP_CHILD = """
import numpy as np, xlinalg
from support import run_in_threads
from support.threads import IN_LOOP, parallel_matmul
from xlinalg.backend.thread_pool import pool_wait, pool_workers
k = parallel_matmul(64, 64, 64, 2, 0)
for seed in range(5):
    a, b, c = k.make_inputs(seed=seed)
    k(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
out = np.zeros((7, 5), np.float32)
xlinalg.compile(IN_LOOP)(out, 50)
assert out[6, 0] == 50 * 7
print(pool_wait(), pool_workers())
"""


def _child(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests")]), **env)
    return subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
        cwd=REPO,
    )


@pytest.mark.slow
def test_environment_forces_the_sleeping_wait() -> None:
    proc = _child(SLEEP_CHILD, **{WAIT_ENV: "sleep", "XLINALG_POOL_SPIN": "0"})
    assert proc.returncode == 0, proc.stderr[-3000:]  # and the exit joined napping workers
    expected = min(2, len(os.sched_getaffinity(0))) - 1
    assert proc.stdout.split() == ["sleep", str(expected)]
    bad = _child(SLEEP_CHILD, **{WAIT_ENV: "nap"})
    assert bad.returncode != 0
    assert "XLINALG_POOL_WAIT='nap': the pool's wait is one of futex, sleep" in bad.stderr


# A Python thread pinned to one CPU makes the pool start a worker (xl_forall_run called
# directly with 2 parts: a kernel would count one usable CPU and run alone); the worker
# takes the process's affinity, not the pinned thread's. A worker started by a thread with
# more CPUs than the (pinned) main thread keeps them.
AFFINITY_CHILD = """
import ctypes, os, threading, time
from xlinalg.backend.thread_pool import pool, pool_workers
process = os.sched_getaffinity(0)
seen = []
body = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)(
    lambda ctx, lo, hi: seen.append((lo, hi)))
run = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)(
    pool().run_address)
assert pool_workers() == 0

def threads_counted():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("Threads:"))

def tasks(ending=None):
    # A listing of /proc/self/task stops early at a thread whose exit is under way (the
    # kernel's next_tid gives up at a task no longer alive), so it can miss the threads
    # after it: list until the listing agrees with the kernel's thread count and the
    # joined thread `ending` has gone.
    deadline = time.monotonic() + 30
    while True:
        listed = {int(tid) for tid in os.listdir("/proc/self/task")}
        if (len(listed) == threads_counted() and ending not in listed) or time.monotonic() > deadline:
            return listed
        time.sleep(0.001)

before = tasks()  # the pool is compiled (no worker yet); numpy's BLAS threads run

def pinned():
    os.sched_setaffinity(0, {min(process)})
    run(ctypes.cast(body, ctypes.c_void_p), None, 2, 2)
    assert os.sched_getaffinity(0) == {min(process)}  # the caller keeps its own

t = threading.Thread(target=pinned)
t.start()
t.join()
assert sorted(seen) == [(0, 1), (1, 2)], seen
workers = sorted(tasks(ending=t.native_id) - before)
assert len(workers) == pool_workers() == 1, (workers, pool_workers())
print(os.sched_getaffinity(workers[0]) == process)

# The main thread pinned, a thread with every CPU starts a second worker: it keeps them all.
os.sched_setaffinity(0, {max(process)})
before = tasks()

def wide():
    os.sched_setaffinity(0, process)
    run(ctypes.cast(body, ctypes.c_void_p), None, 3, 3)

t = threading.Thread(target=wide)
t.start()
t.join()
workers = sorted(tasks(ending=t.native_id) - before)
assert len(workers) == 1 and pool_workers() == 2, (workers, pool_workers())
print(os.sched_getaffinity(workers[0]) == process)
"""


@TWO_CPUS
def test_new_workers_take_the_process_affinity() -> None:
    proc = _child(AFFINITY_CHILD)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["True", "True"], proc.stdout


def test_bench_pool_wait_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """`scripts/bench_pool_wait.py` runs every wait mode, checks its kernel and leaves the futex on."""
    bench_pool_wait = load_script("bench_pool_wait")

    assert bench_pool_wait.main(["--n", "64", "--rounds", "1", "--calls", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [" ".join(line.split()[:3]) for line in lines[1:]] == [
        f"futex spin {DEFAULT_SPIN}",
        "futex spin 0",
        f"sleep spin {DEFAULT_SPIN}",
        "sleep spin 0",
    ]
    assert pool_wait() == "futex"
