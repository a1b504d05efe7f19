#!/usr/bin/env python3
"""Convolution speed, side by side: tuned xlinalg schedules, im2col + OpenBLAS, IREE, FMA peak.

    python scripts/bench_conv.py [--trials 30] [--layers 0 1 2 3 4] [--rounds 5]

The five ResNet layers of issue 3: `linalg.conv_2d_nhwc_hwcf`, batch 1, 3×3
filter, NHWC input pre-padded, HWCF filter, f32, the output accumulated into
(56×56×64→64, 28×28×128→128, 14×14×256→256, 7×7×512→512 stride 1, and
56×56×64→128 stride 2, i.e. a 28×28 output). For each it

- tunes `search_spaces/conv2d_nhwc_hwcf.mlir` (direct convolution: tile,
  decompose to 1-D, register-blocked FMA vectorization) with the real tuner
  (isolated, checked trials in `results/bench.db`; rerunning resumes) and
  re-times the best `--rerank` trials paired (tuner.rerank), or takes the knobs
  of `--knobs LAYER=JSON`;
- with `--img2col-trials N`, also tunes `search_spaces/conv2d_img2col.mlir`
  (convert_conv2d_to_img2col + vectorized matmul) on the tensor form ("im2col");
- measures in this one process, interleaved: the best schedule(s), an im2col +
  matmul through NumPy/OpenBLAS (the im2col copy included) with 1 and with 2
  threads (threadpoolctl), and IREE's default CPU compile of the same
  payload on tensors (`iree-compile --iree-hal-target-backends=llvm-cpu
  --iree-llvmcpu-target-cpu=host`, run single-threaded with the `local-sync`
  driver of `iree.runtime`; skipped when iree-base-compiler/-runtime are not
  installed);
- prints GFLOP/s medians, ratios to IREE and to the FMA peak measured by a
  native microkernel, and the median compile seconds per candidate (apply
  schedule + lower + llvmlite O3 + JIT: `Kernel.compile_seconds`, median of
  `--compiles` compilations of the measured schedule in this run, tuned or
  fixed knobs alike; `--compiles 0`: the trials' median).

Every column gets the same 64-byte aligned arrays (as frameworks allocate
tensors and as IREE's runtime copies them into its device buffers): NumPy's
large arrays are only 16-byte aligned, and a filter at 16 mod 64 makes every
16-lane filter load straddle two cache lines (up to ~1.5× slower on
7×7×512).

The machine is noisy (2 cores, other jobs): compare ratios, not absolute times.
On a loaded machine use `--stat min --timer cpu` (the fastest single call, timed
with the calling thread's CPU time) and quote the ratio to IREE of the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import bench_stats
import numpy as np
from bench_matmul import _median_compile_seconds, tune
from bench_matmul import compile_seconds as median_compile_seconds
from bench_stats import prepared_call
from threadpoolctl import threadpool_limits

import xlinalg
from xlinalg.backend.aligned import aligned

ROOT = Path(__file__).resolve().parent.parent
SPACE = ROOT / "search_spaces" / "conv2d_nhwc_hwcf.mlir"
IMG2COL_SPACE = ROOT / "search_spaces" / "conv2d_img2col.mlir"


@dataclass(frozen=True)
class Layer:
    """A 3×3 conv layer by its output: OH×OW×F from C channels."""

    oh: int
    ow: int
    c: int
    f: int
    stride: int

    @property
    def ih(self) -> int:
        return (self.oh - 1) * self.stride + 3

    @property
    def iw(self) -> int:
        return (self.ow - 1) * self.stride + 3

    @property
    def flops(self) -> float:
        return 2.0 * self.oh * self.ow * self.f * 9 * self.c

    @property
    def name(self) -> str:
        return self.label().replace(" ", "-").replace(">", "")

    def label(self) -> str:
        return f"{self.oh}x{self.ow}x{self.c}->{self.f} s{self.stride}"

    def shapes(self) -> list[tuple[int, ...]]:
        return [
            (1, self.ih, self.iw, self.c),
            (3, 3, self.c, self.f),
            (1, self.oh, self.ow, self.f),
        ]


LAYERS = [
    Layer(56, 56, 64, 64, 1),
    Layer(28, 28, 128, 128, 1),
    Layer(14, 14, 256, 256, 1),
    Layer(7, 7, 512, 512, 1),
    Layer(28, 28, 64, 128, 2),
]


#: Knobs of conv2d_nhwc_hwcf.mlir per layer (`--stored` measures these instead of
#: tuning): the fastest of interleaved sweeps over register blocks, reg_c, C
#: blocks, cache orders and filter packing (aligned arrays, CPU clock, each config
#: against IREE in the same process; load 6-9, so ties within ~3 % are noise).
#: 14x14x256 and 7x7x512 use 2-D register blocks (2 x 14 and 4 x 7 pixels x 16
#: channels: 28 FMAs per filter load) over a packed input C block, F blocks
#: outside the pixel blocks, reg_c = 8 (16 is as fast, but the unrolled 4 x 7 x 16
#: x 16 block takes ~5 s to compile, 8: ~1-3 s); on the other three layers 2-D
#: blocks tie with the 1-row ones (all within ~2 % of IREE). Fifth session (arguments
#: prepared once, load 1.4-2.2, min/cpu and median/wall): on the strided layer 2 x 14 and
#: 4 x 7 blocks over a packed input lose ~2 % twice (the copy), unpacked ones, reg_c = 8
#: and IREE's order (F blocks inside the pixel block) tie; on 14x14x256 cache_c 32-256,
#: reg_c 16, 4 x 7, reg_order 0 and an unpacked input tie (within ~1 %, no winner twice).
STORED_KNOBS: dict[int, dict[str, int]] = {
    0: {
        "reg_h": 1,
        "reg_w": 8,
        "reg_f": 16,
        "reg_c": 16,
        "cache_c": 64,
        "cache_order": 0,
        "pack_filter": 1,
        "pack_input": 0,
        "reg_order": 0,
    },
    1: {
        "reg_h": 1,
        "reg_w": 7,
        "reg_f": 16,
        "reg_c": 16,
        "cache_c": 64,
        "cache_order": 0,
        "pack_filter": 1,
        "pack_input": 0,
        "reg_order": 0,
    },
    2: {
        "reg_h": 2,
        "reg_w": 14,
        "reg_f": 16,
        "reg_c": 8,
        "cache_c": 64,
        "cache_order": 1,
        "pack_filter": 0,
        "pack_input": 1,
        "reg_order": 1,
    },
    3: {
        "reg_h": 4,
        "reg_w": 7,
        "reg_f": 16,
        "reg_c": 8,
        "cache_c": 64,
        "cache_order": 1,
        "pack_filter": 0,
        "pack_input": 1,
        "reg_order": 1,
    },
    4: {
        "reg_h": 1,
        "reg_w": 7,
        "reg_f": 16,
        "reg_c": 16,
        "cache_c": 64,
        "cache_order": 0,
        "pack_filter": 0,
        "pack_input": 0,
        "reg_order": 0,
    },
}


def payload(layer: Layer, kind: str = "memref") -> str:
    """The layer's kernel on memrefs (xlinalg: in place) or on tensors (IREE: returns the output)."""
    i, f, o = (f"{kind}<{'x'.join(map(str, s))}xf32>" for s in layer.shapes())
    attrs = (
        f"{{dilations = dense<1> : tensor<2xi64>, strides = dense<{layer.stride}> : tensor<2xi64>}}"
    )
    if kind == "memref":
        return (
            f"func.func @conv(%I: {i}, %F: {f}, %O: {o}) {{\n"
            f"  linalg.conv_2d_nhwc_hwcf {attrs}\n"
            f"    ins(%I, %F : {i}, {f}) outs(%O : {o})\n  return\n}}\n"
        )
    return (
        f"func.func @conv(%I: {i}, %F: {f}, %O: {o}) -> {o} {{\n"
        f"  %r = linalg.conv_2d_nhwc_hwcf {attrs}\n"
        f"    ins(%I, %F : {i}, {f}) outs(%O : {o}) -> {o}\n  return %r : {o}\n}}\n"
    )


