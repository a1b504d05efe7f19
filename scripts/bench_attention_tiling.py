"""iree_linalg_ext.attention tiled FlashAttention-2 style three ways, same numbers:
on memrefs (tile_using_for [1, bn, bl]), on tensors (same schedule, bufferized after
tiling) and on tensors with the query blocks in an scf.forall (key loop inside).

    python scripts/bench_attention_tiling.py [--n 256] [--l 512] [--d 64] [--rounds 3]

Prints the median time of each and the ratio to the memref form (2 noisy cores: quote
ratios, re-run when another benchmark shares the machine)."""

from __future__ import annotations

import argparse

import numpy as np

import xlinalg

ANY = "!transform.any_op"


def payload(kind: str, b: int, n: int, kv_len: int, d: int) -> str:
    def t(*shape: int) -> str:
        return f"{kind}<{'x'.join(map(str, shape))}xf32>"

    q, k, o = t(b, n, d), t(b, kv_len, d), t(b, n, d)
    head = f"func.func @f(%q: {q}, %k: {k}, %v: {k}, %o: {o})"
    op = f"iree_linalg_ext.attention ins(%q, %k, %v, %s : {q}, {k}, {k}, f32) outs(%o : {o})"
    if kind == "memref":
        return f"{head} {{\n  %s = arith.constant 0.125 : f32\n  {op}\n  return\n}}"
    return f"{head} -> {o} {{\n  %s = arith.constant 0.125 : f32\n  %r = {op} -> {o}\n  return %r : {o}\n}}"


def schedule(forall: bool, bn: int, bl: int) -> str:
    if forall:
        body = (
            f"%t, %f = transform.structured.tile_using_forall %op tile_sizes [1, {bn}, 0] : ({ANY}) -> ({ANY}, {ANY})\n"
            f"    %t2, %l = transform.structured.tile_using_for %t tile_sizes [0, 0, {bl}] : ({ANY}) -> ({ANY}, {ANY})"
        )
    else:
        body = (
            f"%t, %l:3 = transform.structured.tile_using_for %op tile_sizes [1, {bn}, {bl}] "
            f": ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})"
        )
    return f"""module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: {ANY} {{transform.readonly}}) {{
    %op = transform.structured.match ops{{["iree_linalg_ext.attention"]}} in %root : ({ANY}) -> {ANY}
    {body}
    transform.yield
  }}
}}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=256)
    parser.add_argument("--l", type=int, default=512)
    parser.add_argument("--d", type=int, default=64)
    parser.add_argument("--bn", type=int, default=32)
    parser.add_argument("--bl", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    shapes = [(1, args.n, args.d), (1, args.l, args.d), (1, args.l, args.d), (1, args.n, args.d)]
    inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    variants = {
        "memref": (payload("memref", 1, args.n, args.l, args.d), schedule(False, args.bn, args.bl)),
        "tensor": (payload("tensor", 1, args.n, args.l, args.d), schedule(False, args.bn, args.bl)),
        "tensor+forall": (
            payload("tensor", 1, args.n, args.l, args.d),
            schedule(True, args.bn, args.bl),
        ),
    }
    kernels = {
        name: xlinalg.compile(src, schedule=sched, entry="f")
        for name, (src, sched) in variants.items()
    }
    times: dict[str, list[float]] = {name: [] for name in kernels}
    for _ in range(args.rounds):  # interleaved rounds
        for name, kernel in kernels.items():
            times[name].append(kernel.time(*[a.copy() for a in inputs]).median_s)
    flops = kernels["memref"].flops(*inputs)
    base = float(np.median(times["memref"]))
    for name, samples in times.items():
        median = float(np.median(samples))
        print(
            f"{name:14s} {median * 1e3:8.3f} ms  {flops / median / 1e9:6.2f} GFLOP/s  "
            f"time ratio vs memref {median / base:.2f}"
        )


if __name__ == "__main__":
    main()
