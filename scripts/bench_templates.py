#!/usr/bin/env python3
"""Batch matmul and row reduction: tuned templates vs NumPy/OpenBLAS vs IREE, FMA peak.

    python scripts/bench_templates.py [--trials 20] [--rounds 5] [--stat min]
    python scripts/bench_templates.py --fixed --rounds 15 --stat min   # stored knobs, no tuning
    python scripts/bench_templates.py --fixed --rounds 7 --stat min --timer cpu   # loaded machine

Tunes `search_spaces/batch_matmul.mlir` on examples/batch_matmul_8x256.mlir
(8 × 256³, f32), examples/batch_matmul_8x250.mlir (8 × 250³: no block divides it) and
examples/batch_matmul_4x200x300x100.mlir (B rows 1200 bytes apart, short K), `search_spaces/batch_mmt4d.mlir` on examples/batch_mmt4d_8x256.mlir
(the same product on pre-packed 16×16 blocks; its NumPy column is np.matmul on plain
8×256×256 arrays), `search_spaces/batch_matmul_mmt4d.mlir` on
examples/batch_matmul_tensor_8x256.mlir and _8x250.mlir (the packs in the kernel) and `search_spaces/reduction.mlir` on examples/reduction_rows.mlir
(row sums of 1024×4096 f32) with the real tuner (`results/bench.db`; rerunning
resumes), then measures interleaved in this process: the best schedule,
NumPy (np.matmul on the batch with one OpenBLAS thread / `sum(axis=1)`) and,
when iree-base-compiler/-runtime are installed, IREE's default CPU compile of
the same payload on tensors (single-threaded, `local-sync`). Prints GFLOP/s
(GB/s read for the reduction), the ratio to the FMA peak and the median
compile seconds per candidate. Noisy machine: compare ratios.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
from bench_conv import iree_available
from bench_matmul import _median_compile_seconds, compile_seconds, tune
from bench_stats import Peak, add_arguments, call_seconds, statistic
from threadpoolctl import threadpool_limits

import xlinalg

ROOT = Path(__file__).resolve().parent.parent


def _tensor_form(memref_payload: str, result: int) -> str:
    """The memref payload as a tensor function returning operand `result` (for IREE)."""
    text = "\n".join(line for line in memref_payload.splitlines() if not line.startswith("//"))
    text = text.replace("memref<", "tensor<")
    args = re.findall(r"(%\w+): (tensor<[^>]+>)", text.split("{")[0])
    _, rtype = args[result]
    head, _, rest = text.partition(") {")
    body = rest.rsplit("return", 1)[0]
    if "linalg.reduce" not in body:  # linalg.reduce infers its result types
        body = re.sub(r"outs\((%\w+) : (tensor<[^>]+>)\)", r"outs(\1 : \2) -> \2", body, count=1)
    body = body.replace("  linalg.", "  %r = linalg.", 1)
    return f"{head}) -> {rtype} {{{body}return %r : {rtype}\n}}\n"


def iree_seconds(
    payload: str,
    entry: str,
    args: list[np.ndarray],
    time_round: Callable[[Callable[[], object]], float],
) -> float:
    """One round of IREE's local-sync module on `args`, timed by `time_round`."""
    import iree.runtime as rt  # noqa: PLC0415 - IREE is optional: the comparison runs when it is installed

    vmfb = subprocess.run(
        [
            "iree-compile",
            "-",
            "--iree-hal-target-backends=llvm-cpu",
            "--iree-llvmcpu-target-cpu=host",
            "-o",
            "-",
        ],
        input=payload.encode(),
        capture_output=True,
        check=True,
    ).stdout
    ctx = rt.SystemContext(config=rt.Config("local-sync"))
    ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb))
    fn = ctx.modules.module[entry]
    device_args = [rt.asdevicearray(ctx.config.device, a) for a in args]
    return time_round(lambda: fn(*device_args))


def _plain_bmm(batch: int, n: int) -> Callable[..., None]:
    """NumPy's batch matmul of `batch` × n³ on plain (not packed) arrays of its own, for the
    rows whose payload is packed or returns a new tensor (out= here); ignores its arguments."""
    a, b, c = (np.ones((batch, n, n), np.float32) for _ in range(3))

    def run(*_: np.ndarray) -> None:
        np.matmul(a, b, out=c)

    return run


_numpy_bmm = _plain_bmm(8, 256)
_numpy_bmm250 = _plain_bmm(8, 250)


