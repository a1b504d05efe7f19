#!/usr/bin/env python3
"""Matmul speed, side by side: untiled lowering, tuned schedules, NumPy/OpenBLAS, FMA peak.

    python scripts/bench_matmul.py [--trials 30] [--vec-trials 30] [--par-trials 30]
                                   [--shapes 256 512 1024 384x1000x256] [--no-iree]
    python scripts/bench_matmul.py --shapes 512 1024 384x1000x256 --trials 0 --no-untiled \
                                   --fixed --stat min --rounds 7     # stored knobs, no tuning

For every shape M×N×K (f32, C = A·B) it tunes `search_spaces/matmul_tile.mlir`
(scalar loops, LLVM's auto-vectorizer) and `search_spaces/matmul_vectorize.mlir`
(register blocks vectorized by `transform.structured.vectorize`, accumulators
hoisted, FMAs on `<16 x float>`) with the real tuner (isolated, checked trials
in `results/bench.db`; rerunning resumes the studies), then measures in this
one process, interleaved:
  - the payload lowered without any schedule (the untiled loop nest),
  - the best schedule of each template,
  - NumPy/OpenBLAS limited to one thread (threadpoolctl),
and prints GFLOP/s medians, their ratios to OpenBLAS and to the FMA peak
measured by a native microkernel, and the median compile seconds of the best
vectorize schedule (`compile_seconds`: apply schedule + lower + llvmlite O3 +
JIT, median of 5 compiles in this process). The machine is noisy: the figures are medians of several
timing rounds; compare ratios, not absolute times (`--stat min`: the fastest round,
on a machine shared with other jobs). `--vec-trials 0` skips the vectorize template,
`--trials 0` the scalar one. Instead of tuning: `--stored` takes the studies' best
trials as they are, `--fixed` the knobs in `FIXED_VEC`/`FIXED_PAR` below (found by
short tuning runs) for the shapes listed there, `--knobs` / `--par-knobs` give knobs
(`SHAPE:` before them for one shape only). The knobs measured are printed at the end.

A second table covers threads: `search_spaces/matmul_parallel.mlir` (an outer
`tile_using_forall` over M or N with knob `threads` in {1, 2}, then the
vectorize template's steps) is tuned (`--par-trials`, 0 skips it); its best
schedule is compiled with threads = 1 and with threads = 2 and measured next to
NumPy/OpenBLAS with 1 and 2 threads and, when the `iree.compiler` and
`iree.runtime` packages (pip `iree-base-compiler`, `iree-base-runtime`) are
installed, IREE's default CPU compile of the same payload in tensor form
(`--iree-llvmcpu-target-cpu=host`; driver `local-sync` = 1 thread, `local-task`
limited to 2 workers = 2 threads; inputs already on the device). Its ratio
columns: ours with 2 threads over OpenBLAS with 2 threads and over 2 × the FMA
peak of one core; compile s = `compile_seconds` of the best parallel schedule.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from bench_stats import Peak, add_arguments, call_seconds, interleaved, timing_seconds
from threadpoolctl import threadpool_limits

import xlinalg
from xlinalg.examples import fill_matmul

ROOT = Path(__file__).resolve().parent.parent
SPACE = ROOT / "search_spaces" / "matmul_tile.mlir"
VEC_SPACE = ROOT / "search_spaces" / "matmul_vectorize.mlir"
PAR_SPACE = ROOT / "search_spaces" / "matmul_parallel.mlir"


def matmul_payload(m: int, n: int, k: int) -> str:
    """The benchmarked kernel on buffers (byte for byte the text the studies of
    results/bench.db were created with: a study refuses a different payload)."""
    return f"// C = A · B, {m}x{k} · {k}x{n}, f32\n" + fill_matmul(m, n, k, kind="memref")


def parse_shape(text: str) -> tuple[int, int, int]:
    parts = [int(p) for p in text.lower().split("x")]
    if len(parts) == 1:
        return parts[0], parts[0], parts[0]
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"shape '{text}' is neither N nor MxNxK")
    return parts[0], parts[1], parts[2]


def tune(
    payload: str, name: str, storage: str, trials: int, seed: int, space_file: Path = SPACE
) -> str:
    """Run (or resume) the tuning study for one shape; return its best schedule."""
    from tuner.export import best_schedule  # noqa: PLC0415 - the tuner (Optuna) is heavy: only to tune (the payloads are imported without it)
    from tuner.study import StudyInfo, run, setup  # noqa: PLC0415 - the tuner (Optuna) is heavy: only to tune (the payloads are imported without it)

    study, space = setup(
        storage,
        name,
        payload,
        space_file.read_text(),
        f"{name}.mlir",
        space_file.name,
        space_path=str(space_file),
        seed=seed,
        n_trials=trials,
    )
    start = time.perf_counter()
    run(study, space, StudyInfo.of(study), n_trials=trials)
    print(
        f"  tuned {name}: {len(study.trials)} trials in the study, "
        f"{time.perf_counter() - start:.0f} s this run",
        file=sys.stderr,
    )
    return best_schedule(storage, name, header=False)


def blas_runner(a: np.ndarray, b: np.ndarray, threads: int, stat: str, timer: str = "wall"):  # type: ignore[no-untyped-def]
    """One round of NumPy/OpenBLAS on `threads` threads: 7 single calls, their `stat` (one
    thread: OpenBLAS runs in this thread, so `--timer cpu` applies; two threads: wall time)."""
    out = np.empty((a.shape[0], b.shape[1]), np.float32)

    def run() -> float:
        with threadpool_limits(limits=threads, user_api="blas"):
            return call_seconds(lambda: np.matmul(a, b, out=out), 7, stat, timer)

    return run


#: Knobs found by short tuning runs (`--fixed` uses them instead of tuning): the vectorize
#: template on one thread and the parallel template (threads = 2 added) per shape.
#: Chosen among the best trials of 24-trial studies and earlier knobs, re-timed side by side
#: (CPU time, fastest of 9 rounds; load ~7): 105 / 102 / 92 GFLOP/s there. 384x1000x256:
#: peel = 1 (the partial register blocks of the last cache tile peeled, every other block
#: unmasked). Same-run CPU-time minima on this script's memref payload (load 2.8): 6x32
#: 0.97x -> 1.01x OpenBLAS, 16x16 0.96x -> 1.04x (0.955 of the FMA peak; 16 accumulators,
#: only 8 masked columns left at the N edge), ahead of 8x32 (1.03x) and 12x32 (1.02x); on
#: the tensor payload peel = 0 is far worse (6x32 0.55x, peel = 1 0.97x; load 3.5).
FIXED_VEC: dict[tuple[int, int, int], dict[str, int]] = {
    (512, 512, 512): {
        "tile_m": 64,
        "tile_n": 256,
        "tile_k": 256,
        "reg_m": 8,
        "reg_n": 16,
        "reg_k": 1,
        "cache_order": 0,
        "unroll_k": 1,
        "peel": 0,
    },
    (1024, 1024, 1024): {
        "tile_m": 64,
        "tile_n": 128,
        "tile_k": 256,
        "reg_m": 8,
        "reg_n": 32,
        "reg_k": 4,
        "cache_order": 0,
        "unroll_k": 0,
        "peel": 0,
    },
    (384, 1000, 256): {
        "tile_m": 64,
        "tile_n": 256,
        "tile_k": 256,
        "reg_m": 16,
        "reg_n": 16,
        "reg_k": 4,
        "cache_order": 0,
        "unroll_k": 0,
        "peel": 1,
    },
}
#: The same blocks split over N (parallel_dim = 1) between the threads.
FIXED_PAR: dict[tuple[int, int, int], dict[str, int]] = {
    shape: {**knobs, "parallel_dim": 1} for shape, knobs in FIXED_VEC.items()
}


def _given(
    args: argparse.Namespace,
    given: list | None,
    table: dict,  # type: ignore[type-arg]
    shape: tuple[int, int, int],
) -> dict[str, int] | None:
    """Fixed knobs for `shape`: from the command line, else with --fixed the script's table."""
    from bench_mmt4d import _fixed  # noqa: PLC0415 - bench_mmt4d imports this module

    fixed = _fixed(given, shape)
    return fixed if fixed is not None or not args.fixed else table.get(shape)