def compile_seconds(layer: Layer, schedule: str, knobs: dict | None, count: int) -> float:
    """Median `Kernel.compile_seconds` of `count` compilations (bench_matmul.compile_seconds)."""
    return median_compile_seconds(payload(layer), schedule, knobs, count)


def im2col_blas(layer: Layer) -> Callable[[np.ndarray, np.ndarray, np.ndarray], float]:
    """im2col (a strided window view copied to a (OH·OW)×(9·C) matrix) + one sgemm; returns seconds."""
    s = layer.stride

    def run(x: np.ndarray, w: np.ndarray, out: np.ndarray) -> float:
        start = time.perf_counter_ns()
        windows = np.lib.stride_tricks.sliding_window_view(x[0], (3, 3), axis=(0, 1))[::s, ::s]
        # windows: OH x OW x C x 3 x 3 -> rows ordered (kh, kw, c) like the HWCF filter
        cols = np.ascontiguousarray(windows.transpose(0, 1, 3, 4, 2)).reshape(
            layer.oh * layer.ow, -1
        )
        out2 = out.reshape(layer.oh * layer.ow, layer.f)
        out2 += cols @ w.reshape(-1, layer.f)
        return (time.perf_counter_ns() - start) / 1e9

    return run


class IreeKernel:
    """The layer compiled by iree-compile for the host CPU, run with iree.runtime (one thread)."""

    def __init__(self, layer: Layer) -> None:
        import iree.runtime as rt  # noqa: PLC0415 - IREE is optional: the comparison runs when it is installed

        start = time.perf_counter()
        vmfb = subprocess.run(
            [
                "iree-compile",
                "-",
                "--iree-hal-target-backends=llvm-cpu",
                "--iree-llvmcpu-target-cpu=host",
                "-o",
                "-",
            ],
            input=payload(layer, "tensor").encode(),
            capture_output=True,
            check=True,
        ).stdout
        self.compile_seconds = time.perf_counter() - start
        ctx = rt.SystemContext(config=rt.Config("local-sync"))
        ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb))
        self._fn = ctx.modules.module["conv"]
        self._device = ctx.config.device
        self._rt = rt

    def __call__(self, x: np.ndarray, w: np.ndarray, out: np.ndarray) -> np.ndarray:
        return np.asarray(self._fn(x, w, out).to_host())

    def seconds(self, x: np.ndarray, w: np.ndarray, out: np.ndarray, repeats: int = 9) -> float:
        args = [self._rt.asdevicearray(self._device, a) for a in (x, w, out)]
        return call_seconds(lambda: self._fn(*args), repeats)


