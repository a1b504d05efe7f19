"""What `--stat`, `--timer` and the FMA peak mean in every bench script (one definition).

`--stat median`: a round's figure is the median of its calls, a column's figure the
median of its rounds. `--stat min`: the fastest call, then the fastest round. On a
machine shared with other jobs, their time slices only ever add to a call, so the
fastest call is the one that ran undisturbed; the median call is mostly other jobs'
time (14 vs 95 GFLOP/s at load 5, bench_matmul).

`--timer wall` times single calls with `time.perf_counter_ns`; `--timer cpu` with the
calling thread's CPU time (`time.thread_time_ns`: the time slices other jobs hold the
core are not counted; caches they evict still are).

The FMA peak is always measured in wall time (`xlinalg.backend.peak`: the fastest of many
short samples after a clock ramp), whatever `--timer` says: in this VM the thread CPU
clock under-counts some sub-millisecond calls (up to 145 "GFLOP/s" for a 118 GFLOP/s
core), so a peak in CPU time is no ceiling.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any

from xlinalg.backend.peak import measure_fma_peak_gflops
from xlinalg.backend.timing import Timing

STATS = ("median", "min")
#: The clocks of `--timer`.
CLOCKS: dict[str, Callable[[], int]] = {"wall": time.perf_counter_ns, "cpu": time.thread_time_ns}


def statistic(stat: str) -> Callable[[Iterable[float]], float]:
    """How seconds (of the calls of a round, or of the rounds of a column) become one figure."""
    if stat not in STATS:
        raise ValueError(f"--stat is one of {STATS}, not {stat!r}")
    return min if stat == "min" else statistics.median


def timing_seconds(timing: Timing, stat: str) -> float:
    """A `Kernel.time` / `time_native` result's figure: its fastest or its median sample."""
    statistic(stat)
    return timing.min_s if stat == "min" else timing.median_s


def add_arguments(parser: argparse.ArgumentParser, timer: bool = True) -> None:
    """`--stat` (and `--timer`) with the same meaning and help in every bench."""
    parser.add_argument(
        "--stat",
        choices=STATS,
        default="median",
        help="each round the median (or fastest) call, each column the median (or "
        "fastest) round; min on a machine shared with other jobs",
    )
    if timer:
        parser.add_argument(
            "--timer",
            choices=tuple(CLOCKS),
            default="wall",
            help="single calls in wall time or in this thread's CPU time (a loaded "
            "machine); the FMA peak stays in wall time",
        )


def call_seconds(fn: Callable[[], object], calls: int, stat: str, timer: str = "wall") -> float:
    """One round: `calls` single calls of `fn` after a warm-up call, timed with the `timer`
    clock, summarised by `stat`."""
    clock = CLOCKS[timer]
    fn()
    times = []
    for _ in range(calls):
        start = clock()
        fn()
        times.append((clock() - start) / 1e9)
    return statistic(stat)(times)


def batch_seconds(fn: Callable[[], object], calls: int) -> float:
    """Wall seconds per call of `calls` back-to-back calls of `fn`, timed as one batch (for
    calls too short for the clock one at a time)."""
    start = time.perf_counter_ns()
    for _ in range(calls):
        fn()
    return (time.perf_counter_ns() - start) / calls / 1e9


def prepared_call(kernel: Any, *args: Any) -> Callable[[], None]:
    """One call of an `xlinalg.Kernel` on `args`: the direct call `kernel(*args)`, which
    checks its arguments in full once per argument signature (the first call) and then only
    what can change between calls (data pointers, overlap): 1.7 us a call at load 3.5, less than
    the repeat wrapper on arguments flattened once (2.4 us: ctypes converts every one of
    their words per call; `python scripts/bench_call_overhead.py`)."""
    return lambda: kernel(*args)


def interleaved(
    runners: dict[str, Callable[[], float]], rounds: int, stat: str
) -> dict[str, float]:
    """Each runner (seconds of one round) once per round, interleaved so drift hits all
    alike; per runner the `stat` of its rounds."""
    times: dict[str, list[float]] = {key: [] for key in runners}
    for _ in range(rounds):
        for key, run in runners.items():
            times[key].append(run())
    pick = statistic(stat)
    return {key: pick(values) for key, values in times.items()}


class Peak:
    """The single-core f32 FMA peak of a bench run: the highest of its measurements (a
    ceiling: disturbances only lower a measurement), re-measured by `measure()` between
    rounds so that one disturbed measurement does not set the ratios."""

    def __init__(self, measurements: int = 3) -> None:
        self.values: list[float] = []
        for _ in range(measurements):
            self.measure()

    def measure(self) -> float:
        self.values.append(measure_fma_peak_gflops())
        return self.gflops

    @property
    def gflops(self) -> float:
        return max(self.values)

    def __str__(self) -> str:
        return (
            f"FMA peak {self.gflops:.1f} GFLOP/s per core (highest of {len(self.values)} "
            "measurements, wall time)"
        )
