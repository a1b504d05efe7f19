"""The thread pool's waits: a 2-thread matmul called in a loop with the futex wait and with
the sleeping fallback (`XLINALG_POOL_WAIT=sleep`, the wait of platforms without a futex),
each with the default spin and with none. Per-call microseconds: the `--stat` of the
rounds, a round timing `--calls` back-to-back calls as one batch.

    python scripts/bench_pool_wait.py --n 128 --rounds 9 --stat min
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from bench_stats import add_arguments, batch_seconds, interleaved

import xlinalg
from xlinalg.backend.thread_pool import DEFAULT_SPIN, set_pool_spin, set_pool_wait
from xlinalg.examples import fill_matmul

ROOT = Path(__file__).resolve().parent.parent
KNOBS = {
    "threads": 2,
    "parallel_dim": 0,
    "tile_m": 32,
    "tile_n": 64,
    "tile_k": 64,
    "reg_m": 4,
    "reg_n": 32,
    "reg_k": 2,
    "cache_order": 1,
    "unroll_k": 1,
    "peel": 0,
}


def measure(n: int, rounds: int, calls: int, stat: str) -> dict[str, float]:
    kernel = xlinalg.compile(
        fill_matmul(n, n, n, kind="memref"),
        schedule=ROOT / "search_spaces" / "matmul_parallel.mlir",
        knobs=KNOBS,
    )
    a, b, c = kernel.make_inputs(seed=0)

    def runner(wait: str, spin: int) -> Callable[[], float]:
        def run() -> float:
            set_pool_wait(wait)
            set_pool_spin(spin)
            kernel(a, b, c)
            return batch_seconds(lambda: kernel(a, b, c), calls)

        return run

    runners = {
        f"{wait} spin {spin}": runner(wait, spin)
        for wait in ("futex", "sleep")
        for spin in (DEFAULT_SPIN, 0)
    }
    try:
        seconds = interleaved(runners, rounds, stat)
    finally:
        set_pool_wait("futex")
        set_pool_spin(DEFAULT_SPIN)
    assert kernel.check(a, b, c).ok
    return {key: value * 1e6 for key, value in seconds.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--n", type=int, default=128, help="matmul size (n x n x n, f32, 2 threads)"
    )
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", type=int, default=200, help="calls per timed batch")
    add_arguments(parser, timer=False)
    args = parser.parse_args(argv)
    print(
        f"{args.n}^3 f32 matmul on 2 threads, per call (us, {args.stat} of {args.rounds} rounds "
        f"of {args.calls} calls):"
    )
    for key, value in measure(args.n, args.rounds, args.calls, args.stat).items():
        print(f"  {key:18s} {value:8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
