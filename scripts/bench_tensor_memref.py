"""The same kernel on tensors and on memrefs: same numbers, comparable speed.

    python scripts/bench_tensor_memref.py [--sizes 256 512] [--rounds 7]

For each size, `C += A·B` written once on memrefs and once on tensors
(`outs(%C : tensor<...>) -> tensor<...>`, bufferized by our one-shot bufferization
into the caller's buffer), each compiled with the same schedule: two
`matmul_tile.mlir` configurations and `matmul_vectorize.mlir` (tile, vectorize,
hoist, lower to FMAs; on tensors the vectorizer writes tensor transfers, the C block
is hoisted out of the k loop by `hoist_redundant_tensor_subsets` instead of
`hoist_redundant_vector_transfers` -- the only difference, see `_on_tensors` -- and
bufferization comes after the schedule), and the same on 2 threads (`matmul_parallel.mlir`:
`scf.forall` with `shared_outs` on tensors). Then the elementwise chain
`relu((a + b) * c)` of `examples/elementwise_chain.mlir` (n x n) on tensors and on
memrefs, each op tiled into rows of 16 lanes and vectorized (`vectorize on rows`).
Printed: whether the results are equal (bit for bit: the same operations in the same
order), the load-independent evidence (floating-point multiply/add/FMA instructions
and all instructions in the optimised machine code of each module), and GFLOP/s (the
chain: GB/s of its 4 n^2 f32 arrays) of the fastest of `--rounds` interleaved timings
(`--stat min`, for a shared machine) with the ratio tensor / memref.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from functools import partial
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
    (
        "tile",
        "matmul_tile.mlir",
        {
            "tile_m": 32,
            "tile_n": 256,
            "tile_k": 64,
            "reg_m": 4,
            "reg_n": 32,
            "unroll_n": 0,
            "cache_order": 0,
            "micro_order": 0,
        },
    ),
    (
        "tile n-m-k",
        "matmul_tile.mlir",
        {
            "tile_m": 32,
            "tile_n": 256,
            "tile_k": 64,
            "reg_m": 4,
            "reg_n": 32,
            "unroll_n": 0,
            "cache_order": 1,
            "micro_order": 1,
        },
    ),
    (
        "vectorize",
        "matmul_vectorize.mlir",
        {
            "tile_m": 64,
            "tile_n": 128,
            "tile_k": 128,
            "reg_m": 6,
            "reg_n": 32,
            "reg_k": 1,
            "cache_order": 0,
            "unroll_k": 0,
            "peel": 0,
        },
    ),
    (
        "vectorize 2 thr.",
        "matmul_parallel.mlir",
        {
            "threads": 2,
            "parallel_dim": 0,
            "tile_m": 64,
            "tile_n": 128,
            "tile_k": 128,
            "reg_m": 6,
            "reg_n": 32,
            "reg_k": 1,
            "cache_order": 0,
            "unroll_k": 0,
            "peel": 0,
        },
    ),
]
CHAIN_TENSOR = (ROOT / "examples" / "elementwise_chain.mlir").read_text()
CHAIN_MEMREF = """
func.func @chain(%a: memref<{n}x{n}xf32>, %b: memref<{n}x{n}xf32>, %c: memref<{n}x{n}xf32>, %o: memref<{n}x{n}xf32>) {{
  %t0 = memref.alloc() : memref<{n}x{n}xf32>
  %t1 = memref.alloc() : memref<{n}x{n}xf32>
  linalg.add ins(%a, %b : memref<{n}x{n}xf32>, memref<{n}x{n}xf32>) outs(%t0 : memref<{n}x{n}xf32>)
  linalg.mul ins(%t0, %c : memref<{n}x{n}xf32>, memref<{n}x{n}xf32>) outs(%t1 : memref<{n}x{n}xf32>)
  linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%t1 : memref<{n}x{n}xf32>) outs(%o : memref<{n}x{n}xf32>) {{
  ^bb0(%x: f32, %y: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }}
  memref.dealloc %t0 : memref<{n}x{n}xf32>
  memref.dealloc %t1 : memref<{n}x{n}xf32>
  return
}}
"""
CHAIN_SCHEDULE = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %rows, %l:2 = transform.structured.tile_using_for %ops tile_sizes [1, 16]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %rows vector_sizes [1, 16] : !transform.any_op
    transform.yield
  }
}
"""