#: The clock (`--timer`, `bench_stats.CLOCKS`) and the statistic (`--stat`) of every column but
#: "BLAS 2t" (wall time): the kernels, OpenBLAS with one thread and IREE's local-sync driver
#: all run on the calling thread.
clock = "wall"
stat = "median"


def call_seconds(fn: Callable[[], object], repeats: int = 9, timer: str | None = None) -> float:
    """One round of a column: `repeats` single calls (`bench_stats.call_seconds`) on the
    bench's clock (or `timer`) and statistic: on a shared machine single calls of a few ms
    mostly miss the other jobs' time slices, where a long native repeat loop averages them in."""
    return bench_stats.call_seconds(fn, repeats, stat, timer or clock)


def iree_available() -> bool:
    try:
        import iree.runtime  # noqa: F401, PLC0415 - whether the optional IREE is installed
    except ImportError:
        return False
    return shutil.which("iree-compile") is not None


def tuned(
    text: str, name: str, space: Path, trials: int, args: argparse.Namespace
) -> tuple[str, float]:
    """Tune (or resume) a study, re-rank its best trials; (best schedule, median compile s)."""
    from tuner.export import best_schedule as exported  # noqa: PLC0415 - the tuner (Optuna) is heavy: only to tune (the payloads are imported without it)
    from tuner.rerank import rerank  # noqa: PLC0415 - the tuner (Optuna) is heavy: only to tune (the payloads are imported without it)
    from tuner.study import load  # noqa: PLC0415 - the tuner (Optuna) is heavy: only to tune (the payloads are imported without it)

    tune(text, name, args.storage, trials, args.seed, space)
    if args.rerank > 1:  # single measurements on a busy machine mislead: paired re-timing
        rerank(load(args.storage, name), top_k=args.rerank)
    return exported(args.storage, name, header=False), _median_compile_seconds(args.storage, name)


def best_schedule(
    layer: Layer, index: int, args: argparse.Namespace
) -> tuple[str, dict | None, float]:
    """(schedule text, fixed knobs or None, median compile s per candidate)."""
    fixed = dict(args.knobs).get(index, STORED_KNOBS[index] if args.stored else None)
    if fixed is not None:
        return SPACE.read_text(), fixed, float("nan")
    schedule, compile_s = tuned(
        payload(layer), f"bench-conv-{layer.name}", SPACE, args.trials, args
    )
    return schedule, None, compile_s


