#!/usr/bin/env python3
"""Data-tiled matmul speed: search_spaces/matmul_mmt4d.mlir and linalg.mmt4d vs OpenBLAS and the FMA peak.

    python scripts/bench_mmt4d.py [--trials 30] [--mmt4d-trials 20] [--shapes 512 1024 384x1000x256]
    python scripts/bench_mmt4d.py --shapes 1024 --knobs m0=8,n0=32,tm1=8,tn1=4,tk=256,rk=4,cache_order=0,reg_order=1 \
        --mmt4d-knobs tm1=8,tn1=4,tk=256,rk=4,cache_order=0,reg_order=1 --stat min --rounds 15

For every shape M×N×K (f32, tensors, C = A·B into a new tensor) it tunes
`search_spaces/matmul_mmt4d.mlir` with the real tuner (isolated, checked trials in
`results/bench.db`; rerunning resumes), then times in this one process, interleaved,
the best schedule (packing of A and B included in every call, as IREE's data tiling)
and NumPy/OpenBLAS limited to one thread. It prints GFLOP/s medians, the ratio to
OpenBLAS, the fraction of the FMA peak measured by a native microkernel, and the
median compile seconds per candidate (apply schedule + lower + llvmlite O3, as the
trials recorded them).

Then `linalg.mmt4d` itself (pre-packed operands, m0 = 8, n0 = 32, k0 = 1) tuned with
`search_spaces/mmt4d.mlir`: GFLOP/s, % of peak, and OpenBLAS on the equivalent matmul.
The machine is noisy: compare ratios, not absolute times. This is a section the
integrator can merge into bench_matmul.py (it reuses its tuning and timing helpers).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from bench_matmul import (
    _median_compile_seconds,
    _time_blas,
    median_seconds,
    parse_shape,
    tune,
)

import xlinalg
from xlinalg.backend.peak import measure_fma_peak_gflops

SPACE = ROOT / "search_spaces" / "matmul_mmt4d.mlir"
MMT4D_SPACE = ROOT / "search_spaces" / "mmt4d.mlir"

PAYLOAD = """// C = A · B on tensors, {m}x{k} · {k}x{n}, f32
func.func @matmul(%A: tensor<{m}x{k}xf32>, %B: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %empty = tensor.empty() : tensor<{m}x{n}xf32>
  %zero = arith.constant 0.0 : f32
  %C = linalg.fill ins(%zero : f32) outs(%empty : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %0 = linalg.matmul ins(%A, %B : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%C : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %0 : tensor<{m}x{n}xf32>
}}
"""

MMT4D = """// linalg.mmt4d on pre-packed operands ({m}x{n}x{k} matmul, m0 = {m0}, n0 = {n0}, k0 = 1)
func.func @mmt4d(%lhs: memref<{m1}x{k}x{m0}x1xf32>, %rhs: memref<{n1}x{k}x{n0}x1xf32>, %acc: memref<{m1}x{n1}x{m0}x{n0}xf32>) {{
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<{m1}x{n1}x{m0}x{n0}xf32>)
  linalg.mmt4d ins(%lhs, %rhs : memref<{m1}x{k}x{m0}x1xf32>, memref<{n1}x{k}x{n0}x1xf32>) outs(%acc : memref<{m1}x{n1}x{m0}x{n0}xf32>)
  return
}}
"""


def _knobs(text: str) -> dict[str, int]:
    """`m0=8,n0=32,...` as a dict."""
    try:
        return {key: int(value) for key, value in (item.split("=") for item in text.split(","))}
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected NAME=INT,NAME=INT,..., got '{text}'") from None


def _interleaved(runners: dict, rounds: int, stat: str) -> dict[str, float]:  # type: ignore[type-arg]
    """Each runner once per round, interleaved so drift hits all alike; the median (or, on a
    machine shared with other jobs, the fastest: time slices only ever add) over the rounds."""
    times: dict[str, list[float]] = {key: [] for key in runners}
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(rounds):
            for key, run in runners.items():
                times[key].append(run())
    pick = min if stat == "min" else statistics.median
    return {key: pick(v) for key, v in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", nargs="+", type=parse_shape,
                        default=[parse_shape(s) for s in ("512", "1024", "384x1000x256")])
    parser.add_argument("--trials", type=int, default=30, help="trials per shape (matmul_mmt4d.mlir)")
    parser.add_argument("--mmt4d-trials", type=int, default=20, help="trials of linalg.mmt4d (0: skip)")
    parser.add_argument("--mmt4d-shape", type=parse_shape, default=parse_shape("1024"))
    parser.add_argument("--storage", default=f"sqlite:///{ROOT / 'results' / 'bench.db'}")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved timing rounds")
    parser.add_argument("--stat", choices=("median", "min"), default="median",
                        help="per column over the rounds: median, or min (fastest round) on a shared machine")
    parser.add_argument("--knobs", type=_knobs, default=None,
                        help="fixed knobs for every shape instead of tuning, e.g. m0=8,n0=32,tm1=8,tn1=4,"
                             "tk=256,rk=4,cache_order=0,reg_order=1")
    parser.add_argument("--mmt4d-knobs", type=_knobs, default=None,
                        help="fixed knobs of the linalg.mmt4d template instead of tuning")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    (ROOT / "results").mkdir(exist_ok=True)

    peaks = [measure_fma_peak_gflops() for _ in range(3)]
    peak = max(peaks) if args.stat == "min" else statistics.median(peaks)
    print(f"FMA peak {peak:.1f} GFLOP/s per core (measured)")
    print(f"{'M x N x K':>18} | {'mmt4d':>8} | {'OpenBLAS':>8} | {'ours/BLAS':>9} | {'ours/peak':>9} | "
          f"{'BLAS/peak':>9} | {'compile s':>9}", flush=True)
    for m, n, k in args.shapes:
        payload = PAYLOAD.format(m=m, n=n, k=k)
        name = f"bench-matmul-mmt4d-{m}x{n}x{k}"
        if args.knobs is not None:
            kernel = xlinalg.compile(payload, schedule=SPACE.read_text(), knobs=args.knobs)
        else:
            kernel = xlinalg.compile(payload, schedule=tune(payload, name, args.storage, args.trials, args.seed, SPACE))
        a, b = kernel.make_inputs(seed=1)
        assert kernel.check(a, b).ok
        out = np.empty((m, n), np.float32)
        t = _interleaved({
            "ours": lambda kernel=kernel, a=a, b=b: kernel.time(a, b).median_s,
            "blas": lambda a=a, b=b, out=out: median_seconds(lambda: _time_blas(a, b, out), 7),
        }, args.rounds, args.stat)
        flops = 2.0 * m * n * k
        ours, blas = flops / t["ours"] / 1e9, flops / t["blas"] / 1e9
        compile_s = kernel.compile_seconds if args.knobs is not None else _median_compile_seconds(args.storage, name)
        print(f"{f'{m} x {n} x {k}':>18} | {ours:8.2f} | {blas:8.2f} | {ours / blas:9.2f} | "
              f"{ours / peak:9.2f} | {blas / peak:9.2f} | {compile_s:9.2f}", flush=True)
    print(f"\nGFLOP/s ({args.stat} of {args.rounds} interleaved rounds, each a median of calls); f32; "
          "one thread; packing of A and B included.")

    if args.mmt4d_trials:
        m, n, k = args.mmt4d_shape
        m0, n0 = 8, 32
        payload = MMT4D.format(m=m, n=n, k=k, m0=m0, n0=n0, m1=-(-m // m0), n1=-(-n // n0))
        name = f"bench-mmt4d-{m}x{n}x{k}"
        if args.mmt4d_knobs is not None:
            kernel = xlinalg.compile(payload, schedule=MMT4D_SPACE.read_text(), knobs=args.mmt4d_knobs)
        else:
            kernel = xlinalg.compile(payload, schedule=tune(payload, name, args.storage, args.mmt4d_trials,
                                                            args.seed, MMT4D_SPACE))
        lhs, rhs, acc = kernel.make_inputs(seed=1)
        assert kernel.check(lhs, rhs, acc).ok
        a = np.random.default_rng(1).random((m, k), np.float32)
        b = np.random.default_rng(2).random((k, n), np.float32)
        out = np.empty((m, n), np.float32)
        t = _interleaved({
            "ours": lambda: kernel.time(lhs, rhs, acc).median_s,
            "blas": lambda: median_seconds(lambda: _time_blas(a, b, out), 7),
        }, args.rounds, args.stat)
        flops = 2.0 * m * n * k
        ours, blas = flops / t["ours"] / 1e9, flops / t["blas"] / 1e9
        print(f"\nlinalg.mmt4d {m}x{n}x{k} (m0={m0}, n0={n0}, k0=1): {ours:.2f} GFLOP/s = {ours / peak:.2f} of peak; "
              f"OpenBLAS sgemm {blas:.2f} ({ours / blas:.2f}x); compile "
              f"{kernel.compile_seconds if args.mmt4d_knobs else _median_compile_seconds(args.storage, name):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
