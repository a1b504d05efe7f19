"""The timing harness: warm-up, native inner loops, repeats until the median is stable.

One *sample* is one call of the native repeat wrapper running the kernel
`inner_loops` times, with `inner_loops` chosen so that a sample lasts at least
`min_sample_s` (timer resolution and Python's call overhead are then
negligible). Samples are taken until the running median has settled and the
coefficient of variation is at most `target_cv`, or the budget is spent.
Every time reported is seconds per kernel call.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from dataclasses import dataclass
from typing import Any

from xlinalg.backend.call import NativeFunction, PreparedArgs

_MAX_INNER_LOOPS = 1 << 40


@dataclass(frozen=True)
class Timing:
    """Per-call seconds of a kernel: median and minimum over `repeats` samples."""

    median_s: float
    min_s: float
    cv: float
    """Coefficient of variation (standard deviation / mean) of the samples."""
    repeats: int
    """Number of samples."""
    inner_loops: int
    """Kernel calls per sample (looped in native code)."""
    samples: tuple[float, ...]
    """Per-call seconds of every sample, in the order taken."""


def coefficient_of_variation(values: tuple[float, ...] | list[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = statistics.fmean(values)
    return statistics.stdev(values) / mean if mean > 0 else 0.0


def _sample_ns(fn: NativeFunction, prepared: PreparedArgs, n: int) -> int:
    start = time.perf_counter_ns()
    fn.repeat_prepared(prepared, n)
    return time.perf_counter_ns() - start


def _calibrate(
    fn: NativeFunction, prepared: PreparedArgs, min_sample_ns: int, budget_end_ns: int
) -> tuple[int, int]:
    """The smallest inner-loop count (grown geometrically) whose sample lasts >= min_sample_ns,
    and the duration of that last sample (a valid first measurement: the kernel is warm)."""
    n = 1
    while True:
        elapsed = _sample_ns(fn, prepared, n)
        if (
            elapsed >= min_sample_ns
            or n >= _MAX_INNER_LOOPS
            or time.perf_counter_ns() > budget_end_ns
        ):
            return n, elapsed
        # Aim 20% past the target from the measured rate, at most 100x at once.
        estimate = math.ceil(n * 1.2 * min_sample_ns / max(elapsed, 1))
        n = min(max(2 * n, min(estimate, 100 * n)), _MAX_INNER_LOOPS)


def _settled(samples: list[float], target_cv: float, min_repeats: int) -> bool:
    if len(samples) < min_repeats:
        return False
    if len(samples) == 1:  # min_repeats == 1: one sample has nothing to settle against
        return True
    if coefficient_of_variation(samples) > target_cv:
        return False
    # The running median moved by less than a quarter of the target over the last
    # two samples.
    now = statistics.median(samples)
    before = (
        statistics.median(samples[:-2]) if len(samples) > 2 else statistics.median(samples[:-1])
    )
    return abs(now - before) <= 0.25 * target_cv * now


def time_native(
    fn: NativeFunction,
    *args: Any,
    min_sample_s: float = 0.002,
    max_total_s: float = 1.0,
    max_repeats: int = 200,
    min_repeats: int = 5,
    target_cv: float = 0.02,
) -> Timing:
    """Time `fn(*args)`: per-call median, minimum and CV (see the module docstring).

    `min_repeats` samples are always taken; more until the median is stable and
    the CV is at most `target_cv`, `max_repeats` samples were taken, or
    `max_total_s` seconds (calibration included) have passed. Memref arguments
    are written by every call, as in `fn(*args)`.
    """
    if min_repeats < 1 or max_repeats < min_repeats:
        raise ValueError("need 1 <= min_repeats <= max_repeats")
    prepared = fn.prepare(*args)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter_ns()
        budget_end = start + int(max_total_s * 1e9)
        fn.repeat_prepared(prepared, 1)  # warm-up: caches, page faults, lazy binding
        inner, first_ns = _calibrate(fn, prepared, int(min_sample_s * 1e9), budget_end)
        samples: list[float] = [first_ns * 1e-9 / inner]
        while True:
            if len(samples) >= max_repeats or _settled(samples, target_cv, min_repeats):
                break
            if len(samples) >= min_repeats and time.perf_counter_ns() >= budget_end:
                break
            samples.append(_sample_ns(fn, prepared, inner) * 1e-9 / inner)
    finally:
        if gc_was_enabled:
            gc.enable()
    return Timing(
        median_s=statistics.median(samples),
        min_s=min(samples),
        cv=coefficient_of_variation(samples),
        repeats=len(samples),
        inner_loops=inner,
        samples=tuple(samples),
    )
