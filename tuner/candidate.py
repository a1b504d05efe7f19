"""One candidate, measured inside an isolated child process.

`run_candidate` is what the child executes: compile the payload with the
schedule template and the trial's knob values (apply the schedule, lower, LLVM
O3, JIT), make random inputs, check the kernel against the NumPy reference,
then time it. It returns a plain dict (picklable) with a `status`:

* `ok`            -- checked and timed;
* `compile_error` -- the schedule could not be applied / lowered / compiled;
* `wrong_result`  -- the kernel ran but disagrees with the reference;
* `error`         -- any other exception while making inputs, running or timing;
* `too_slow`      -- one call of the kernel took longer than the request's
                     `slow_limit_s` (10x the best median of the study so far) in
                     both wall-clock and CPU time (`probe_seconds`): the candidate
                     is not timed further.

Phases: before its probe call the child sends `{"phase": "probe"}` so the parent can
kill a candidate whose single call runs past `slow_limit_s` (status `too_slow`),
then `{"phase": "timing"}` before the full timing loop, then the result.

The parent (`tuner.worker`) adds `crash` (the child was killed by a signal or
died without answering) and `timeout` (the child exceeded its time limit and was
killed).

Testing seam: a request's `fault` field makes the child misbehave for real,
before compiling -- `"crash"` sends SIGSEGV to the child itself (a genuine
segfault, the process dies by signal 11) and `"hang"` sleeps forever (the parent
must kill it) -- or after it: `"wrong"` runs the real kernel and then corrupts one
element of its output buffer before the comparison with the reference (a genuinely
wrong result reaching the real check), `"slow"` stalls in the probe call (a kernel far
slower than the best, which the parent stops early). The parent fills `fault` from the environment variable
`XLINALG_TUNER_TEST_FAULT` (see `tuner.worker.fault_for_trial`); it is never set
in normal use.
"""

from __future__ import annotations

import os
import signal
import time
import traceback
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import numpy as np


@dataclass(frozen=True)
class CandidateRequest:
    """Everything a child needs (plain data, so it can be sent to another process)."""

    payload: str
    schedule: str | None
    knobs: dict[str, Any] = field(default_factory=dict)
    entry: str | None = None
    seed: int = 0
    sizes: dict[str, int] | None = None
    fault: str | None = None
    timing: dict[str, float] | None = None  # options of Kernel.time, e.g. {"max_total_s": 0.2}
    slow_limit_s: float | None = None  # a single call slower than this -> `too_slow`


def _one_line(err: BaseException) -> str:
    text = str(err).strip()
    return text if text else type(err).__name__


def _check(kernel: Any, arrays: list[Any], corrupt: bool) -> Any:
    """`kernel.check(*arrays)`; with `corrupt` (test seam `wrong`) the kernel runs for real,
    then one element of its last output buffer is changed before the same comparison."""
    if not corrupt:
        return kernel.check(*arrays)
    import xlinalg  # noqa: PLC0415  (imported in the candidate, see run_candidate)

    got = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in arrays]
    kernel(*got)
    out = [a for a in got if isinstance(a, np.ndarray) and a.size][-1]
    flat = out.reshape(-1)
    flat[0] = flat[0] * 2 + 1  # reshape of a fresh contiguous copy is a view
    want = kernel.reference(*arrays)
    length = kernel.reduction_length(*arrays)
    for index, (g, w) in enumerate(zip(got, want)):
        if isinstance(g, np.ndarray):
            result = xlinalg.compare(g, w, dtype=g.dtype, reduction_length=length)
            if not result.ok:
                return xlinalg.CheckResult(
                    False, result.max_rel_error, f"argument #{index}: {result.message}"
                )
    return xlinalg.CheckResult(True, 0.0, "")


def probe_seconds(kernel: Any, arrays: list[Any]) -> float:
    """The time of one call `kernel(*arrays)`: the lesser of its wall-clock time and the
    process's CPU time over it. On a loaded machine the wall clock also counts the time the
    child waited for a CPU (a 10 µs call preempted for 20 ms would pass a 10 ms limit); a
    kernel that really is slow uses the CPU for as long as it takes, so it passes both."""
    wall, cpu = time.perf_counter(), time.process_time()
    kernel(*arrays)
    return min(time.perf_counter() - wall, time.process_time() - cpu)


