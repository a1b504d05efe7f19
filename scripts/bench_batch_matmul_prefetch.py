#!/usr/bin/env python3
"""batch_matmul.mlir's stored 8 × 256³ kernel with and without a software prefetch of the
next n tile's B panel after its copy (knob prefetch_b = 1: the template's
`transform.xlinalg.prefetch_next_iteration`; other localities: the same rewrite,
`xlinalg.transforms.scf.prefetch.prefetch_next_iteration`, applied to the scheduled module),
interleaved.

    python scripts/bench_batch_matmul_prefetch.py [--rounds 9] [--stat median] [--timer cpu]
"""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial
from pathlib import Path

import numpy as np
from bench_stats import Peak, add_arguments, call_seconds, interleaved
from bench_templates import FIXED

import xlinalg
from xlinalg.transforms.scf.prefetch import prefetch_next_iteration

ROOT = Path(__file__).resolve().parent.parent


def prefetching_kernel(payload: str, schedule: str, knobs: dict[str, int], locality: int) -> object:
    """The scheduled payload with the next B panel prefetched after each B copy."""
    module = xlinalg.apply_schedule(xlinalg.parse(payload), schedule, knobs=knobs)
    copies = [op for op in module.walk() if op.name == "linalg.copy"]
    if not copies:
        raise SystemExit("no B copy in the scheduled kernel (pack_b = 0?)")
    for copy in copies:
        prefetch_next_iteration(copy, locality)
    return xlinalg.compile(str(module))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument(
        "--locality",
        type=int,
        nargs="*",
        default=[2],
        help="also the rewrite with these locality hints (prefetch_b = 1 is 3)",
    )
    add_arguments(parser)
    args = parser.parse_args()
    payload = (ROOT / "examples" / "batch_matmul_8x256.mlir").read_text()
    schedule = (ROOT / "search_spaces" / "batch_matmul.mlir").read_text()
    knobs = FIXED["batch_matmul.mlir"]
    kernels = {
        "stored": xlinalg.compile(payload, schedule=schedule, knobs=knobs),
        "prefetch_b = 1": xlinalg.compile(
            payload, schedule=schedule, knobs={**knobs, "prefetch_b": 1}
        ),
    }
    for locality in args.locality:
        kernels[f"prefetch locality {locality}"] = prefetching_kernel(
            payload, schedule, knobs, locality
        )
    inputs = kernels["stored"].make_inputs(seed=1)
    if not kernels["stored"].check(*inputs).ok:  # type: ignore[attr-defined]
        raise SystemExit("stored kernel: wrong result")
    expected = [a.copy() for a in inputs]
    kernels["stored"](*expected)
    scratch = {}
    for name, kernel in kernels.items():
        got = [a.copy() for a in inputs]
        kernel(*got)
        np.testing.assert_allclose(got[2], expected[2], rtol=1e-5, atol=1e-3)
        scratch[name] = [a.copy() for a in inputs]
    peak = Peak()
    seconds = interleaved(
        {
            name: partial(call_seconds, partial(kernel, *scratch[name]), 15, args.stat, args.timer)
            for name, kernel in kernels.items()
        },
        args.rounds,
        args.stat,
    )
    peak.measure()
    work = 2.0 * 8 * 256**3
    print(f"{peak}; timer {args.timer}, stat {args.stat}; load {os.getloadavg()[0]:.1f}")
    for name, s in seconds.items():
        print(
            f"{name:>22}: {work / s / 1e9:6.1f} GFLOP/s  {work / s / 1e9 / peak.gflops:.3f} of peak"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