def _knob_text(knobs: dict[str, int]) -> str:
    return ",".join(f"{key}={value}" for key, value in knobs.items())


def main() -> int:
    import optuna  # noqa: PLC0415 - Optuna is heavy: only to tune (the payloads are imported without it)
    from bench_mmt4d import _knobs, _schedule  # noqa: PLC0415 - bench_mmt4d imports this module

    # the trial lines are the tuner's business: Optuna's per-trial log (with a traceback
    # for every too_slow/failed candidate) would bury the tables
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--shapes",
        nargs="+",
        type=parse_shape,
        default=[parse_shape(s) for s in ("256", "512", "1024", "384x1000x256")],
        help="N (cube) or MxNxK",
    )
    parser.add_argument(
        "--trials", type=int, default=30, help="tuning trials per shape (matmul_tile.mlir)"
    )
    parser.add_argument(
        "--vec-trials", type=int, default=30, help="tuning trials per shape (matmul_vectorize.mlir)"
    )
    parser.add_argument(
        "--par-trials",
        type=int,
        default=30,
        help="tuning trials per shape (matmul_parallel.mlir, threads knob)",
    )
    parser.add_argument(
        "--stored", action="store_true", help="no tuning: the studies' best stored trials"
    )
    parser.add_argument(
        "--fixed",
        action="store_true",
        help="no tuning for the shapes in FIXED_VEC / FIXED_PAR: their knobs",
    )
    parser.add_argument(
        "--knobs",
        type=_knobs,
        action="append",
        default=None,
        help="fixed knobs of matmul_vectorize.mlir, e.g. [512:]tile_m=96,tile_n=128,"
        "tile_k=256,reg_m=6,reg_n=32,reg_k=4,cache_order=0,unroll_k=0,peel=1 "
        "(repeatable, SHAPE: for one shape)",
    )
    parser.add_argument(
        "--par-knobs",
        type=_knobs,
        action="append",
        default=None,
        help="fixed knobs of matmul_parallel.mlir (threads 1 and 2 are set)",
    )
    parser.add_argument("--no-iree", action="store_true", help="skip the IREE columns")
    parser.add_argument(
        "--no-untiled",
        action="store_true",
        help="skip the untiled column (seconds per call at 1024^3)",
    )
    parser.add_argument("--storage", default=f"sqlite:///{ROOT / 'results' / 'bench.db'}")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds")
    add_arguments(parser, timer=False)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    (ROOT / "results").mkdir(exist_ok=True)

    peak = Peak()
    info = xlinalg.host_info()
    print(f"host: {info.get('cpu_model', '?')} ({info.get('llvm_cpu', '?')}), {peak}")
    header = (
        f"{'M x N x K':>18} | {'untiled':>8} | {'tiled':>8} | {'vector':>8} | "
        f"{'OpenBLAS':>8} | {'vector/BLAS':>11} | {'vector/peak':>11} | "
        f"{'BLAS/peak':>9} | {'compile s':>9}"
    )
    rows = []
    chosen: list[str] = []
    for m, n, k in args.shapes:
        shape = (m, n, k)
        payload = matmul_payload(m, n, k)
        name = f"bench-matmul-{m}x{n}x{k}"
        kernels = {} if args.no_untiled else {"untiled": xlinalg.compile(payload)}
        if args.trials and not args.stored:
            kernels["tiled"] = xlinalg.compile(
                payload, schedule=tune(payload, name, args.storage, args.trials, args.seed)
            )
        compile_s = float("nan")
        fixed = _given(args, args.knobs, FIXED_VEC, shape)
        if args.vec_trials or args.stored or fixed is not None:
            kernels["vector"], knobs, compile_s = _schedule(
                payload,
                f"bench-matmul-vec-{m}x{n}x{k}",
                VEC_SPACE,
                fixed,
                args.vec_trials,
                args,
                {},
            )
            chosen.append(f"  {m}x{n}x{k} vector: {_knob_text(knobs)}")
        if not kernels:
            continue
        a, b, c = next(iter(kernels.values())).make_inputs(seed=1)
        for kernel in kernels.values():
            assert kernel.check(a, b, c).ok
        flops = 2.0 * m * n * k
        runners = {
            key: (
                lambda kernel=kernel, key=key, xs=(a, b, c): timing_seconds(
                    kernel.time(*xs, **({"max_total_s": 0.5} if key == "untiled" else {})),
                    args.stat,
                )
            )
            for key, kernel in kernels.items()
        }
        runners["blas"] = blas_runner(a, b, 1, args.stat)
        g = {
            key: flops / v / 1e9 for key, v in interleaved(runners, args.rounds, args.stat).items()
        }
        peak.measure()
        nan = float("nan")
        vec = g.get("vector", nan)
        rows.append(
            f"{f'{m} x {n} x {k}':>18} | {g.get('untiled', nan):8.2f} | {g.get('tiled', nan):8.2f} | "
            f"{vec:8.2f} | {g['blas']:8.2f} | {vec / g['blas']:11.2f} | "
            f"{vec / peak.gflops:11.2f} | {g['blas'] / peak.gflops:9.2f} | {compile_s:9.2f}"
        )
        print(rows[-1] if len(rows) > 1 else header + "\n" + rows[-1], flush=True)
    print(
        f"\nGFLOP/s ({args.stat} of {args.rounds} interleaved rounds, each the {args.stat} of "
        f"its calls); f32; one thread for every column; {peak}."
    )
    if args.par_trials or args.stored or args.fixed or args.par_knobs:
        print()
        chosen += _threads_table(args, peak)
    print("Knobs:\n" + "\n".join(chosen))
    return 0


