"""Effect of `noalias` on memref pointers: the same schedules compiled with and without it.

    python scripts/bench_noalias.py [--sizes 256 512] [--rounds 5]

For each matmul size, each loop order of `search_spaces/matmul_tile.mlir`
(cache order × micro order, fixed tiles) and one `matmul_vectorize.mlir`
configuration, the kernel is compiled twice — with the default lowering
(`noalias` on the memref pointers of entry functions, see
`xlinalg/lowering/to_llvm/convert_func_to_llvm.py`) and with it switched off —
and both are timed interleaved, `--rounds` times; the table gives GFLOP/s
medians and the ratio noalias / without (machine noise: compare ratios).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
from pathlib import Path

import numpy as np

import xlinalg
from xlinalg.lowering import to_llvm
from xlinalg.lowering.to_llvm.convert_func_to_llvm import ConvertFuncToLLVMPass

ROOT = Path(__file__).resolve().parent.parent
PAYLOAD = """
func.func @matmul(%a: memref<{n}x{n}xf32>, %b: memref<{n}x{n}xf32>, %c: memref<{n}x{n}xf32>) {{
  linalg.matmul ins(%a, %b : memref<{n}x{n}xf32>, memref<{n}x{n}xf32>)
                outs(%c : memref<{n}x{n}xf32>)
  return
}}
"""
TILE = {"tile_m": 32, "tile_n": 256, "tile_k": 64, "reg_m": 4, "reg_n": 32, "unroll_n": 0}
CONFIGS = [
    (f"tile {c}/{m}", "matmul_tile.mlir", {**TILE, "cache_order": ci, "micro_order": mi})
    for ci, c in enumerate(["m-n-k", "n-m-k", "m-k-n"])
    for mi, m in enumerate(["k-m-n", "m-k-n"])
]


def _passes(noalias: bool) -> tuple:
    return tuple(
        dataclasses.replace(p, noalias=noalias) if isinstance(p, ConvertFuncToLLVMPass) else p
        for p in to_llvm.TO_LLVM_PASSES
    )


def _compile(payload: str, space: str, knobs: dict, noalias: bool) -> xlinalg.Kernel:
    saved = to_llvm.TO_LLVM_PASSES
    to_llvm.TO_LLVM_PASSES = _passes(noalias)
    try:
        return xlinalg.compile(payload, ROOT / "search_spaces" / space, knobs=knobs)
    finally:
        to_llvm.TO_LLVM_PASSES = saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 512])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--vec-knobs",
        default="tile_m=64,tile_n=128,tile_k=128,reg_m=6,reg_n=32,reg_k=1,cache_order=0,unroll_k=0,peel=0",
    )
    args = parser.parse_args()
    configs = list(CONFIGS)
    vec = {k: int(v) for k, v in (kv.split("=") for kv in args.vec_knobs.split(",") if kv)}
    configs.append(("vectorize", "matmul_vectorize.mlir", vec))
    print(f"{'n':>5} | {'schedule':<18} | {'noalias':>8} | {'without':>8} | ratio")
    for n in args.sizes:
        payload = PAYLOAD.format(n=n)
        for label, space, knobs in configs:
            try:
                kernels = {flag: _compile(payload, space, knobs, flag) for flag in (True, False)}
            except xlinalg.XlinalgError as err:
                print(f"{n:>5} | {label:<18} | skipped: {str(err).splitlines()[0][:60]}")
                continue
            inputs = kernels[True].make_inputs()
            for k in kernels.values():
                k.check(*[np.copy(x) for x in inputs])
            flops = 2.0 * n**3
            samples: dict[bool, list[float]] = {True: [], False: []}
            for _ in range(args.rounds):
                for flag, k in kernels.items():
                    t = k.time(*inputs, max_total_s=0.3)
                    samples[flag].append(flops / t.median_s / 1e9)
            on, off = (statistics.median(samples[f]) for f in (True, False))
            print(f"{n:>5} | {label:<18} | {on:8.2f} | {off:8.2f} | {on / off:5.2f}", flush=True)


if __name__ == "__main__":
    main()