CASES = [
    # name, payload file, entry, space, result operand, work units per call, unit, numpy
    (
        "batch_matmul 8x256^3",
        "batch_matmul_8x256.mlir",
        "batch_matmul",
        "batch_matmul.mlir",
        2,
        2.0 * 8 * 256**3,
        "GFLOP/s",
        lambda a, b, c: np.matmul(a, b, out=c),
    ),
    (
        "batch_matmul 8x250^3",
        "batch_matmul_8x250.mlir",
        "batch_matmul",
        "batch_matmul.mlir",
        2,
        2.0 * 8 * 250**3,
        "GFLOP/s",
        lambda a, b, c: np.matmul(a, b, out=c),
    ),
    (
        "batch_matmul 4x200x300x100",
        "batch_matmul_4x200x300x100.mlir",
        "batch_matmul",
        "batch_matmul.mlir",
        2,
        2.0 * 4 * 200 * 300 * 100,
        "GFLOP/s",
        lambda a, b, c: np.matmul(a, b, out=c),
    ),
    (
        "batch_matmul packed",
        "batch_matmul_tensor_8x256.mlir",
        "batch_matmul",
        "batch_matmul_mmt4d.mlir",
        -1,
        2.0 * 8 * 256**3,
        "GFLOP/s",
        _numpy_bmm,
    ),
    (
        "batch_matmul packed 8x250^3",
        "batch_matmul_tensor_8x250.mlir",
        "batch_matmul",
        "batch_matmul_mmt4d.mlir",
        -1,
        2.0 * 8 * 250**3,
        "GFLOP/s",
        _numpy_bmm250,
    ),
    (
        "batch_mmt4d 8x256^3",
        "batch_mmt4d_8x256.mlir",
        "batch_mmt4d",
        "batch_mmt4d.mlir",
        2,
        2.0 * 8 * 256**3,
        "GFLOP/s",
        _numpy_bmm,
    ),
    (
        "row sum 1024x4096",
        "reduction_rows.mlir",
        "row_sum",
        "reduction.mlir",
        1,
        4.0 * 1024 * 4096,
        "GB/s",
        lambda x, out: np.sum(x, axis=1, out=out),
    ),
]