def run_candidate(request: CandidateRequest, conn: Connection | None = None) -> dict[str, Any]:
    """Compile, check and time one candidate in this process; never raises. `conn` (the
    pipe to the parent) receives the phase messages."""
    # The compiler is imported here, in the candidate, not at module level: the forkserver
    # imports this module even when the compiler fails to import (`_preload`), and then
    # every candidate imports it and reports the failure as its own.
    import xlinalg  # noqa: PLC0415  (see above)
    from xlinalg.errors import XlinalgError  # noqa: PLC0415  (see above)

    result: dict[str, Any] = {"status": "error", "error": ""}
    started = time.perf_counter()
    try:
        kernel = xlinalg.compile(
            request.payload,
            schedule=request.schedule,
            entry=request.entry,
            knobs=dict(request.knobs),
        )
    except XlinalgError as err:
        result.update(
            status="compile_error", error=_one_line(err), compile_s=time.perf_counter() - started
        )
        return result
    except Exception as err:  # a compiler bug is this candidate's compile error
        result.update(
            status="compile_error",
            error=f"internal compiler error: {type(err).__name__}: {_one_line(err)}",
            traceback=traceback.format_exc(limit=8),
            compile_s=time.perf_counter() - started,
        )
        return result
    result["compile_s"] = float(kernel.compile_seconds)
    result["entry"] = kernel.entry
    try:
        arrays = kernel.make_inputs(seed=request.seed, sizes=request.sizes)
        check = _check(kernel, arrays, corrupt=request.fault == "wrong")
        result["max_rel_error"] = float(check.max_rel_error)
        if not check.ok:
            result.update(
                status="wrong_result",
                error=str(check.message)
                or f"result differs from the reference (max rel error {check.max_rel_error:.3g})",
            )
            return result
        if request.slow_limit_s is not None:
            if conn is not None:
                conn.send({"phase": "probe", "limit_s": request.slow_limit_s})
            probe = [a.copy() if hasattr(a, "copy") else a for a in arrays]
            if request.fault == "slow":
                time.sleep(request.slow_limit_s * 1000 + 60)
            call_s = probe_seconds(kernel, probe)
            if call_s > request.slow_limit_s:
                result.update(
                    status="too_slow",
                    call_s=call_s,
                    error=(
                        f"one call took {call_s * 1e3:.4g} ms, more than the limit of "
                        f"{request.slow_limit_s * 1e3:.4g} ms (10x the best so far)"
                    ),
                )
                return result
            if conn is not None:
                conn.send({"phase": "timing"})
        timing = kernel.time(*arrays, **(request.timing or {}))
        flops = int(kernel.flops(*arrays))  # the arrays give the sizes of dynamic dims
    except XlinalgError as err:
        result.update(status="error", error=_one_line(err))
        return result
    except Exception as err:  # reported as this candidate's status
        result.update(
            status="error",
            error=f"{type(err).__name__}: {_one_line(err)}",
            traceback=traceback.format_exc(limit=8),
        )
        return result
    median = float(timing.median_s)
    result.update(
        status="ok",
        error="",
        median_s=median,
        min_s=float(timing.min_s),
        cv=float(timing.cv),
        repeats=int(timing.repeats),
        inner_loops=int(getattr(timing, "inner_loops", 1)),
        flops=flops,
        gflops=flops / median / 1e9 if median > 0 else 0.0,
    )
    return result


def child_main(conn: Connection, request: dict[str, Any]) -> None:
    """Entry point of the child process: run the request, send the result dict back."""
    req = CandidateRequest(**request)
    if req.fault == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(60)  # not reached: the default SIGSEGV action kills the process
    elif req.fault == "hang":
        while True:
            time.sleep(1)
    try:
        result = run_candidate(req, conn)
    except BaseException as err:  # e.g. MemoryError, KeyboardInterrupt
        result = {"status": "error", "error": f"{type(err).__name__}: {_one_line(err)}"}
    conn.send(result)
    conn.close()


def request_dict(request: CandidateRequest) -> dict[str, Any]:
    return asdict(request)