def _on_tensors(schedule: str) -> str:
    """A matmul schedule for the payload on tensors: hoist_redundant_vector_transfers (memref
    transfers only, as upstream) becomes hoist_redundant_tensor_subsets."""
    memref_hoist = """    %f1 = transform.structured.hoist_redundant_vector_transfers %f
      : (!transform.any_op) -> !transform.any_op"""
    tensor_hoist = """    transform.structured.hoist_redundant_tensor_subsets %f : (!transform.any_op) -> ()
    %f1 = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op"""
    return schedule.replace(memref_hoist, tensor_hoist) if memref_hoist in schedule else schedule


def _machine_code(kernel: xlinalg.Kernel) -> tuple[int, int]:
    """(floating-point multiply/add/FMA instructions, instructions) in the kernel's optimised
    machine code."""
    asm = kernel._jit.asm()
    lines = [line.strip() for line in asm.splitlines()]
    code = [
        line
        for line in lines
        if line and not line.startswith((".", "#")) and not line.endswith(":")
    ]
    return sum(1 for line in code if re.match(r"v(fmadd|mul|add)\w*", line)), len(code)


def _compare(
    label: str,
    n: int,
    mem: xlinalg.Kernel,
    ten: xlinalg.Kernel,
    run_mem: Callable[[], np.ndarray],
    run_ten: Callable[[], np.ndarray],
    mem_args: tuple[np.ndarray, ...],
    ten_args: tuple[np.ndarray, ...],
    work: float,
    rounds: int,
) -> None:
    """One row: equal results, machine-code counts, best rate of `rounds` interleaved timings."""
    equal = np.array_equal(run_mem(), run_ten())
    (fm, cm), (ft, ct) = _machine_code(mem), _machine_code(ten)
    best = {"memref": 0.0, "tensor": 0.0}
    for _ in range(rounds):
        for name, kernel, args_ in (("memref", mem, mem_args), ("tensor", ten, ten_args)):
            seconds = kernel.time(*args_, max_total_s=0.3).min_s
            best[name] = max(best[name], work / seconds / 1e9)
    print(
        f"{n:>5} | {label:<17} | {equal!s:<5} | {fm:>6}/{ft:<7} | {cm:>6}/{ct:<7} | "
        f"{best['memref']:8.2f} | {best['tensor']:8.2f} | {best['tensor'] / best['memref']:5.2f}",
        flush=True,
    )


def _into(kernel: xlinalg.Kernel, inputs: tuple[np.ndarray, ...], out: np.ndarray) -> np.ndarray:
    """Run a memref kernel writing `out`; return `out`."""
    kernel(*inputs, out)
    return out


def _matmuls(n: int, rounds: int, rng: np.random.Generator) -> None:
    a, b, c = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(3))
    for label, space, knobs in CONFIGS:
        schedule = (ROOT / "search_spaces" / space).read_text()
        try:
            mem = xlinalg.compile(MEMREF.format(n=n), schedule, knobs=knobs)
            ten = xlinalg.compile(TENSOR.format(n=n), _on_tensors(schedule), knobs=knobs)
        except xlinalg.errors.XlinalgError as err:
            print(f"{n:>5} | {label:<17} | skipped: {str(err).splitlines()[0][-90:]}")
            continue
        out = c.copy()
        _compare(
            label,
            n,
            mem,
            ten,
            partial(_into, mem, (a, b), out),
            partial(ten, a, b, c.copy()),
            (a, b, out),
            (a, b, c),
            2.0 * n**3,
            rounds,
        )


def _chain(n: int, rounds: int, rng: np.random.Generator) -> None:
    a, b, c = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(3))
    tensor_payload = CHAIN_TENSOR.replace("1024x1000", f"{n}x{n}")
    mem = xlinalg.compile(CHAIN_MEMREF.format(n=n), CHAIN_SCHEDULE)
    ten = xlinalg.compile(tensor_payload, CHAIN_SCHEDULE)
    out = np.zeros_like(a)
    _compare(
        "chain, vectorized",
        n,
        mem,
        ten,
        partial(_into, mem, (a, b, c), out),
        partial(ten, a, b, c),
        (a, b, c, out),
        (a, b, c),
        4.0 * 4 * n * n,
        rounds,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 512])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(
        f"{'n':>5} | {'schedule':<17} | equal | fp ops mem/ten | instrs mem/ten | {'memref':>8} | "
        f"{'tensor':>8} | ratio  (GFLOP/s; chain: GB/s)"
    )
    rng = np.random.default_rng(0)
    for n in args.sizes:
        _matmuls(n, args.rounds, rng)
        _chain(n, args.rounds, rng)


if __name__ == "__main__":
    main()
