"""The same kernel on tensors and on memrefs: same numbers, comparable speed.

    python scripts/bench_tensor_memref.py [--sizes 256 512] [--rounds 7]

For each size, `C += A·B` written once on memrefs and once on tensors
(`outs(%C : tensor<...>) -> tensor<...>`, bufferized by our one-shot bufferization
into the caller's buffer), each compiled with the same schedule (a
two `matmul_tile.mlir` configurations; `matmul_vectorize.mlir`, whose vectorize takes
memrefs only, is reported as skipped). Printed: whether
the results are equal (bit for bit: the same operations in the same order), the
load-independent evidence (floating-point multiply/add/FMA instructions and all
instructions in the optimised machine code of each module), and GFLOP/s of the fastest of `--rounds` interleaved
timings (`--stat min`, for a shared machine) with the ratio tensor / memref.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np

import xlinalg

ROOT = Path(__file__).resolve().parent.parent
MEMREF = """
func.func @matmul(%a: memref<{n}x{n}xf32>, %b: memref<{n}x{n}xf32>, %c: memref<{n}x{n}xf32>) {{
  linalg.matmul ins(%a, %b : memref<{n}x{n}xf32>, memref<{n}x{n}xf32>) outs(%c : memref<{n}x{n}xf32>)
  return
}}
"""
TENSOR = """
func.func @matmul(%a: tensor<{n}x{n}xf32>, %b: tensor<{n}x{n}xf32>, %c: tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32> {{
  %r = linalg.matmul ins(%a, %b : tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>) outs(%c : tensor<{n}x{n}xf32>)
    -> tensor<{n}x{n}xf32>
  return %r : tensor<{n}x{n}xf32>
}}
"""
CONFIGS = [
    ("tile", "matmul_tile.mlir", {"tile_m": 32, "tile_n": 256, "tile_k": 64, "reg_m": 4, "reg_n": 32,
                                  "unroll_n": 0, "cache_order": 0, "micro_order": 0}),
    ("tile n-m-k", "matmul_tile.mlir", {"tile_m": 32, "tile_n": 256, "tile_k": 64, "reg_m": 4,
                                        "reg_n": 32, "unroll_n": 0, "cache_order": 1, "micro_order": 1}),
    ("vectorize", "matmul_vectorize.mlir", {"tile_m": 64, "tile_n": 128, "tile_k": 128, "reg_m": 6,
                                            "reg_n": 32, "reg_k": 1, "cache_order": 0, "unroll_k": 0}),
]


def _machine_code(kernel: xlinalg.Kernel) -> tuple[int, int]:
    """(floating-point multiply/add/FMA instructions, instructions) in the kernel's optimised
    machine code."""
    asm = kernel._jit.asm()
    lines = [line.strip() for line in asm.splitlines()]
    code = [line for line in lines if line and not line.startswith((".", "#")) and not line.endswith(":")]
    return sum(1 for line in code if re.match(r"v(fmadd|mul|add)\w*", line)), len(code)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 512])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(f"{'n':>5} | {'schedule':<10} | equal | fp ops mem/ten | instrs mem/ten | {'memref':>8} | "
          f"{'tensor':>8} | ratio")
    rng = np.random.default_rng(0)
    for n in args.sizes:
        a, b, c = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(3))
        flops = 2.0 * n**3
        for label, space, knobs in CONFIGS:
            schedule = ROOT / "search_spaces" / space
            try:
                mem = xlinalg.compile(MEMREF.format(n=n), schedule, knobs=knobs)
                ten = xlinalg.compile(TENSOR.format(n=n), schedule, knobs=knobs)
            except xlinalg.errors.XlinalgError as err:  # e.g. vectorize takes memrefs only
                print(f"{n:>5} | {label:<10} | skipped: {str(err).splitlines()[0][-90:]}")
                continue
            out = c.copy()
            mem(a, b, out)
            equal = np.array_equal(out, ten(a, b, c.copy()))
            (fm, cm), (ft, ct) = _machine_code(mem), _machine_code(ten)
            best = {"memref": 0.0, "tensor": 0.0}
            for _ in range(args.rounds):
                for name, kernel, args_ in (("memref", mem, (a, b, out)), ("tensor", ten, (a, b, c))):
                    seconds = kernel.time(*args_, max_total_s=0.3).min_s
                    best[name] = max(best[name], flops / seconds / 1e9)
            print(f"{n:>5} | {label:<10} | {equal!s:<5} | {fm:>6}/{ft:<7} | {cm:>6}/{ct:<7} | "
                  f"{best['memref']:8.2f} | {best['tensor']:8.2f} | {best['tensor'] / best['memref']:5.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