def _threads_table(args: argparse.Namespace, peak: Peak) -> list[str]:
    """Best parallel schedule with 1 and 2 threads vs OpenBLAS and IREE with 1 and 2 threads;
    returns the knobs used, one line per shape."""
    iree = None if args.no_iree else _iree_module(args.stat)
    header = (
        f"{'M x N x K':>18} | {'ours 1T':>8} | {'ours 2T':>8} | {'BLAS 1T':>8} | "
        f"{'BLAS 2T':>8} | {'IREE 1T':>8} | {'IREE 2T':>8} | {'2T/BLAS2T':>9} | "
        f"{'2T/IREE2T':>9} | {'2T/2peak':>8} | {'compile s':>9}"
    )
    print(header, flush=True)
    nan = float("nan")
    chosen: list[str] = []
    for m, n, k in args.shapes:
        payload = matmul_payload(m, n, k)
        name = f"bench-matmul-par-{m}x{n}x{k}"
        best = _given(args, args.par_knobs, FIXED_PAR, (m, n, k))
        if best is None:
            tune(
                payload,
                name,
                args.storage,
                0 if args.stored else args.par_trials,
                args.seed,
                PAR_SPACE,
            )
            best = _best_params(args.storage, name)
        best = {key: v for key, v in best.items() if key != "threads"}
        chosen.append(f"  {m}x{n}x{k} parallel: {_knob_text(best)}")
        kernels = {
            f"{t}T": xlinalg.compile(payload, schedule=PAR_SPACE, knobs={**best, "threads": t})
            for t in (1, 2)
        }
        compile_s = compile_seconds(payload, PAR_SPACE, {**best, "threads": 2})
        a, b, c = kernels["1T"].make_inputs(seed=1)
        for kernel in kernels.values():
            assert kernel.check(a, b, c).ok
        runners = {
            key: (lambda kernel=kernel, xs=(a, b, c): timing_seconds(kernel.time(*xs), args.stat))
            for key, kernel in kernels.items()
        }
        for t in (1, 2):
            runners[f"blas{t}"] = blas_runner(a, b, t, args.stat)
        if iree is not None:
            try:
                runners.update(iree(fill_matmul(m, n, k), a, b))
            except Exception as err:  # IREE is an optional comparison
                print(f"  IREE failed on {m}x{n}x{k}: {err}", file=sys.stderr)
        flops = 2.0 * m * n * k
        g = {
            key: flops / v / 1e9 for key, v in interleaved(runners, args.rounds, args.stat).items()
        }
        peak.measure()
        two = g["2T"]
        print(
            f"{f'{m} x {n} x {k}':>18} | {g['1T']:8.2f} | {two:8.2f} | {g['blas1']:8.2f} | "
            f"{g['blas2']:8.2f} | {g.get('iree1', nan):8.2f} | {g.get('iree2', nan):8.2f} | "
            f"{two / g['blas2']:9.2f} | {two / g.get('iree2', nan):9.2f} | {two / (2 * peak.gflops):8.2f} | "
            f"{compile_s:9.2f}",
            flush=True,
        )
    print(
        f"\nGFLOP/s ({args.stat} of {args.rounds} interleaved rounds); f32; 1T/2T = one/two threads; "
        "2peak = twice the one-core FMA peak."
    )
    return chosen


