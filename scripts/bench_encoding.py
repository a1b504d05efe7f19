#!/usr/bin/env python3
"""Speed of the encoding (data-tiling) path: a matmul written with iree_linalg_ext
set_encoding / unset_encoding, materialized into pack + mmt4d + unpack, in one run:

- `template`: search_spaces/encoding_matmul.mlir with fixed knobs (`--knobs`) or the best
  of a tuning study (`--trials N`: the real tuner, isolated checked trials, rerank);
- `default`: no schedule: `xlinalg.compile` materializes the encodings with the host's
  tiles (16x16x1 on AVX-512) and gives the mmt4d its built-in vectorized schedule
  (`xlinalg/lowering/default_mmt4d_schedule.py`: what a kernel gets untuned);
- NumPy/OpenBLAS on one thread (C + A·B), and the FMA peak measured in this run.

    python scripts/bench_encoding.py [--shapes 512 384x1000x256] [--rounds 7] [--stat min]
    python scripts/bench_encoding.py --trials 20     # tune encoding_matmul.mlir first

Every runner is timed once per round, interleaved, so drift hits all alike; `--stat min`
(the fastest round) on a machine shared with other jobs. Compare ratios, not times.
The packs of A, B, C and the unpack of C are part of every call (operands not constant).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from bench_matmul import _best_params, blas_runner, parse_shape, tune
from bench_mmt4d import _kernel_runner, _knobs
from bench_stats import Peak, add_arguments, interleaved

import xlinalg

ROOT = Path(__file__).resolve().parent.parent
SPACE = ROOT / "search_spaces" / "encoding_matmul.mlir"
DEFAULT_KNOBS = "tile_m=8,tile_n=32,tm1=8,tn1=4,tk=256,rk=4,cache_order=0,reg_order=1"


def _enc(role: str) -> str:
    return (
        f"#iree_linalg_ext.encoding<role = {role}, element_types = [f32, f32, f32], "
        "round_dims_to = array<i64: 16, 16, 16>>"
    )


def payload(m: int, n: int, k: int) -> str:
    la, lb, lc = (
        f"tensor<{m}x{k}xf32, {_enc('LHS')}>",
        f"tensor<{k}x{n}xf32, {_enc('RHS')}>",
        f"tensor<{m}x{n}xf32, {_enc('RESULT')}>",
    )
    return f"""// C + A·B through encodings, {m}x{k} · {k}x{n}, f32
func.func @f(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>, %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %ea = iree_linalg_ext.set_encoding %a : tensor<{m}x{k}xf32> -> {la}
  %eb = iree_linalg_ext.set_encoding %b : tensor<{k}x{n}xf32> -> {lb}
  %ec = iree_linalg_ext.set_encoding %c : tensor<{m}x{n}xf32> -> {lc}
  %r = linalg.matmul ins(%ea, %eb : {la}, {lb}) outs(%ec : {lc}) -> {lc}
  %u = iree_linalg_ext.unset_encoding %r : {lc} -> tensor<{m}x{n}xf32>
  return %u : tensor<{m}x{n}xf32>
}}
"""


def _runners(
    src: str,
    shape: tuple[int, int, int],
    knobs: dict[str, int],
    with_default: bool,
    stat: str,
    timer: str,
) -> dict[str, Callable[[], float]]:
    """Per-call seconds of each column for one shape (kernels checked vs NumPy first)."""
    m, n, k = shape
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((m, k), (k, n), (m, n)))
    expected = c + a.astype(np.float64) @ b
    kernels = {"template": xlinalg.compile(src, schedule=SPACE.read_text(), knobs=knobs)}
    if with_default:
        kernels["default"] = xlinalg.compile(src)
    runners: dict[str, Callable[[], float]] = {}
    for key, kernel in kernels.items():
        np.testing.assert_allclose(kernel(a, b, c), expected, rtol=1e-3, atol=1e-3)
        runners[key] = _kernel_runner(kernel, (a, b, c), stat, timer)
    runners["numpy"] = blas_runner(a, b, 1, stat, timer)
    return runners


def main() -> int:
    import optuna  # noqa: PLC0415 - Optuna is heavy: only to tune (the payloads are imported without it)

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--shapes",
        nargs="+",
        type=parse_shape,
        default=[parse_shape(s) for s in ("512", "384x1000x256")],
    )
    parser.add_argument(
        "--knobs",
        type=_knobs,
        default=_knobs(DEFAULT_KNOBS),
        help=f"fixed knobs of encoding_matmul.mlir (default {DEFAULT_KNOBS})",
    )
    parser.add_argument(
        "--trials", type=int, default=0, help="tune the template first (0: fixed knobs)"
    )
    parser.add_argument("--storage", default=f"sqlite:///{ROOT / 'results' / 'bench.db'}")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=7)
    add_arguments(parser)
    parser.add_argument(
        "--no-default", action="store_true", help="skip the untuned (default schedule) column"
    )
    args = parser.parse_args()

    peak = Peak()
    print(f"load {os.getloadavg()[0]:.1f}; {peak}; stat {args.stat}, timer {args.timer}")
    print(
        f"{'shape':>14} {'knobs':>58} {'template':>9} {'default':>8} {'numpy':>8} "
        f"{'t/numpy':>8} {'t/peak':>7} {'d/numpy':>8}"
    )
    for m, n, k in args.shapes:
        src = payload(m, n, k)
        if args.trials:
            name = f"encoding_{m}x{n}x{k}"
            tune(src, name, args.storage, args.trials, args.seed, SPACE)
            knobs = _best_params(args.storage, name)
        else:
            knobs = args.knobs[1]
        runners = _runners(src, (m, n, k), knobs, not args.no_default, args.stat, args.timer)
        seconds = interleaved(runners, args.rounds, args.stat)
        peak.measure()
        gf = {key: 2 * m * n * k / s / 1e9 for key, s in seconds.items()}
        knob_text = ",".join(f"{key}={value}" for key, value in knobs.items())
        d = gf.get("default", float("nan"))
        print(
            f"{f'{m}x{n}x{k}':>14} {knob_text:>58} {gf['template']:9.1f} {d:8.1f} {gf['numpy']:8.1f} "
            f"{gf['template'] / gf['numpy']:8.2f} {gf['template'] / peak.gflops:7.2f} {d / gf['numpy']:8.2f}"
        )
    print(f"{peak}; load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
