#!/usr/bin/env python3
"""Data-tiled matmul speed, 1 and 2 threads: search_spaces/matmul_mmt4d.mlir and
matmul_mmt4d_parallel.mlir vs OpenBLAS, IREE and the FMA peak, in one run.

    python scripts/bench_mmt4d.py [--trials 30] [--par-trials 20] [--mmt4d-trials 20] [--shapes 512 1024 384x1000x256]
    python scripts/bench_mmt4d.py --stored --stat min --rounds 15      # STORED_KNOBS, no tuning
    python scripts/bench_mmt4d.py --stored --par-trials 0 --mmt4d-trials 0 --no-iree --stat min --timer cpu  # loaded machine
    python scripts/bench_mmt4d.py --shapes 512 1024 --knobs m0=8,n0=32,tm1=8,tn1=4,tk=256,rk=4,cache_order=0,reg_order=1,zero_c=1 \
        --par-trials 0 --fixed-par --mmt4d-trials 0 --stat min --rounds 9    # 2 threads: FIXED_PAR
    python scripts/bench_mmt4d.py --shapes 1024 --knobs m0=8,n0=32,tm1=8,tn1=4,tk=256,rk=4,cache_order=0,reg_order=1,zero_c=1 \
        --par-knobs 1024:m0=8,n0=32,tm1=8,tn1=4,tk=256,rk=4,cache_order=0,reg_order=1,parallel_dim=1,unpack_c=1 --stat min

For every shape M×N×K (f32, tensors, C = A·B into a new tensor) it tunes
`search_spaces/matmul_mmt4d.mlir` (one thread) and `matmul_mmt4d_parallel.mlir` with
threads = 2 (the real tuner: isolated, checked trials in `results/bench.db`; rerunning
resumes; `--stored` measures STORED_KNOBS (one thread; the studies' best trial for a shape
not in it and for 2 threads), 0 trials takes the studies' best trials as they are; `--knobs` /
`--par-knobs` give fixed knobs, `SHAPE:` before them for one shape only), then times in
this one process, interleaved: the two schedules (packing of A and B and the unpack of C
in every call, as IREE's data tiling), NumPy/OpenBLAS limited to 1 and 2 threads, and
IREE's default CPU compile of the same payload (`local-sync` = 1 thread, `local-task`
with 2 workers) when `iree-base-compiler`/`iree-base-runtime` are installed. It prints
GFLOP/s, the ratios to OpenBLAS, the fraction of the FMA peak measured in the same run
by a native microkernel (2 threads: of twice the one-core peak), and the median compile
seconds per candidate (`bench_matmul.compile_seconds`: median of repeated compiles of the
measured schedule in this process: apply schedule + lower + llvmlite O3 + JIT).

Then `linalg.mmt4d` itself (pre-packed operands, m0 = 8, n0 = 32, k0 = 1) tuned with
`search_spaces/mmt4d.mlir`: GFLOP/s, % of peak, and OpenBLAS on the equivalent matmul.
The machine is noisy: compare ratios, not absolute times; `--stat min` (the fastest
of the interleaved rounds) on a machine shared with other jobs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from bench_matmul import (
    _best_params,
    _iree_module,
    blas_runner,
    compile_seconds,
    parse_shape,
    tune,
)
from bench_stats import (
    Peak,
    add_arguments,
    call_seconds,
    interleaved,
    prepared_call,
    timing_seconds,
)

import xlinalg
from xlinalg.examples import fill_matmul

ROOT = Path(__file__).resolve().parent.parent
SPACE = ROOT / "search_spaces" / "matmul_mmt4d.mlir"
PAR_SPACE = ROOT / "search_spaces" / "matmul_mmt4d_parallel.mlir"
MMT4D_SPACE = ROOT / "search_spaces" / "mmt4d.mlir"

_PAR_COMMON = {
    "m0": 8,
    "n0": 32,
    "tm1": 8,
    "tn1": 4,
    "rk": 4,
    "cache_order": 0,
    "reg_order": 1,
    "parallel_dim": 0,
    "unpack_c": 1,
}
FIXED_PAR: dict[tuple[int, int, int], dict[str, int]] = {
    (512, 512, 512): {**_PAR_COMMON, "tk": 512},
    (1024, 1024, 1024): {**_PAR_COMMON, "tk": 256},
    (384, 1000, 256): {
        **_PAR_COMMON,
        "m0": 6,
        "n0": 64,
        "tm1": 4,
        "tn1": 8,
        "tk": 256,
        "reg_order": 0,
        "unpack_c": 0,
    },
}
"""Stored 2-thread knobs of matmul_mmt4d_parallel.mlir (`--fixed-par`), measured on the
persistent thread pool against OpenBLAS with 2 threads (README, "Threads"). 384x1000x256:
the 1T block (6x64) split over M1, fastest of 8x32 / 8x32 over N1 / 6x64 / 6x64 over N1 /
8x32 with the split unpack (209.7 vs 204.7-207.8 vs 198.8 GFLOP/s, fastest of 9 interleaved
rounds, one run at load 6.4: to re-measure on a quiet machine); C in place (unpack_c = 0)
beat the split unpack there in three same-process A/Bs (205 vs 189, 206 vs 201, 210 vs 199).
512^3 and 1024^3 keep the split unpack they were measured with (unpack_c = 1): their A/Bs at
load 4-7 were within noise either way (1024^3: 197 vs 196, 186 vs 192)."""


def matmul_tensor_payload(m: int, n: int, k: int) -> str:
    """The benchmarked kernel on tensors (byte for byte the text the studies of
    results/bench.db were created with: a study refuses a different payload)."""
    return f"// C = A · B on tensors, {m}x{k} · {k}x{n}, f32\n" + fill_matmul(m, n, k)


MMT4D = """// linalg.mmt4d on pre-packed operands ({m}x{n}x{k} matmul, m0 = {m0}, n0 = {n0}, k0 = 1)
func.func @mmt4d(%lhs: memref<{m1}x{k}x{m0}x1xf32>, %rhs: memref<{n1}x{k}x{n0}x1xf32>, %acc: memref<{m1}x{n1}x{m0}x{n0}xf32>) {{
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<{m1}x{n1}x{m0}x{n0}xf32>)
  linalg.mmt4d ins(%lhs, %rhs : memref<{m1}x{k}x{m0}x1xf32>, memref<{n1}x{k}x{n0}x1xf32>) outs(%acc : memref<{m1}x{n1}x{m0}x{n0}xf32>)
  return
}}
"""


#: Knobs of matmul_mmt4d.mlir per shape (M, N, K) that `--stored` measures (one thread).
#: tk = K: the C block stays in registers over the whole K (C read and written once); at
#: 1024^3 tk = 1024 ran 4 % faster than tk = 256 in the same run. 384x1000x256: the 6x64
#: block ran 1-3 % faster than 8x32, 16x16 and 12x32 in three interleaved runs (CPU-time
#: minima on the shared machine), although LLVM loads two pairs of its A values with vmovsd
#: and splits them with shuffles. N = 1000 is padded to 1024 (16 panels of 64) but C is
#: still written in place (edge panel masked): 1.5-2.9 % faster than the unpack through a
#: packed C in a same-process A/B; 12x16 (N padded to 1008 only) was no faster. zero_c = 1
#: (the fill's zeros forwarded into the register blocks: no zeroing of C, no C block loads),
#: same-process A/B vs zero_c = 0, CPU time, load 3.5-4.8, fastest / median of 11 rounds:
#: 384x1000x256 109.2 / 105.2 vs 104.2 / 103.9, 512^3 108.0 / 108.6 vs 105.3 / 105.0, 1024^3
#: 109.3 / 106.1 vs 106.2 / 103.2 GFLOP/s.
STORED_KNOBS: dict[tuple[int, int, int], dict[str, int]] = {
    (512, 512, 512): {
        "m0": 8,
        "n0": 32,
        "tm1": 8,
        "tn1": 4,
        "tk": 512,
        "rk": 4,
        "cache_order": 0,
        "reg_order": 1,
        "zero_c": 1,
    },
    (1024, 1024, 1024): {
        "m0": 8,
        "n0": 32,
        "tm1": 8,
        "tn1": 4,
        "tk": 1024,
        "rk": 4,
        "cache_order": 0,
        "reg_order": 1,
        "zero_c": 1,
    },
    (384, 1000, 256): {
        "m0": 6,
        "n0": 64,
        "tm1": 4,
        "tn1": 8,
        "tk": 256,
        "rk": 4,
        "cache_order": 0,
        "reg_order": 0,
        "zero_c": 1,
    },
}


def _knobs(text: str) -> tuple[tuple[int, int, int] | None, dict[str, int]]:
    """`[SHAPE:]m0=8,n0=32,...` as (shape or None for every shape, knobs)."""
    shape = None
    if ":" in text:
        head, text = text.split(":", 1)
        shape = parse_shape(head)
    try:
        return shape, {
            key: int(value) for key, value in (item.split("=") for item in text.split(","))
        }
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected [SHAPE:]NAME=INT,NAME=INT,..., got '{text}'"
        ) from None


def _fixed(given: list | None, shape: tuple[int, int, int]) -> dict[str, int] | None:  # type: ignore[type-arg]
    """The fixed knobs given for `shape` (a shape-specific entry wins), or None."""
    found = None
    for where, knobs in given or []:
        if where == shape:
            return knobs
        if where is None:
            found = knobs
    return found


def _schedule(
    payload: str,
    name: str,
    space: Path,
    fixed: dict[str, int] | None,
    trials: int,
    args: argparse.Namespace,
    extra: dict[str, int],
) -> tuple[xlinalg.Kernel, dict[str, int], float]:
    """The kernel of fixed knobs or of the study's best trial (tuned for `trials` more
    trials first unless --stored), its knobs and the compile seconds to report."""
    if fixed is None:
        tune(payload, name, args.storage, 0 if args.stored else trials, args.seed, space)
        knobs = {**_best_params(args.storage, name), **extra}
    else:
        knobs = {**fixed, **extra}
    kernel = xlinalg.compile(payload, schedule=space.read_text(), knobs=knobs)
    return kernel, knobs, compile_seconds(payload, space.read_text(), knobs)


def _kernel_runner(kernel: xlinalg.Kernel, args: tuple[np.ndarray, ...], stat: str, timer: str):  # type: ignore[no-untyped-def]
    """One round of a kernel: `Kernel.time` (native repeat loop) and its `stat` sample, or with
    `--timer cpu` 7 single calls in this thread's CPU time on arguments prepared once as
    `Kernel.time` does."""
    if timer == "wall":
        return lambda: timing_seconds(kernel.time(*args), stat)
    return lambda: call_seconds(prepared_call(kernel, *args), 7, stat, timer)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--shapes",
        nargs="+",
        type=parse_shape,
        default=[parse_shape(s) for s in ("512", "1024", "384x1000x256")],
    )
    parser.add_argument(
        "--trials", type=int, default=30, help="trials per shape (matmul_mmt4d.mlir)"
    )
    parser.add_argument(
        "--par-trials",
        type=int,
        default=20,
        help="trials per shape of matmul_mmt4d_parallel.mlir with threads = 2 (0: no 2-thread column)",
    )
    parser.add_argument(
        "--mmt4d-trials", type=int, default=20, help="trials of linalg.mmt4d (0: skip)"
    )
    parser.add_argument("--mmt4d-shape", type=parse_shape, default=parse_shape("1024"))
    parser.add_argument("--storage", default=f"sqlite:///{ROOT / 'results' / 'bench.db'}")
    parser.add_argument(
        "--stored", action="store_true", help="no tuning: the studies' best stored trials"
    )
    parser.add_argument("--no-iree", action="store_true", help="skip the IREE columns")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved timing rounds")
    add_arguments(parser)
    parser.add_argument(
        "--knobs",
        type=_knobs,
        action="append",
        default=None,
        help="fixed knobs of matmul_mmt4d.mlir instead of tuning, e.g. [1024:]m0=8,n0=32,tm1=8,"
        "tn1=4,tk=256,rk=4,cache_order=0,reg_order=1 (repeatable, SHAPE: for one shape)",
    )
    parser.add_argument(
        "--par-knobs",
        type=_knobs,
        action="append",
        default=None,
        help="fixed knobs of matmul_mmt4d_parallel.mlir (threads = 2 is added)",
    )
    parser.add_argument(
        "--fixed-par",
        action="store_true",
        help="no tuning of the 2-thread schedule for the shapes in FIXED_PAR: their knobs",
    )
    parser.add_argument(
        "--mmt4d-knobs",
        type=_knobs,
        default=None,
        help="fixed knobs of the linalg.mmt4d template instead of tuning",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    (ROOT / "results").mkdir(exist_ok=True)
    import optuna  # noqa: PLC0415 - Optuna is heavy: only to tune (the payloads are imported without it)

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    iree = None if args.no_iree else _iree_module(args.stat)

    peak = Peak()
    print(peak)
    header = (
        f"{'M x N x K':>18} | {'ours 1T':>8} | {'ours 2T':>8} | {'BLAS 1T':>8} | {'BLAS 2T':>8} | "
        f"{'IREE 1T':>8} | {'IREE 2T':>8} | {'1T/BLAS':>7} | {'1T/peak':>7} | {'2T/BLAS':>7} | "
        f"{'2T/2peak':>8} | {'compile s':>9}"
    )
    print(header, flush=True)
    nan = float("nan")
    chosen: list[str] = []
    for m, n, k in args.shapes:
        shape = (m, n, k)
        payload = matmul_tensor_payload(m, n, k)
        fixed = _fixed(args.knobs, shape)
        if fixed is None and args.stored:
            fixed = STORED_KNOBS.get(shape)
        one, knobs1, compile_s = _schedule(
            payload, f"bench-matmul-mmt4d-{m}x{n}x{k}", SPACE, fixed, args.trials, args, {}
        )
        chosen.append(f"  {m}x{n}x{k} 1T: {','.join(f'{key}={v}' for key, v in knobs1.items())}")
        a, b = one.make_inputs(seed=1)
        assert one.check(a, b).ok
        runners = {
            "1T": _kernel_runner(one, (a, b), args.stat, args.timer),
            "blas1": blas_runner(a, b, 1, args.stat, args.timer),
            "blas2": blas_runner(a, b, 2, args.stat),
        }
        par_fixed = _fixed(args.par_knobs, shape)
        if par_fixed is None and args.fixed_par:
            par_fixed = FIXED_PAR.get(shape)
        if args.par_trials or par_fixed is not None:
            two, knobs2, _ = _schedule(
                payload,
                f"bench-matmul-mmt4d-par-{m}x{n}x{k}",
                PAR_SPACE,
                par_fixed,
                args.par_trials,
                args,
                {"threads": 2},
            )
            chosen.append(
                f"  {m}x{n}x{k} 2T: {','.join(f'{key}={v}' for key, v in knobs2.items())}"
            )
            assert two.check(a, b).ok
            runners["2T"] = _kernel_runner(two, (a, b), args.stat, "wall")
        if iree is not None:
            try:
                runners.update(iree(payload, a, b))
            except Exception as err:  # IREE is an optional comparison
                print(f"  IREE failed on {m}x{n}x{k}: {err}", file=sys.stderr)
        t = interleaved(runners, args.rounds, args.stat)
        peak.measure()
        flops = 2.0 * m * n * k
        g = {key: flops / v / 1e9 for key, v in t.items()}
        g2 = g.get("2T", nan)
        print(
            f"{f'{m} x {n} x {k}':>18} | {g['1T']:8.2f} | {g2:8.2f} | {g['blas1']:8.2f} | {g['blas2']:8.2f} | "
            f"{g.get('iree1', nan):8.2f} | {g.get('iree2', nan):8.2f} | {g['1T'] / g['blas1']:7.2f} | "
            f"{g['1T'] / peak.gflops:7.2f} | {g2 / g['blas2']:7.2f} | {g2 / (2 * peak.gflops):8.2f} | {compile_s:9.2f}",
            flush=True,
        )
    print(
        f"\nGFLOP/s ({args.stat} of {args.rounds} interleaved rounds, each the {args.stat} of its calls; "
        f"timer {args.timer}); {peak}; f32; "
        "packing of A and B and the unpack of C included; 2peak = twice the one-core FMA peak. Knobs:"
    )
    print("\n".join(chosen))

    if args.mmt4d_trials:
        m, n, k = args.mmt4d_shape
        m0, n0 = 8, 32
        payload = MMT4D.format(m=m, n=n, k=k, m0=m0, n0=n0, m1=-(-m // m0), n1=-(-n // n0))
        name = f"bench-mmt4d-{m}x{n}x{k}"
        if args.mmt4d_knobs is not None:
            schedule, knobs = MMT4D_SPACE.read_text(), args.mmt4d_knobs[1]
        else:
            schedule, knobs = (
                tune(
                    payload,
                    name,
                    args.storage,
                    0 if args.stored else args.mmt4d_trials,
                    args.seed,
                    MMT4D_SPACE,
                ),
                None,
            )
        kernel = xlinalg.compile(payload, schedule=schedule, knobs=knobs)
        lhs, rhs, acc = kernel.make_inputs(seed=1)
        assert kernel.check(lhs, rhs, acc).ok
        a = np.random.default_rng(1).random((m, k), np.float32)
        b = np.random.default_rng(2).random((k, n), np.float32)
        t = interleaved(
            {
                "ours": _kernel_runner(kernel, (lhs, rhs, acc), args.stat, args.timer),
                "blas": blas_runner(a, b, 1, args.stat, args.timer),
            },
            args.rounds,
            args.stat,
        )
        flops = 2.0 * m * n * k
        ours, blas = flops / t["ours"] / 1e9, flops / t["blas"] / 1e9
        print(
            f"\nlinalg.mmt4d {m}x{n}x{k} (m0={m0}, n0={n0}, k0=1): {ours:.2f} GFLOP/s = {ours / peak.gflops:.2f} of peak; "
            f"OpenBLAS sgemm {blas:.2f} ({ours / blas:.2f}x); compile "
            f"{compile_seconds(payload, schedule, knobs):.2f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