# --fixed: knobs found by tuning and checked in the inner-loop assembly (16 FMAs per k
# step on 16 zmm accumulators, no spills), instead of a tuning run
FIXED = {
    # B's cache tile copied to a contiguous 256 × 16 buffer once per (batch, n tile); 8 × 16
    # register blocks (8 accumulators, 8 A rows streamed), the next block's C read before
    # this block's k loop (pipeline_c). 8 × 256³, interleaved runs at load 1.4-2.2: the
    # fastest call of 8 × 16 ahead of 16 × 16 in 6 of 6 runs (0.922-0.941 vs 0.912-0.938 of
    # the peak; medians even, 3 of 6), pipelined 8 × 16 ahead of plain 8 × 16 in 5 of 5
    # (0.926-0.943 vs 0.922-0.938; medians 3 of 5)
    "batch_matmul.mlir": {
        "tile_m": 256,
        "tile_n": 16,
        "tile_k": 256,
        "reg_m": 8,
        "reg_n": 16,
        "reg_k": 1,
        "cache_order": 1,
        "unroll_k": 0,
        "pack_b": 1,
        "peel_tiles": 0,
        "peel": 0,
        "pipeline_c": 1,
        "prefetch_b": 0,
    },
    "batch_mmt4d.mlir": {"tm1": 2, "tn1": 16, "tk": 256, "rk": 4, "cache_order": 0, "reg_order": 0},
    # zero_c = 1 (accumulators start at zero, no memset of C, no C block loads): 8 × 256³
    # same-run CPU-time runs at load 4-7, 31 rounds: fastest call 0.913 vs 0.886, median
    # 0.828 vs 0.811 of the peak; 8 × 250³ fastest 0.78 vs 0.76
    # m0 = 1 (A keeps its layout and is read in place, lowering/pack_in_place.py; 4-row
    # register blocks broadcast from A's rows): same-run CPU-time medians, 9 rounds, load
    # 1.0: 0.945 vs 0.907 of the peak for m0 = 8, n0 = 32
    "batch_matmul_mmt4d.mlir": {
        "m0": 1,
        "reg_m": 4,
        "n0": 64,
        "tm1": 32,
        "tn1": 4,
        "tk": 256,
        "rk": 4,
        "cache_order": 0,
        "reg_order": 0,
        "zero_c": 1,
    },
}
# rows whose shape wants other knobs than their template's FIXED entry
FIXED_BY_ROW = {
    # the partial register row block peeled into a loop of its own (peel = 1) and the
    # partial n cache tile too (peel_tiles = 1): unmasked main blocks. B read in place
    # (pack_b = 0): its rows are 1000 bytes apart, not a power of two, so a 16-wide panel
    # spreads over the L1 sets and the copy (~6 % of the cycles, perf) is saved; 16 × 16
    # blocks, unpipelined. 8 × 250³, four same-run A/B runs (9 rounds of 15 calls, CPU and
    # wall timer, load 3.1-3.7): median 0.920-0.930 of the peak vs 0.890-0.905 for the
    # previous 8 × 16 pipelined + pack_b (fastest call 0.948-0.950 vs 0.920-0.926);
    # 8 × 16 pipelined in place in between (0.913-0.924)
    "batch_matmul 8x250^3": {
        **FIXED["batch_matmul.mlir"],
        "peel_tiles": 1,
        "peel": 1,
        "pack_b": 0,
        "reg_m": 16,
        "pipeline_c": 0,
    },
    # B's rows 1200 bytes apart spread over the L1 sets: B read in place (pack_b = 0), the
    # 12-wide last n tile peeled (8 divides M: peel = 0). One interleaved run (CPU timer, 9
    # rounds, load 4.9): median 0.92 / fastest call 0.965 of the peak vs 0.78 / 0.93 with
    # pack_b = 1
    "batch_matmul 4x200x300x100": {**FIXED["batch_matmul.mlir"], "pack_b": 0, "peel_tiles": 1},
    # 8 × 250³ on packed panels: rk = 2 divides K (no peeled last k step in every block);
    # same-run CPU-time medians at load ~5: rk = 2 0.82 vs rk = 4 0.78 of the peak (fastest
    # call 0.84 both); 12 × 32, 12 × 16, 6 × 32, 16 × 16 blocks 0.74-0.77
    # m0 = 1, 5 rows x 64 lanes: M not padded (m0 = 8 pads 250 rows to 256), C written in
    # place; same-run CPU-time medians, 9 rounds, load 1.3 / 1.4: 0.917 / 0.916 vs
    # 0.860 / 0.870 of the peak for m0 = 8, n0 = 32, rk = 2
    "batch_matmul packed 8x250^3": {
        **FIXED["batch_matmul_mmt4d.mlir"],
        "reg_m": 5,
        "tm1": 50,
        "rk": 2,
    },
}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--trials", type=int, default=20, help="tuning trials per template")
    parser.add_argument("--storage", default=f"sqlite:///{ROOT / 'results' / 'bench.db'}")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--fixed",
        action="store_true",
        help="the FIXED knobs of each template instead of tuning (no reduction row)",
    )
    parser.add_argument("--only", default="", help="run only the rows whose name contains this")
    add_arguments(parser)
    args = parser.parse_args()
    (ROOT / "results").mkdir(exist_ok=True)

    def timer(fn: Callable[[], object]) -> float:  # one round of one column: 15 single calls
        return call_seconds(fn, 15, args.stat, args.timer)

    peak = Peak()
    print(peak)
    print(f"timer {args.timer}, stat {args.stat}; load {os.getloadavg()[0]:.1f}")
    print(
        f"{'kernel':>27} | {'xlinalg':>8} | {'NumPy 1t':>8} | {'IREE':>8} | {'unit':>7} | "
        f"{'x/NumPy':>7} | {'x/IREE':>6} | {'x/peak':>6} | {'compile s':>9}",
        flush=True,
    )
    use_iree = iree_available()
    for label, file, entry, space, result, work, unit, numpy_fn in CASES:
        if args.only not in label or (args.fixed and space not in FIXED):
            continue
        payload = (ROOT / "examples" / file).read_text()
        name = f"bench-{file.removesuffix('.mlir')}"
        if args.fixed:
            schedule_text = (ROOT / "search_spaces" / space).read_text()
            knobs = FIXED_BY_ROW.get(label, FIXED[space])
            kernel = xlinalg.compile(payload, schedule=schedule_text, knobs=knobs)
            # the benches' one definition (a steady-state candidate), not this first compile,
            # which also pays the process's one-time costs (lazy imports, first use of ops)
            compile_s = compile_seconds(payload, schedule_text, knobs)
        else:
            schedule = tune(
                payload, name, args.storage, args.trials, args.seed, ROOT / "search_spaces" / space
            )
            compile_s = _median_compile_seconds(args.storage, name)
            kernel = xlinalg.compile(payload, schedule=schedule)
        inputs = kernel.make_inputs(seed=1)
        if not kernel.check(*inputs).ok:
            raise SystemExit(f"{label}: wrong result")
        times: dict[str, list[float]] = {"x": [], "np": [], "iree": []}
        scratch = [a.copy() for a in inputs]
        for _ in range(args.rounds):
            peak.measure()  # between the rounds too: the highest of all so far
            times["x"].append(timer(partial(kernel, *scratch)))
            with threadpool_limits(limits=1, user_api="blas"):
                times["np"].append(timer(partial(numpy_fn, *scratch)))
            if use_iree:
                # result < 0: the payload is on tensors already
                iree_payload = payload if result < 0 else _tensor_form(payload, result)
                times["iree"].append(iree_seconds(iree_payload, entry, inputs, timer))
        aggregate = statistic(args.stat)
        rate = {k: work / aggregate(v) / 1e9 if v else float("nan") for k, v in times.items()}
        x_peak = rate["x"] / peak.gflops if unit == "GFLOP/s" else float("nan")
        print(
            f"{label:>27} | {rate['x']:8.1f} | {rate['np']:8.1f} | {rate['iree']:8.1f} | "
            f"{unit:>7} | {rate['x'] / rate['np']:7.2f} | {rate['x'] / rate['iree']:6.2f} | "
            f"{x_peak:6.2f} | {compile_s:9.2f}",
            flush=True,
        )
    print(f"\n{peak}; load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