def parse_knobs(text: str) -> tuple[int, dict]:
    index, _, spec = text.partition("=")
    return int(index), json.loads(spec)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--layers",
        nargs="+",
        type=int,
        default=list(range(len(LAYERS))),
        help="indices into LAYERS (0..4)",
    )
    parser.add_argument("--trials", type=int, default=30, help="tuning trials per layer")
    parser.add_argument(
        "--knobs",
        action="append",
        type=parse_knobs,
        default=[],
        help="LAYER=JSON: use these knobs for that layer instead of tuning",
    )
    parser.add_argument(
        "--stored", action="store_true", help="measure the STORED_KNOBS schedules instead of tuning"
    )
    parser.add_argument("--storage", default=f"sqlite:///{ROOT / 'results' / 'bench.db'}")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rerank",
        type=int,
        default=5,
        help="re-time the K best trials paired and interleaved (tuner.rerank)",
    )
    parser.add_argument(
        "--img2col-trials",
        type=int,
        default=0,
        help="also tune search_spaces/conv2d_img2col.mlir (im2col + matmul) this long",
    )
    parser.add_argument("--no-iree", action="store_true", help="skip the IREE column")
    bench_stats.add_arguments(parser)  # --timer: 'BLAS 2t' stays in wall time (two threads)
    parser.add_argument(
        "--compiles",
        type=int,
        default=3,
        help="with fixed knobs: compilations timed for the 'compile s' column",
    )
    args = parser.parse_args()
    global clock, stat
    clock, stat = args.timer, args.stat
    (ROOT / "results").mkdir(exist_ok=True)

    peak = bench_stats.Peak()
    info = xlinalg.host_info()
    print(f"host: {info.get('cpu_model', '?')} ({info.get('llvm_cpu', '?')}), {peak}")
    use_iree = not args.no_iree and iree_available()
    header = (
        f"{'layer':>22} | {'xlinalg':>8} | {'im2col':>8} | {'BLAS 1t':>8} | {'BLAS 2t':>8} | {'IREE':>8} | "
        f"{'x/IREE':>6} | {'x/peak':>6} | {'IREE/peak':>9} | {'compile s':>9} | knobs"
    )
    print(header, flush=True)
    for index in args.layers:
        layer = LAYERS[index]
        schedule, fixed, compile_s = best_schedule(layer, index, args)
        kernel = xlinalg.compile(payload(layer), schedule=schedule, knobs=fixed)
        if (
            args.compiles > 0
        ):  # same definition for tuned and fixed knobs (bench_matmul.compile_seconds)
            compile_s = compile_seconds(layer, schedule, fixed, args.compiles)
        x, w, out = (aligned(a) for a in kernel.make_inputs(seed=1))
        check = kernel.check(x, w, out)
        if not check.ok:
            raise SystemExit(f"{layer.label()}: wrong result: {check.message}")
        blas = im2col_blas(layer)
        expected = out.copy()
        blas(x, w, expected)
        iree = IreeKernel(layer) if use_iree else None
        if iree is not None:
            np.testing.assert_allclose(iree(x, w, out), expected, rtol=1e-3, atol=1e-3)
        times: dict[str, list[float]] = {"x": [], "i2c": [], "blas1": [], "blas2": [], "iree": []}
        i2c = None
        if args.img2col_trials:
            i2c_schedule, _ = tuned(
                payload(layer, "tensor"),
                f"bench-conv-img2col-{layer.name}",
                IMG2COL_SPACE,
                args.img2col_trials,
                args,
            )
            i2c = xlinalg.compile(payload(layer, "tensor"), schedule=i2c_schedule)
        scratch = aligned(out)
        run_kernel = prepared_call(kernel, x, w, scratch)
        for _ in range(args.rounds):  # interleaved so drift hits all alike
            times["x"].append(call_seconds(run_kernel))
            if i2c is not None:
                times["i2c"].append(call_seconds(prepared_call(i2c, x, w, out)))
            for threads in (1, 2):
                with threadpool_limits(limits=threads, user_api="blas"):
                    timer = "wall" if threads > 1 else None  # 2 threads: wall time
                    times[f"blas{threads}"].append(
                        call_seconds(partial(blas, x, w, scratch), timer=timer)
                    )
            if iree is not None:
                times["iree"].append(iree.seconds(x, w, out))
            # the peak too, every round: one measurement under load reads low
            peak.measure()
        aggregate = bench_stats.statistic(args.stat)
        g = {
            key: layer.flops / aggregate(v) / 1e9 if v else float("nan") for key, v in times.items()
        }
        knobs = fixed if fixed is not None else _resolved_knobs(schedule)
        print(
            f"{layer.label():>22} | {g['x']:8.1f} | {g['i2c']:8.1f} | {g['blas1']:8.1f} | {g['blas2']:8.1f} | "
            f"{g['iree']:8.1f} | {g['x'] / g['iree']:6.2f} | {g['x'] / peak.gflops:6.2f} | "
            f"{g['iree'] / peak.gflops:9.2f} | {compile_s:9.2f} | {json.dumps(knobs)}",
            flush=True,
        )
    print(f"\n{peak}, interleaved with the rounds. Load average {os.getloadavg()[0]:.1f}.")
    print(
        f"Clock: {args.timer}. GFLOP/s ({args.stat} of interleaved rounds, each the {args.stat} of 9 single calls); f32; one thread except 'BLAS 2t'; "
        "BLAS = im2col copy + OpenBLAS sgemm; IREE = iree-compile llvm-cpu host, local-sync."
    )
    return 0


def _resolved_knobs(schedule: str) -> dict[str, int]:
    """Knob values of an exported schedule (`knob<"name"> = V` / `alternatives<"name"> selected_region = V`)."""
    found = re.findall(
        r'(?:knob|alternatives)<"(\w+)">\s*(?:=|selected_region\s*=)\s*(\d+)', schedule
    )
    return {name: int(value) for name, value in found}


if __name__ == "__main__":
    sys.exit(main())
