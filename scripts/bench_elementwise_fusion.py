"""Elementwise chain relu((a + b) * c) on 2-D f32 tensors: tile-and-fuse vs NumPy.

Prints, per shape, the median time (ms) and effective bandwidth (GB/s: 3 arrays
read + 1 written, once each) of:
- numpy:      np.maximum((a + b) * c, 0)  (three passes and two temporaries)
- numpy out=: the same with one preallocated temporary (three passes, in place)
- unfused:    xlinalg without a schedule (three loop nests, full-size temporaries)
- fused:      search_spaces/elementwise_fusion.mlir at the best of a few knob
              settings (tile the relu, fuse mul and add into its loop, then
              either fuse again down to rows of vec_n lanes -- one loop, the
              intermediates in registers, vectorize = 2 -- or vectorize each op
              of the tile), every candidate checked against the reference
and the ratio numpy / fused. Timings are interleaved over --rounds rounds of --calls
single calls; `--stat` as in every bench (`bench_stats`): the median of the per-round
medians, or with `--stat min` the fastest call (on 2 busy cores the steadier figure).

    python scripts/bench_elementwise_fusion.py [--shapes 1024x1000,512x512] [--rounds 5] [--stat min]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np
from bench_stats import add_arguments, call_seconds, interleaved

import xlinalg

REPO = Path(__file__).resolve().parent.parent

SPACE = (REPO / "search_spaces" / "elementwise_fusion.mlir").read_text()
CANDIDATES = (
    [
        # the chain fused down to rows of vec_n lanes: one loop, intermediates in registers
        {"tile_m": m, "tile_n": n, "vec_n": v, "fusion": f, "vectorize": 2}
        for m, n, v, f in ((1, 1024, 64, 1), (8, 1024, 32, 0), (8, 200, 40, 0), (4, 512, 32, 0))
    ]
    + [
        # each op of the tile vectorized in turn (three passes over the tile in L1)
        {"tile_m": m, "tile_n": n, "vec_n": v, "fusion": 0, "vectorize": 0}
        for m, n, v in ((16, 512, 64), (2, 1024, 64))
    ]
    + [{"tile_m": 8, "tile_n": 256, "vec_n": 64, "fusion": 0, "vectorize": 1}]
)  # scalar tiles


def payload(m: int, n: int) -> str:
    text = (REPO / "examples" / "elementwise_chain.mlir").read_text()
    return text.replace("1024x1000", f"{m}x{n}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="1024x1000,512x512,2048x2000")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20)
    add_arguments(parser)
    args = parser.parse_args()

    print(
        f"ms and GB/s: {args.stat} of {args.rounds} rounds of {args.calls} calls, timer {args.timer}"
    )
    print(
        f"{'M x N':>12} | {'numpy':>8} | {'np out=':>8} | {'unfused':>8} | {'fused':>8} | "
        f"{'GB/s fused':>10} | {'GB/s unfused':>12} | {'GB/s numpy':>10} | "
        f"{'numpy/fused':>11} | {'np out=/fused':>13} | best knobs"
    )
    for shape in args.shapes.split(","):
        bench_shape(shape, args)


def bench_shape(shape: str, args: argparse.Namespace) -> None:
    """Measure and print one row of the table."""
    m, n = (int(v) for v in shape.split("x"))
    text = payload(m, n)
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((m, n)).astype(np.float32) for _ in range(3))
    unfused = xlinalg.compile(text)
    best: tuple[float, dict[str, int], xlinalg.Kernel] | None = None
    for knobs in CANDIDATES:
        kernel = xlinalg.compile(text, schedule=SPACE, knobs=knobs)
        check = kernel.check(a, b, c)
        if not check.ok:
            raise SystemExit(f"{knobs}: wrong result: {check.message}")
        t = call_seconds(lambda k=kernel: k(a, b, c), args.calls, args.stat, args.timer)
        if best is None or t < best[0]:
            best = (t, knobs, kernel)
    assert best is not None
    fused = best[2]
    tmp = np.empty_like(a)

    def numpy_out() -> None:
        np.add(a, b, out=tmp)
        np.multiply(tmp, c, out=tmp)
        np.maximum(tmp, 0, out=tmp)

    runs: dict[str, Callable[[], object]] = {
        "numpy": lambda: np.maximum((a + b) * c, 0),
        "np out=": numpy_out,
        "unfused": lambda: unfused(a, b, c),
        "fused": lambda: fused(a, b, c),
    }
    seconds = interleaved(
        {
            name: (lambda fn=fn: call_seconds(fn, args.calls, args.stat, args.timer))
            for name, fn in runs.items()
        },
        args.rounds,
        args.stat,
    )
    ms = {name: v * 1e3 for name, v in seconds.items()}

    def gbs(seconds: float) -> float:
        return 4 * m * n * 4 / seconds / 1e9  # 3 arrays read + 1 written, once each

    knobs = ", ".join(f"{k}={v}" for k, v in best[1].items())
    print(
        f"{shape:>12} | {ms['numpy']:8.3f} | {ms['np out=']:8.3f} | {ms['unfused']:8.3f} | "
        f"{ms['fused']:8.3f} | {gbs(ms['fused'] * 1e-3):10.1f} | {gbs(ms['unfused'] * 1e-3):12.1f} | "
        f"{gbs(ms['numpy'] * 1e-3):10.1f} | {ms['numpy'] / ms['fused']:11.2f} | "
        f"{ms['np out='] / ms['fused']:13.2f} | {knobs}"
    )


if __name__ == "__main__":
    main()
