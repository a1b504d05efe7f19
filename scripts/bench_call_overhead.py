"""Python's cost of calling a kernel: per-call microseconds of a trivial 3-argument matmul.

Columns, each the median (or `--stat min`) over rounds of the per-call time of a batch of
`--calls` calls (a batch is timed as a whole: a single call is too short for the clock):

- `direct`:   `kernel(a, b, c)`, the user's call (arguments checked per argument signature);
- `checked`:  `call_prepared(prepare(a, b, c))`: every argument checked in full on every
  call (what `kernel(a, b, c)` cost before calls were planned per argument signature);
- `repeat1`:  the native repeat wrapper with n = 1 on arguments checked and flattened once
  (what `bench_stats.prepared_call` was before direct calls were planned);
- `ctypes`:   the kernel's ctypes function on its flattened parameters (no check at all);
- `native`:   the kernel itself, timed in the native repeat loop (no Python per call).

`overhead` is `direct - native`: what Python adds to the call.

    python scripts/bench_call_overhead.py --rounds 21 --calls 2000 --stat min
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from bench_stats import add_arguments, batch_seconds, interleaved

import xlinalg

PAYLOAD = """
func.func @mm(%a: memref<{n}x{n}xf32>, %b: memref<{n}x{n}xf32>, %c: memref<{n}x{n}xf32>) {{
  linalg.matmul ins(%a, %b : memref<{n}x{n}xf32>, memref<{n}x{n}xf32>) outs(%c : memref<{n}x{n}xf32>)
  return
}}
"""


def measure(n: int, rounds: int, calls: int, stat: str) -> dict[str, float]:
    """Per-call microseconds of each column (interleaved rounds)."""
    kernel = xlinalg.compile(PAYLOAD.format(n=n))
    a, b, c = (np.ones((n, n), np.float32) for _ in range(3))
    fn = kernel._fn
    prepared = fn.prepare(a, b, c)
    cfunc = fn._cfunc
    runners: dict[str, Callable[[], float]] = {
        "direct": lambda: batch_seconds(lambda: kernel(a, b, c), calls),
        "checked": lambda: batch_seconds(lambda: fn.call_prepared(fn.prepare(a, b, c)), calls),
        "repeat1": lambda: batch_seconds(lambda: fn.repeat_prepared(prepared, 1), calls),
        "ctypes": lambda: batch_seconds(lambda: cfunc(*prepared), calls),
        "native": lambda: _native_seconds(fn, prepared, calls),
    }
    for run in runners.values():
        run()  # warm-up (first call makes the plan)
    result = {key: seconds * 1e6 for key, seconds in interleaved(runners, rounds, stat).items()}
    result["overhead"] = result["direct"] - result["native"]
    expected = np.ones((n, n), np.float32) @ np.ones((n, n), np.float32)
    c[...] = 0
    kernel(a, b, c)
    np.testing.assert_allclose(c, expected)
    return result


def _native_seconds(fn: object, prepared: object, calls: int) -> float:
    start = time.perf_counter_ns()
    fn.repeat_prepared(prepared, calls)  # type: ignore[attr-defined]
    return (time.perf_counter_ns() - start) / calls / 1e9


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4, help="matmul size (n x n x n, f32)")
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--calls", type=int, default=2000, help="calls per timed batch")
    add_arguments(parser, timer=False)
    args = parser.parse_args(argv)
    result = measure(args.n, args.rounds, args.calls, args.stat)
    print(
        f"{args.n}x{args.n}x{args.n} f32 matmul, per call (us, {args.stat} of {args.rounds} rounds "
        f"of {args.calls} calls):"
    )
    for key, value in result.items():
        print(f"  {key:9s} {value:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
