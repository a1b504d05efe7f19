#!/usr/bin/env python3
"""Robustness sweep of the tuning templates: random knob samples on awkward payload shapes.

    python scripts/sweep_templates.py [--samples 4] [--seed 0] [--jobs 2] [--time-limit 120]
                                      [--templates matmul_tile reduction ...] [--failures]

For every template of `TEMPLATES` (the nine of `search_spaces/` that are not batch / mmt4d
ones) and every payload of its `Case` list (odd sizes, primes, sizes smaller than the
largest tile, strided and dilated convolutions, other element types where the template
takes them), `--samples` knob settings are drawn uniformly from the options that satisfy
the template's constraints (`profile_compile.sample_knobs`: what the random sampler
proposes; pruned settings never compile). Each one runs as a tuner candidate
(`tuner.worker.measure`: its own child process and time limit, so a crash or a hang is
that sample's status and the sweep goes on): compile, random inputs, check against the
NumPy reference, one short timing. Prints one row per template and payload with the
counts of `ok` / `wrong` (wrong_result: a real bug) / `compile_error` / `crash` /
`timeout` / `error`; `--failures` lists every failed sample with its knobs and message.
The exit code is 1 when any sample was wrong or crashed.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import _bootstrap
from bench_attention_tiling import payload as attention_payload
from bench_encoding import payload as encoding_payload
from profile_compile import sample_knobs

from tuner.candidate import CandidateRequest
from tuner.worker import measure
from xlinalg.examples import fill_matmul, filled_contraction, zero_constant

ROOT = _bootstrap.ROOT
SPACES = ROOT / "search_spaces"
STATUSES = ("ok", "wrong_result", "compile_error", "crash", "timeout", "error")
TIMING = {"max_total_s": 0.02, "min_repeats": 1, "max_repeats": 3, "min_sample_s": 0.001}


def matmul(m: int, n: int, k: int, dtype: str = "f32", dynamic: bool = False) -> str:
    """C = A·B on buffers (C zeroed first), as examples/matmul_512.mlir; `dynamic`: every
    dim `?` (the sizes come with the case)."""
    return fill_matmul(m, n, k, dtype, "memref", dynamic)


@dataclass(frozen=True)
class Conv:
    """An NHWC/HWCF convolution: batch, output pixels, channels, filter window, stride, dilation."""

    n: int
    oh: int
    ow: int
    c: int
    f: int
    kh: int = 3
    kw: int = 3
    stride: int = 1
    dilation: int = 1
    dtype: str = "f32"

    def types(self, kind: str) -> tuple[str, str, str]:
        ih = (self.oh - 1) * self.stride + (self.kh - 1) * self.dilation + 1
        iw = (self.ow - 1) * self.stride + (self.kw - 1) * self.dilation + 1
        t = self.dtype
        return (
            f"{kind}<{self.n}x{ih}x{iw}x{self.c}x{t}>",
            f"{kind}<{self.kh}x{self.kw}x{self.c}x{self.f}x{t}>",
            f"{kind}<{self.n}x{self.oh}x{self.ow}x{self.f}x{t}>",
        )

    def attrs(self) -> str:
        return (
            f"{{dilations = dense<{self.dilation}> : tensor<2xi64>, "
            f"strides = dense<{self.stride}> : tensor<2xi64>}}"
        )

    def memref(self) -> str:
        """On buffers, accumulating into the output (examples/conv2d_56x56x64.mlir)."""
        i, f, o = self.types("memref")
        return f"""func.func @conv(%I: {i}, %F: {f}, %O: {o}) {{
  linalg.conv_2d_nhwc_hwcf {self.attrs()} ins(%I, %F : {i}, {f}) outs(%O : {o})
  return
}}
"""

    def tensor(self) -> str:
        """On tensors, the output a zero fill (what convert_conv2d_to_img2col takes)."""
        i, f, o = self.types("tensor")
        return filled_contraction(
            "conv", f"linalg.conv_2d_nhwc_hwcf {self.attrs()}", i, f, o, self.dtype
        )


def chain(m: int, n: int, dtype: str = "f32") -> str:
    """relu((a + b) * c) on 2-D tensors, as examples/elementwise_chain.mlir."""
    t = f"tensor<{m}x{n}x{dtype}>"
    maximum = "arith.maxsi" if dtype.startswith("i") else "arith.maximumf"
    return f"""func.func @chain(%a: {t}, %b: {t}, %c: {t}) -> {t} {{
  %e = tensor.empty() : {t}
  %0 = linalg.add ins(%a, %b : {t}, {t}) outs(%e : {t}) -> {t}
  %1 = linalg.mul ins(%0, %c : {t}, {t}) outs(%e : {t}) -> {t}
  %2 = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%1 : {t}) outs(%e : {t}) {{
  ^bb0(%x: {dtype}, %o: {dtype}):
    %zero = arith.constant {zero_constant(dtype)}
    %r = {maximum} %x, %zero : {dtype}
    linalg.yield %r : {dtype}
  }} -> {t}
  return %2 : {t}
}}
"""


def row_reduce(
    m: int, n: int, dtype: str = "f32", combiner: str = "add", dynamic: bool = False
) -> str:
    """out[i] = out[i] (+|max) in[i, j] over j on buffers, as examples/reduction_rows.mlir;
    `dynamic`: every dim `?`."""
    integer = dtype.startswith("i")
    op = {
        ("add", False): "arith.addf",
        ("add", True): "arith.addi",
        ("max", False): "arith.maximumf",
        ("max", True): "arith.maxsi",
    }[combiner, integer]
    i, o = (
        (f"memref<?x?x{dtype}>", f"memref<?x{dtype}>")
        if dynamic
        else (f"memref<{m}x{n}x{dtype}>", f"memref<{m}x{dtype}>")
    )
    return f"""func.func @row_reduce(%in: {i}, %out: {o}) {{
  linalg.reduce ins(%in : {i}) outs(%out : {o}) dimensions = [1]
    (%x: {dtype}, %acc: {dtype}) {{
      %s = {op} %x, %acc : {dtype}
      linalg.yield %s : {dtype}
    }}
  return
}}
"""


def batch_matmul(b: int, m: int, n: int, k: int, kind: str = "memref") -> str:
    """C = A·B per batch: on buffers accumulating into C, or on tensors from a zero fill."""
    a, bt, c = (f"{kind}<{b}x{r}x{s}xf32>" for r, s in ((m, k), (k, n), (m, n)))
    if kind == "memref":
        return f"""func.func @batch_matmul(%A: {a}, %B: {bt}, %C: {c}) {{
  linalg.batch_matmul ins(%A, %B : {a}, {bt}) outs(%C : {c})
  return
}}
"""
    return filled_contraction("batch_matmul", "linalg.batch_matmul", a, bt, c)


def mmt4d(m1: int, n1: int, k1: int, m0: int, n0: int, k0: int, batch: int = 0) -> str:
    """(batch_)mmt4d on pre-packed buffers, accumulating, as examples/mmt4d_1024.mlir."""
    b = f"{batch}x" if batch else ""
    name = "batch_mmt4d" if batch else "mmt4d"
    lhs, rhs, acc = (
        f"memref<{b}{m1}x{k1}x{m0}x{k0}xf32>",
        f"memref<{b}{n1}x{k1}x{n0}x{k0}xf32>",
        f"memref<{b}{m1}x{n1}x{m0}x{n0}xf32>",
    )
    return f"""func.func @{name}(%lhs: {lhs}, %rhs: {rhs}, %acc: {acc}) {{
  linalg.{name} ins(%lhs, %rhs : {lhs}, {rhs}) outs(%acc : {acc})
  return
}}
"""


@dataclass(frozen=True)
class Case:
    label: str
    payload: Callable[[], str]
    sizes: dict[str, int] | None = None  # of the dynamic dims ("arg:dim" -> n)


def _matmul_cases() -> list[Case]:
    shapes = [
        (1, 1, 1),
        (1, 67, 33),
        (45, 1, 19),
        (23, 41, 1),
        (7, 13, 5),
        (31, 17, 97),
        (97, 131, 61),
        (200, 17, 300),
        (129, 257, 63),
        (255, 513, 129),
    ]
    cases = [Case(f"{m}x{n}x{k}", lambda m=m, n=n, k=k: matmul(m, n, k)) for m, n, k in shapes]
    cases += [
        Case(f"37x53x29 {t}", lambda t=t: matmul(37, 53, 29, t))
        for t in ("f64", "f16", "bf16", "i32")
    ]
    m, n, k = 37, 53, 29
    sizes = {"0:0": m, "0:1": k, "1:0": k, "1:1": n, "2:0": m, "2:1": n}
    return [*cases, Case(f"{m}x{n}x{k} dynamic", lambda: matmul(m, n, k, dynamic=True), sizes)]


def _conv_cases(form: str) -> list[Case]:
    convs = [
        Conv(1, 7, 9, 16, 16),
        Conv(1, 13, 11, 24, 40),
        Conv(2, 5, 6, 8, 48),
        Conv(1, 9, 7, 16, 32, stride=2),
        Conv(1, 6, 10, 16, 16, dilation=2),
        Conv(1, 5, 5, 3, 17, kh=1, kw=2, stride=3, dilation=2),
        Conv(1, 4, 15, 64, 64, kh=5, kw=1),
        Conv(1, 1, 1, 1, 1),
        Conv(1, 1, 13, 5, 19, kh=1, kw=1),
        Conv(3, 3, 2, 7, 33, kh=2, kw=2, stride=2),
        Conv(1, 7, 7, 16, 32, dtype="f64"),
        Conv(1, 5, 6, 8, 16, dtype="f16"),
    ]
    return [
        Case(
            f"n{c.n} {c.oh}x{c.ow} c{c.c}->{c.f} k{c.kh}x{c.kw} s{c.stride} d{c.dilation} {c.dtype}",
            getattr(c, form),
        )
        for c in convs
    ]


def _chain_cases() -> list[Case]:
    shapes = [(1, 1), (1, 77), (77, 1), (3, 5), (17, 1000), (101, 199), (64, 40)]
    cases = [Case(f"{m}x{n}", lambda m=m, n=n: chain(m, n)) for m, n in shapes]
    cases += [Case(f"13x77 {t}", lambda t=t: chain(13, 77, t)) for t in ("f64", "f16", "i32")]
    return cases


def _reduction_cases() -> list[Case]:
    shapes = [(1, 1), (1, 64), (50, 1), (3, 15), (7, 1000), (61, 257), (9, 4099), (5, 4096)]
    cases = [Case(f"{m}x{n} add", lambda m=m, n=n: row_reduce(m, n)) for m, n in shapes]
    cases += [Case("33x333 max", lambda: row_reduce(33, 333, combiner="max"))]
    cases += [
        Case(f"11x301 {t}", lambda t=t: row_reduce(11, 301, t)) for t in ("f64", "f16", "i32")
    ]
    sizes = {"0:0": 13, "0:1": 77, "1:0": 13}
    return [*cases, Case("13x77 add dynamic", lambda: row_reduce(13, 77, dynamic=True), sizes)]


def _attention_cases() -> list[Case]:
    shapes = [
        (1, 1, 1, 8),
        (1, 7, 5, 16),
        (1, 9, 11, 5),
        (2, 33, 65, 16),
        (1, 100, 37, 32),
        (3, 13, 300, 64),
    ]
    return [
        Case(
            f"b{b} n{n} l{kv_len} d{d}",
            lambda b=b, n=n, kv_len=kv_len, d=d: attention_payload("tensor", b, n, kv_len, d),
        )
        for b, n, kv_len, d in shapes
    ]


def _encoding_cases() -> list[Case]:
    shapes = [
        (1, 1, 1),
        (1, 50, 3),
        (40, 1, 9),
        (7, 13, 5),
        (31, 17, 97),
        (100, 129, 255),
        (5, 300, 17),
    ]
    return [
        Case(f"{m}x{n}x{k}", lambda m=m, n=n, k=k: encoding_payload(m, n, k)) for m, n, k in shapes
    ]


def _batch_cases(kind: str) -> list[Case]:
    shapes = [(1, 1, 1, 1), (3, 37, 53, 29), (2, 7, 130, 5), (5, 33, 17, 70)]
    return [
        Case(f"{b}x{m}x{n}x{k}", lambda b=b, m=m, n=n, k=k: batch_matmul(b, m, n, k, kind))
        for b, m, n, k in shapes
    ]


def _matmul_tensor_cases() -> list[Case]:
    shapes = [(1, 1, 1), (7, 13, 5), (31, 17, 97), (100, 129, 255), (1, 300, 17)]
    return [Case(f"{m}x{n}x{k}", lambda m=m, n=n, k=k: fill_matmul(m, n, k)) for m, n, k in shapes]


def _mmt4d_cases(batch: int) -> list[Case]:
    """(m1, n1, k1) outer tiles of (m0, n0, k0) inner tiles."""
    shapes = [
        ((1, 1, 1), (16, 16, 1)),
        ((3, 5, 7), (16, 16, 1)),
        ((2, 3, 33), (8, 32, 1)),
        ((5, 2, 19), (4, 16, 2)),
    ]
    prefix = f"b{batch} " if batch else ""
    return [
        Case(
            f"{prefix}{'x'.join(map(str, outer))} tiles {'x'.join(map(str, inner))}",
            lambda outer=outer, inner=inner: mmt4d(*outer, *inner, batch=batch),
        )
        for outer, inner in shapes
    ]


TEMPLATES: dict[str, Callable[[], list[Case]]] = {
    "matmul_tile": _matmul_cases,
    "matmul_vectorize": _matmul_cases,
    "matmul_parallel": _matmul_cases,
    "conv2d_nhwc_hwcf": lambda: _conv_cases("memref"),
    "conv2d_img2col": lambda: _conv_cases("tensor"),
    "elementwise_fusion": _chain_cases,
    "reduction": _reduction_cases,
    "attention_tile": _attention_cases,
    "encoding_matmul": _encoding_cases,
}


# The batch / mmt4d templates other engineers own (`--others`: reported, not fixed here).
OTHERS: dict[str, Callable[[], list[Case]]] = {
    "batch_matmul": lambda: _batch_cases("memref"),
    "batch_matmul_mmt4d": lambda: _batch_cases("tensor"),
    "batch_mmt4d": lambda: _mmt4d_cases(3),
    "mmt4d": lambda: _mmt4d_cases(0),
    "matmul_mmt4d": _matmul_tensor_cases,
    "matmul_mmt4d_parallel": _matmul_tensor_cases,
}
CASES = {**TEMPLATES, **OTHERS}


@dataclass(frozen=True)
class Sample:
    template: str
    case: str
    knobs: dict[str, Any]
    request: CandidateRequest


def samples(name: str, count: int, seed: int) -> list[Sample]:
    """`count` constraint-satisfying knob settings of template `name` for each of its cases."""
    schedule = (SPACES / f"{name}.mlir").read_text()
    found: list[Sample] = []
    for case in CASES[name]():
        payload = case.payload()
        rng = random.Random(f"{seed}-{name}-{case.label}")
        for knobs in sample_knobs(schedule, rng, count):
            request = CandidateRequest(
                payload=payload,
                schedule=schedule,
                knobs=knobs,
                seed=seed,
                sizes=case.sizes,
                timing=TIMING,
            )
            found.append(Sample(name, case.label, knobs, request))
    return found


def _row(template: str, case: str, counter: Counter[str]) -> str:
    return f"{template:<21} | {case:<38} | " + " | ".join(
        f"{counter[s]:>{len(_SHORT[s])}}" for s in STATUSES
    )


_SHORT = {
    "ok": "    ok",
    "wrong_result": " wrong",
    "compile_error": "compile_error",
    "crash": "crash",
    "timeout": "timeout",
    "error": "error",
}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--samples", type=int, default=4, help="knob settings per template and payload"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="candidates measured at once")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per candidate")
    parser.add_argument(
        "--templates",
        nargs="+",
        choices=sorted(CASES),
        default=list(TEMPLATES),
        help="default: the nine non-batch templates",
    )
    parser.add_argument("--others", action="store_true", help="add the batch / mmt4d templates")
    parser.add_argument("--failures", action="store_true", help="list every failed sample")
    args = parser.parse_args()
    if args.others:
        args.templates += [name for name in OTHERS if name not in args.templates]

    head = f"{'template':<21} | {'payload':<38} | " + " | ".join(_SHORT[s] for s in STATUSES)
    print(head)
    print("-" * len(head), flush=True)
    total: Counter[str] = Counter()
    failed: list[tuple[Sample, dict[str, Any]]] = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for name in args.templates:
            todo = samples(name, args.samples, args.seed)
            results = list(pool.map(lambda s: measure(s.request, args.time_limit), todo))
            counts: dict[str, Counter[str]] = {}
            for sample, result in zip(todo, results, strict=True):
                counts.setdefault(sample.case, Counter())[result["status"]] += 1
                if result["status"] != "ok":
                    failed.append((sample, result))
            for case, counter in counts.items():
                total.update(counter)
                print(_row(name, case, counter), flush=True)
    print("-" * len(head))
    print(_row("total", f"{sum(total.values())} samples", total))
    if args.failures:
        for sample, result in failed:
            print(
                f"\n{sample.template} {sample.case} {result['status']}: {sample.knobs}\n"
                f"  {result.get('error', '')[:600]}"
            )
    return 1 if total["wrong_result"] or total["crash"] else 0


if __name__ == "__main__":
    sys.exit(main())
