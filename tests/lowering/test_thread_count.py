"""The number of threads an `scf.forall` runs on is decided at call time from the CPU
affinity mask (`sched_getaffinity` in `forall_to_threads.py`), not fixed at compile time:
one kernel, compiled once, runs on one OS thread when the process is pinned to one CPU
and on two when two are allowed, with the same results. What ran where is read from the
pool's count of parts run by its workers (`pool_worker_chunks`): the pool's threads
persist across calls, so counting OS threads would not tell.

Runs in a subprocess (it changes the process's affinity)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from support import REPO

CHILD = r"""
import json, os
import numpy as np
import xlinalg
from support.threads import SPIN, parallel_matmul
from xlinalg.backend.thread_pool import pool_worker_chunks

spin = xlinalg.compile(SPIN)
matmul = parallel_matmul(70, 90, 50, 2, 0)
a, b, c = matmul.make_inputs(seed=3)
reference = c.copy()
matmul(a, b, reference)
assert "sched_getaffinity" in spin.lowered.llvm_ir


def parts_workers_ran_in_spin():
    out = np.zeros(2, np.float32)
    before = pool_worker_chunks()
    spin(out, 20_000_000)  # two parts of ~0.05-0.2 s: a worker, if any, wakes long before
    assert out[0] == out[1] != 0
    return pool_worker_chunks() - before


result = {}
for cpus in ([0], [0, 1], [1]):
    os.sched_setaffinity(0, cpus)
    c2 = c.copy()
    matmul(a, b, c2)
    # Two CPUs allowed: the caller and the worker each take a part nobody has claimed yet, so
    # on a loaded machine one call can run on the caller alone (the worker not scheduled
    # within a part) or, the caller descheduled, both parts on the worker; a few tries tell
    # "never used a worker" from that. Pinned: no part on a worker, on every call.
    tries = 5 if len(cpus) == 2 else 1
    parts = [parts_workers_ran_in_spin() for _ in range(tries)]
    result[str(cpus)] = {"worker_parts": parts,
                         "same": bool(np.array_equal(c2, reference)),
                         "ok": bool(matmul.check(a, b, c2).ok)}
print(json.dumps(result))
"""


@pytest.mark.skipif(
    len(os.sched_getaffinity(0)) < 2 or not {0, 1} <= os.sched_getaffinity(0),
    reason="needs CPUs 0 and 1",
)
def test_thread_count_follows_affinity_at_call_time() -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests")]))
    proc = subprocess.run(
        [sys.executable, "-c", CHILD],
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
        env=env,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["[0]"]["worker_parts"] == [0], result  # pinned to one CPU: no worker thread
    assert result["[1]"]["worker_parts"] == [0], result
    parts = result["[0, 1]"]["worker_parts"]
    assert max(parts) >= 1, result
    assert set(parts) <= {0, 1, 2}, result  # two allowed: a worker runs
    for entry in result.values():
        assert entry["same"], result
        assert entry["ok"], result  # same result whatever the thread count
