#!/usr/bin/env python3
"""Where the compile time of one tuning candidate goes, stage by stage.

    python scripts/profile_compile.py [--reps 7] [--cases matmul_vectorize conv2d ...]
                                      [--cprofile N] [--cprofile-case NAME]

For each tuned template (`search_spaces/matmul_vectorize.mlir`, `matmul_mmt4d.mlir`,
`matmul_parallel.mlir`, `conv2d_nhwc_hwcf.mlir`, `batch_matmul.mlir`) with fixed knob
values taken from the benchmarks (bench_matmul / bench_mmt4d / bench_conv --stored /
bench_templates studies), the payload at its benchmark shape is compiled `--reps`
times, exactly as `xlinalg.compile` does it, and the per-stage medians are printed:
parse of the payload and of the schedule, the clones, apply_schedule,
every stage of `xlinalg/lowering/pipeline.py` (the `to-llvm` line is the sum of the
conversion passes and of the LLVM IR emission below it), and the JIT steps (llvmlite
parse/verify, linking the call wrappers, the O3 pipeline, printing the optimised IR,
MCJIT machine code generation).

Figures are CPU seconds of this process (`time.process_time`: they mean something
on a loaded machine) and wall seconds. "compile" is the honest per-candidate figure
`Kernel.compile_seconds` reports (apply schedule + lower + llvmlite O3 + JIT; the
payload's parse is excluded when it comes from the parse cache). The first compile of
a process pays one-time costs (lazy imports, target machine); it is shown apart
("first") and left out of the medians, as the tuner's forkserver pays it once.

`--cprofile N` prints the N functions with the most cumulative time over all reps
of `--cprofile-case` (default: the first case). `--fork` measures instead what a
tuning candidate pays: one compile per child forked from this process after importing
`tuner._preload` (the forkserver's warmed-up state), CPU (user + system) and wall.
`--irdl-ops` prints instead, per case, how many ops the LLVM conversion builds through
their IRDL constructors, by class. `--hashes` prints instead, per case, short SHA-256 digests of what the stages produce
(the transformed payload, the LLVM IR we emit, the optimised IR, the host assembly): run
it before and after a compile-speed change and diff the two outputs.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import hashlib
import os
import pstats
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _bootstrap
import xdsl.irdl.operations as irdl
from bench_attention_tiling import payload as attention_payload
from bench_conv import LAYERS, STORED_KNOBS
from bench_conv import payload as conv_payload
from bench_encoding import payload as encoding_payload
from bench_matmul import matmul_payload
from bench_mmt4d import matmul_tensor_payload
from bench_templates import FIXED as BENCH_FIXED

import xlinalg
from tuner.constraints import first_violated, parse_constraints
from xlinalg.errors import XlinalgError
from xlinalg.ir.stage_times import StageTimes
from xlinalg.lowering import to_llvm

ROOT = _bootstrap.ROOT
SPACES = ROOT / "search_spaces"


@dataclass(frozen=True)
class Case:
    name: str
    payload: str
    space: Path
    knobs: dict[str, int]


def _matmul(n: int) -> str:
    return matmul_payload(n, n, n)


CASES = [
    # best trial of bench-matmul-vec-512x512x512 in results/bench.db
    Case(
        "matmul_vectorize 512",
        _matmul(512),
        SPACES / "matmul_vectorize.mlir",
        {
            "tile_m": 128,
            "tile_n": 128,
            "tile_k": 128,
            "reg_m": 4,
            "reg_n": 64,
            "reg_k": 2,
            "cache_order": 1,
            "unroll_k": 1,
            "peel": 0,
        },
    ),
    # bench_mmt4d.py's documented knobs
    Case(
        "matmul_mmt4d 512",
        matmul_tensor_payload(512, 512, 512),
        SPACES / "matmul_mmt4d.mlir",
        {
            "m0": 8,
            "n0": 32,
            "tm1": 8,
            "tn1": 4,
            "tk": 256,
            "rk": 4,
            "cache_order": 0,
            "reg_order": 1,
            "zero_c": 1,
        },
    ),
    # best trial of bench-matmul-par-512x512x512
    Case(
        "matmul_parallel 512",
        _matmul(512),
        SPACES / "matmul_parallel.mlir",
        {
            "threads": 2,
            "parallel_dim": 1,
            "tile_m": 64,
            "tile_n": 64,
            "tile_k": 128,
            "reg_m": 16,
            "reg_n": 16,
            "reg_k": 1,
            "cache_order": 0,
            "unroll_k": 0,
            "peel": 0,
        },
    ),
    Case(
        "conv2d 56x56x64->64",
        conv_payload(LAYERS[0]),
        SPACES / "conv2d_nhwc_hwcf.mlir",
        STORED_KNOBS[0],
    ),
    Case(
        "conv2d 7x7x512->512",
        conv_payload(LAYERS[3]),
        SPACES / "conv2d_nhwc_hwcf.mlir",
        STORED_KNOBS[3],
    ),
    Case(
        "batch_matmul 8x256",
        (ROOT / "examples" / "batch_matmul_8x256.mlir").read_text(),
        SPACES / "batch_matmul.mlir",
        {
            "tile_m": 64,
            "tile_n": 256,
            "tile_k": 256,
            "reg_m": 8,
            "reg_n": 32,
            "reg_k": 1,
            "cache_order": 0,
            "unroll_k": 0,
            "pack_b": 0,
            "peel_tiles": 0,
            "peel": 0,
            "pipeline_c": 0,
            "prefetch_b": 0,
        },
    ),
    # bench_templates.py --fixed knobs of the other two batch templates
    Case(
        "batch_matmul_mmt4d 8x256",
        (ROOT / "examples" / "batch_matmul_tensor_8x256.mlir").read_text(),
        SPACES / "batch_matmul_mmt4d.mlir",
        BENCH_FIXED["batch_matmul_mmt4d.mlir"],
    ),
    Case(
        "batch_mmt4d 8x256",
        (ROOT / "examples" / "batch_mmt4d_8x256.mlir").read_text(),
        SPACES / "batch_mmt4d.mlir",
        BENCH_FIXED["batch_mmt4d.mlir"],
    ),
]


def _example(name: str) -> str:
    return (ROOT / "examples" / name).read_text()


_CONV_TENSOR = """func.func @conv(%I: tensor<1x58x58x64xf32>, %F: tensor<3x3x64x64xf32>) -> tensor<1x56x56x64xf32> {
  %e = tensor.empty() : tensor<1x56x56x64xf32>
  %z = arith.constant 0.0 : f32
  %O = linalg.fill ins(%z : f32) outs(%e : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%I, %F : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%O : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %r : tensor<1x56x56x64xf32>
}
"""


def template_payloads() -> dict[str, str]:
    """A benchmark-size payload for every template of `search_spaces/` (`--templates`)."""
    return {
        "matmul_tile.mlir": _example("matmul_512.mlir"),
        "matmul_vectorize.mlir": _example("matmul_512.mlir"),
        "matmul_parallel.mlir": _example("matmul_512.mlir"),
        "matmul_mmt4d.mlir": _example("matmul_tensor_512.mlir"),
        "matmul_mmt4d_parallel.mlir": _example("matmul_tensor_512.mlir"),
        "mmt4d.mlir": _example("mmt4d_1024.mlir"),
        "encoding_matmul.mlir": encoding_payload(512, 512, 512),
        "conv2d_nhwc_hwcf.mlir": _example("conv2d_56x56x64.mlir"),
        "conv2d_img2col.mlir": _CONV_TENSOR,
        "batch_matmul.mlir": _example("batch_matmul_8x256.mlir"),
        "batch_matmul_mmt4d.mlir": _example("batch_matmul_tensor_8x256.mlir"),
        "batch_mmt4d.mlir": _example("batch_mmt4d_8x256.mlir"),
        "elementwise_fusion.mlir": _example("elementwise_chain.mlir"),
        "reduction.mlir": _example("reduction_rows.mlir"),
        "attention_tile.mlir": attention_payload("tensor", 1, 1024, 1024, 64),
    }


def sample_knobs(schedule: str, rng: random.Random, count: int) -> list[dict[str, Any]]:
    """Up to `count` distinct knob settings drawn uniformly from the template's options that
    satisfy its constraints (what a random sampler proposes; pruned ones never compile)."""
    knobs = xlinalg.list_knobs(schedule)
    constraints = parse_constraints(schedule)
    found: list[dict[str, Any]] = []
    for _ in range(200 * count):
        values = {k.name: rng.choice(list(k.options)) for k in knobs}
        if first_violated(constraints, values) is None and values not in found:
            found.append(values)
            if len(found) == count:
                break
    return found


def profile_templates(samples: int, seed: int, only: list[str] | None) -> None:
    """Median `Kernel.compile_seconds` (and CPU) over `samples` random valid knob settings of
    every template, each compiled once after a warm-up compile of the template."""
    print(
        f"{'template':<28} | {'ok':>2} | {'failed':>6} | {'median s':>8} | {'max s':>6} | "
        f"{'median CPU s':>12}"
    )
    for name, payload in template_payloads().items():
        if only and not any(s in name for s in only):
            continue
        schedule = (SPACES / name).read_text()
        walls, cpus, failed = [], [], 0
        for i, knobs in enumerate(sample_knobs(schedule, random.Random(f"{seed}-{name}"), samples)):
            try:
                if i == 0:  # first use of this template's ops in the process
                    xlinalg.compile(payload, schedule=schedule, knobs=knobs)
                start = time.process_time()
                kernel = xlinalg.compile(payload, schedule=schedule, knobs=knobs)
                cpus.append(time.process_time() - start)
                walls.append(kernel.compile_seconds)
            except XlinalgError:
                failed += 1
        if walls:
            print(
                f"{name:<28} | {len(walls):2d} | {failed:6d} | {statistics.median(walls):8.3f} | "
                f"{max(walls):6.3f} | {statistics.median(cpus):12.3f}",
                flush=True,
            )
        else:
            print(f"{name:<28} |  0 | {failed:6d} | (no sample compiled)", flush=True)


def compile_once(case: Case) -> tuple[Any, Any]:
    """`xlinalg.compile` of the case with per-stage timings; (kernel, StageTimes)."""
    times = StageTimes()
    kernel = xlinalg.compile(
        case.payload, schedule=case.space.read_text(), knobs=case.knobs, timings=times
    )
    return kernel, times


def stage_digests(case: Case) -> dict[str, str]:
    """Short digests of the transformed payload, emitted LLVM IR, optimised IR and asm."""
    kernel, _ = compile_once(case)
    texts = {
        "payload": str(kernel.module),
        "llvm-ir": kernel.lowered.llvm_ir,
        "optimized": kernel._jit.optimized_ir,
        "asm": kernel._jit.asm(),
    }
    return {name: hashlib.sha256(text.encode()).hexdigest()[:16] for name, text in texts.items()}


def irdl_constructions(case: Case) -> collections.Counter[str]:
    """How many ops of each class the LLVM conversion of one compile builds through their
    IRDL constructors (`SomeOp(...)`, ~10x the cost of `Operation.create`)."""
    counts: collections.Counter[str] = collections.Counter()
    active = [False]
    init, convert = irdl.irdl_op_init, to_llvm.convert_to_llvm_dialect

    def counting_init(op: Any, *args: Any, **kwargs: Any) -> None:
        if active[0]:
            counts[type(op).__name__] += 1
        init(op, *args, **kwargs)

    def counting_convert(*args: Any, **kwargs: Any) -> None:
        active[0] = True
        try:
            convert(*args, **kwargs)
        finally:
            active[0] = False

    irdl.irdl_op_init, to_llvm.convert_to_llvm_dialect = counting_init, counting_convert
    try:
        compile_once(case)
    finally:
        irdl.irdl_op_init, to_llvm.convert_to_llvm_dialect = init, convert
    return counts


def forked_compile_seconds(case: Case, reps: int) -> tuple[float, float]:
    """Median (CPU, wall) seconds of one compile in a child forked from this process, as
    the tuner compiles each candidate (call after importing `tuner._preload`, i.e. in the
    state of the tuner's warmed-up forkserver). CPU = user + system of the child."""
    samples = []
    for _ in range(reps):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: compile once, report, exit without cleanup
            before, wall = os.times(), time.perf_counter()
            compile_once(case)
            after = os.times()
            cpu = after.user + after.system - before.user - before.system
            os.write(write_end, f"{cpu} {time.perf_counter() - wall}".encode())
            os._exit(0)
        os.close(write_end)
        samples.append([float(x) for x in os.read(read_end, 100).split()])
        os.close(read_end)
        os.waitpid(pid, 0)
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e3:8.1f}"


def profile_case(case: Case, reps: int) -> dict[str, Any]:
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    _, first = compile_once(case)
    first_cpu, first_wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
    runs = []
    totals_cpu, totals_wall, reported = [], [], []
    for _ in range(reps):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        kernel, times = compile_once(case)
        totals_cpu.append(time.process_time() - start_cpu)
        totals_wall.append(time.perf_counter() - start_wall)
        reported.append(kernel.compile_seconds)
        runs.append(times)
    names = list(runs[-1])
    return {
        "case": case.name,
        "stages": {
            n: (
                statistics.median(r.cpu.get(n, 0.0) for r in runs),
                statistics.median(r.get(n, 0.0) for r in runs),
            )
            for n in names
        },
        "first": {n: first.get(n, 0.0) for n in names},
        "total": (statistics.median(totals_cpu), statistics.median(totals_wall)),
        "first_total": (first_cpu, first_wall),
        "compile_seconds": statistics.median(reported),
    }


def print_table(result: dict[str, Any]) -> None:
    print(f"\n== {result['case']}   (ms: median CPU | median wall | first wall)")
    for name, (cpu, wall) in result["stages"].items():
        indent = (
            "    " if name.startswith("xl-") or name in ("signatures", "emit-llvm-ir") else "  "
        )
        label = f"{indent}{name}"
        print(f"{label:<34}{_fmt(cpu)} |{_fmt(wall)} |{_fmt(result['first'][name])}")
    cpu, wall = result["total"]
    print(
        f"{'  xlinalg.compile total':<34}{_fmt(cpu)} |{_fmt(wall)} |{_fmt(result['first_total'][1])}"
    )
    print(f"{'  Kernel.compile_seconds':<34}{'':>8} |{_fmt(result['compile_seconds'])} |")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reps", type=int, default=7, help="compiles per case (after a first one)")
    parser.add_argument(
        "--cases", nargs="*", default=None, help="substrings of case names to run (default: all)"
    )
    parser.add_argument(
        "--cprofile",
        type=int,
        default=0,
        metavar="N",
        help="print the N functions with the most cumulative time",
    )
    parser.add_argument("--cprofile-case", default=None, help="substring of the profiled case")
    parser.add_argument(
        "--sort", default="cumulative", help="pstats sort key (cumulative, tottime)"
    )
    parser.add_argument(
        "--fork",
        action="store_true",
        help="per-candidate figure as the tuner sees it: each compile in a child "
        "forked from the warmed-up forkserver state (totals only)",
    )
    parser.add_argument(
        "--templates",
        type=int,
        default=0,
        metavar="N",
        help="instead: every template of search_spaces/ on a benchmark-size "
        "payload, median compile s over N random valid knob settings "
        "(--cases filters template names)",
    )
    parser.add_argument("--seed", type=int, default=0, help="knob sampling seed (--templates)")
    parser.add_argument(
        "--hashes",
        action="store_true",
        help="instead: digests of each stage's output per case (diff them "
        "before/after a change that must not change the code)",
    )
    parser.add_argument(
        "--irdl-ops",
        action="store_true",
        help="instead: per case, the ops the LLVM conversion builds through "
        "IRDL constructors, by class (the hot ones should use "
        "Operation.create / the to_llvm Builder helpers)",
    )
    args = parser.parse_args()

    if args.templates:
        print(
            f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
            f"{args.templates} random knob settings per template (seed {args.seed})"
        )
        profile_templates(args.templates, args.seed, args.cases)
        return 0
    cases = [c for c in CASES if args.cases is None or any(s in c.name for s in args.cases)]
    if not cases:
        parser.error("no case matches --cases")
    if args.hashes:
        for case in cases:
            digests = stage_digests(case)
            print(
                f"{case.name:<26}" + "  ".join(f"{k} {v}" for k, v in digests.items()), flush=True
            )
        return 0
    if args.irdl_ops:
        for case in cases:
            counts = irdl_constructions(case)
            print(
                f"{case.name:<26}{sum(counts.values()):5d}  "
                + " ".join(f"{k} {v}" for k, v in counts.most_common()),
                flush=True,
            )
        return 0
    if args.fork:
        import tuner._preload  # noqa: F401, PLC0415 - the forkserver's state (warm, gc frozen): --fork only

        print(
            f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; one compile per "
            f"forked child, {args.reps} children per case (as tuner candidates)"
        )
        print(f"{'case':<24} | {'CPU s':>6} | {'wall s':>6}")
        for case in cases:
            cpu, wall = forked_compile_seconds(case, args.reps)
            print(f"{case.name:<24} | {cpu:6.3f} | {wall:6.3f}", flush=True)
        return 0
    print(
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.reps} reps per case"
    )
    summary = []
    for case in cases:
        result = profile_case(case, args.reps)
        print_table(result)
        summary.append(result)
    print(f"\n{'case':<24} | {'CPU s':>6} | {'wall s':>6} | {'compile_seconds':>15} | first wall s")
    for r in summary:
        print(
            f"{r['case']:<24} | {r['total'][0]:6.3f} | {r['total'][1]:6.3f} | "
            f"{r['compile_seconds']:15.3f} | {r['first_total'][1]:.3f}"
        )

    if args.cprofile:
        target = next(
            (c for c in cases if args.cprofile_case is None or args.cprofile_case in c.name),
            cases[0],
        )
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.reps):
            compile_once(target)
        profiler.disable()
        print(f"\n== cProfile of {args.reps} compiles of {target.name} (sorted by {args.sort})")
        pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.cprofile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
