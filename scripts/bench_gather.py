"""Gathers in linalg bodies (`vectorize_nd_extract`): an embedding lookup and a transposed
read, scalar loops vs vectorized (`vector.gather` → hardware gathers) vs NumPy.

- embedding: `out[i, j] = table[ids[i], j]` (`tensor.extract` at a data-dependent row);
- transpose: `out[i, j] = t[j, i]` (`tensor.extract` at `linalg.index` swapped).

Columns (ms): numpy (`np.take(table, ids, axis=0, out=)` / `np.copyto(out, t.T)`), scalar
(xlinalg, no schedule: scalar loops), gather (tiled `--tile` and vectorized with
`vectorize_nd_extract`), and the ratio scalar / gather. Every kernel is checked against the
NumPy reference first.

The embedding is a gather only because upstream's classification calls every index read
from another operand loop-variant; the scalar loops read each row contiguously and LLVM
vectorizes them, so they win there. The transposed read gains most with square tiles. Timings are interleaved over --rounds rounds of --calls single calls;
`--stat` / `--timer` as in every bench (`bench_stats`).

    python scripts/bench_gather.py [--rows 512] [--width 256] [--table 4096] [--tile 16,16] \
        [--rounds 5] [--calls 50] [--stat min] [--timer cpu]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np
from bench_stats import add_arguments, call_seconds, interleaved

import xlinalg

REPO = Path(__file__).resolve().parent.parent

EMBED = """
func.func @embed(%t: tensor<{v}x{w}xf32>, %ids: tensor<{n}xi32>, %o: tensor<{n}x{w}xf32>) -> tensor<{n}x{w}xf32> {{
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%ids : tensor<{n}xi32>) outs(%o : tensor<{n}x{w}xf32>) {{
  ^bb0(%id: i32, %out: f32):
    %i = arith.index_cast %id : i32 to index
    %j = linalg.index 1 : index
    %e = tensor.extract %t[%i, %j] : tensor<{v}x{w}xf32>
    linalg.yield %e : f32
  }} -> tensor<{n}x{w}xf32>
  return %r : tensor<{n}x{w}xf32>
}}
"""
TRANSPOSE = """
func.func @transp(%t: tensor<{w}x{n}xf32>, %o: tensor<{n}x{w}xf32>) -> tensor<{n}x{w}xf32> {{
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} outs(%o : tensor<{n}x{w}xf32>) {{
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %e = tensor.extract %t[%j, %i] : tensor<{w}x{n}xf32>
    linalg.yield %e : f32
  }} -> tensor<{n}x{w}xf32>
  return %r : tensor<{n}x{w}xf32>
}}
"""
SCHEDULE = """module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %g = transform.structured.match ops{{["linalg.generic"]}} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %g tile_sizes [{tile}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %t vectorize_nd_extract : !transform.any_op
    transform.yield
  }}
}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=512)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--table", type=int, default=4096)
    parser.add_argument("--tile", default="16,16")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=50)
    add_arguments(parser)
    args = parser.parse_args()
    n, w, v = args.rows, args.width, args.table
    rng = np.random.default_rng(0)
    table = rng.standard_normal((v, w)).astype(np.float32)
    ids = rng.integers(0, v, n).astype(np.int32)
    src = rng.standard_normal((w, n)).astype(np.float32)
    out = np.zeros((n, w), np.float32)
    cases: dict[str, tuple[str, tuple[np.ndarray, ...], Callable[[], object]]] = {
        "embedding": (
            EMBED.format(n=n, w=w, v=v),
            (table, ids, out),
            lambda: np.take(table, ids, axis=0, out=out),
        ),
        "transpose": (TRANSPOSE.format(n=n, w=w), (src, out), lambda: np.copyto(out, src.T)),
    }
    print(
        f"ms: {args.stat} of {args.rounds} rounds of {args.calls} calls, timer {args.timer}; "
        f"{n}x{w} f32 out, tile [{args.tile}]"
    )
    print(f"{'case':>10} | {'numpy':>8} | {'scalar':>8} | {'gather':>8} | {'scalar/gather':>13}")
    schedule = SCHEDULE.format(tile=args.tile.replace(",", ", "))
    for name, (payload, inputs, numpy_fn) in cases.items():
        scalar = xlinalg.compile(payload)
        gather = xlinalg.compile(payload, schedule)
        for kernel in (scalar, gather):
            check = kernel.check(*inputs)
            if not check.ok:
                raise SystemExit(f"{name}: wrong result: {check.message}")
        runs: dict[str, Callable[[], object]] = {
            "numpy": numpy_fn,
            "scalar": lambda k=scalar, a=inputs: k(*a),
            "gather": lambda k=gather, a=inputs: k(*a),
        }
        seconds = interleaved(
            {
                key: (lambda fn=fn: call_seconds(fn, args.calls, args.stat, args.timer))
                for key, fn in runs.items()
            },
            args.rounds,
            args.stat,
        )
        ms = {key: s * 1e3 for key, s in seconds.items()}
        print(
            f"{name:>10} | {ms['numpy']:8.3f} | {ms['scalar']:8.3f} | {ms['gather']:8.3f} | "
            f"{ms['scalar'] / ms['gather']:13.2f}"
        )


if __name__ == "__main__":
    main()