def _best_params(storage: str, study_name: str) -> dict:  # type: ignore[type-arg]
    """The knob values of the study's best trial."""
    import optuna  # noqa: PLC0415 - Optuna is heavy: only to tune (the payloads are imported without it)

    return dict(optuna.load_study(study_name=study_name, storage=storage).best_trial.params)


def _iree_module(stat: str = "median"):  # type: ignore[no-untyped-def]
    """A function (payload, a, b) -> {"iree1": timer, "iree2": timer}, or None without IREE;
    a timer's figure is the `stat` of 7 calls (`bench_stats.call_seconds`)."""
    try:
        import iree.compiler as ireec  # noqa: PLC0415 - IREE is optional: the comparison runs when it is installed
        import iree.runtime as ireert  # noqa: PLC0415 - IREE is optional: the comparison runs when it is installed
    except ImportError:
        print("  (iree.compiler / iree.runtime not installed: no IREE columns)", file=sys.stderr)
        return None
    # local-task with at most 2 workers (the flag must be set before a device exists).
    ireert.flags.parse_flags("--task_topology_max_group_count=2")
    configs = {"iree1": ireert.Config("local-sync"), "iree2": ireert.Config("local-task")}

    def build(payload: str, a: np.ndarray, b: np.ndarray) -> dict:  # type: ignore[type-arg]
        vmfb = ireec.compile_str(
            payload, target_backends=["llvm-cpu"], extra_args=["--iree-llvmcpu-target-cpu=host"]
        )
        timers = {}
        for key, config in configs.items():
            context = ireert.SystemContext(config=config)
            context.add_vm_module(ireert.VmModule.copy_buffer(context.instance, vmfb))
            fn = context.modules.module["matmul"]
            da, db = ireert.asdevicearray(config.device, a), ireert.asdevicearray(config.device, b)
            np.testing.assert_allclose(fn(da, db).to_host(), a @ b, rtol=1e-3, atol=1e-3)

            def timer(fn=fn, da=da, db=db) -> float:
                return call_seconds(lambda: fn(da, db), 7, stat)

            timers[key] = timer
        return timers

    return build


def compile_seconds(
    payload: str, schedule: str | Path | None, knobs: dict | None = None, reps: int = 5
) -> float:
    """Median `Kernel.compile_seconds` of `reps` compiles in this process after a first one:
    apply schedule + lower + llvmlite O3 + MCJIT (payload/schedule parse served from the
    parse cache), the same definition as `scripts/profile_compile.py` and the steady state
    of a tuner candidate (its forkserver is warmed up). The "compile s" column."""
    xlinalg.compile(payload, schedule=schedule, knobs=knobs)
    return statistics.median(
        xlinalg.compile(payload, schedule=schedule, knobs=knobs).compile_seconds
        for _ in range(reps)
    )


def _median_compile_seconds(storage: str, study_name: str) -> float:
    """Median `compile_s` over the study's trials that compiled (as the workers measured it)."""
    from tuner.results import trials  # noqa: PLC0415 - the tuner (Optuna) is heavy: only to tune (the payloads are imported without it)

    frame = trials(storage, [study_name])
    values = frame["compile_s"].dropna() if "compile_s" in frame else []
    return float(statistics.median(values)) if len(values) else float("nan")


if __name__ == "__main__":
    sys.exit(main())
