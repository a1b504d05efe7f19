"""iree_linalg_ext kernels and NumPy formulas the LinalgExt tests share: running a kernel
natively and by the reference (`run_both`), tiling schedules, the sort / scan / topk /
scatter / fft payloads on memrefs, attention and its softmax formula, pack and the
convolution the winograd transforms compute."""

from __future__ import annotations

import numpy as np

import xlinalg
from xlinalg.coverage.linalg_ext_cases import EXEC, exercised
from xlinalg.reference.function import run_function


def tile_schedule(op_name: str, sizes: list[int]) -> str:
    """A schedule tiling every `op_name` op with `tile_using_for` by `sizes`."""
    n = sum(1 for s in sizes if s)
    loops = ", ".join(["!transform.any_op"] * n)
    return f"""
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %op = transform.structured.match ops{{["{op_name}"]}} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:{n} = transform.structured.tile_using_for %op tile_sizes {sizes}
      : (!transform.any_op) -> (!transform.any_op, {loops})
    transform.yield
  }}
}}"""


def run_both(
    src: str, args: list[np.ndarray], schedule: str | None = None, entry: str = "f"
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(arrays after the compiled kernel, arrays after the NumPy reference). The kernel's
    ext ops must run in the element type `cases.EXEC` declares for them (the coverage
    table's run/tiled columns)."""
    declared = {(op, elt) for op, (elt, _) in EXEC.items()}
    assert exercised(xlinalg.parse(src)) <= declared, exercised(xlinalg.parse(src)) - declared
    native = [a.copy() for a in args]
    xlinalg.compile(src, schedule=schedule, entry=entry)(*native)
    reference = [a.copy() for a in args]
    run_function(xlinalg.parse(src), entry, reference)
    return native, reference


SORT = """
func.func @f(%k: memref<5x13xf32>, %v: memref<5x13xi32>) {
  iree_linalg_ext.sort dimension(1) outs(%k, %v : memref<5x13xf32>, memref<5x13xi32>) {
  ^bb0(%a: f32, %b: f32, %x: i32, %y: i32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  }
  return
}"""


def scan_src(inclusive: bool) -> str:
    return f"""
func.func @f(%x: memref<7x5xf32>, %y: memref<7x5xf32>, %acc: memref<5xf32>) {{
  iree_linalg_ext.scan dimension(0) inclusive({str(inclusive).lower()})
      ins(%x : memref<7x5xf32>) outs(%y, %acc : memref<7x5xf32>, memref<5xf32>) {{
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    iree_linalg_ext.yield %s : f32
  }}
  return
}}"""


def topk_src(with_indices: bool) -> str:
    ins = (
        "%x, %ix : memref<5x11xf32>, memref<5x11xi32>" if with_indices else "%x : memref<5x11xf32>"
    )
    return f"""
func.func @f(%x: memref<5x11xf32>, %ix: memref<5x11xi32>, %v: memref<5x3xf32>, %i: memref<5x3xi32>) {{
  iree_linalg_ext.topk dimension(1) ins({ins}) outs(%v, %i : memref<5x3xf32>, memref<5x3xi32>) {{
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  }}
  return
}}"""


SCATTER_1D = """
func.func @f(%u: memref<6x3xf32>, %ix: memref<6x1xi32>, %o: memref<5x3xf32>) {
  iree_linalg_ext.scatter dimension_map = [0] unique_indices(false)
      ins(%u, %ix : memref<6x3xf32>, memref<6x1xi32>) outs(%o : memref<5x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    iree_linalg_ext.yield %s : f32
  }
  return
}"""


def fft_src(n: int, coefficients: bool) -> str:
    """All stages 1..log2(n) in order; with `coefficients`, stage s reads its twiddles from
    the arguments %cr<s>, %ci<s> (memref<(2^(s-1))xf32>)."""
    stages = []
    args = [f"%re: memref<3x{n}xf32>", f"%im: memref<3x{n}xf32>"]
    outs = f"outs(%re, %im : memref<3x{n}xf32>, memref<3x{n}xf32>)"
    for s in range(1, n.bit_length()):
        stages.append(f"  %s{s} = arith.constant {s} : index\n")
        if coefficients:
            h = 1 << (s - 1)
            args += [f"%cr{s}: memref<{h}xf32>", f"%ci{s}: memref<{h}xf32>"]
            stages.append(
                f"  iree_linalg_ext.fft ins(%s{s}, %cr{s}, %ci{s} : index, memref<{h}xf32>, "
                f"memref<{h}xf32>) {outs}\n"
            )
        else:
            stages.append(f"  iree_linalg_ext.fft ins(%s{s} : index) {outs}\n")
    return f"func.func @f({', '.join(args)}) {{\n" + "".join(stages) + "  return\n}"


def bit_reverse(x: np.ndarray) -> np.ndarray:
    n = x.shape[-1]
    bits = n.bit_length() - 1
    perm = [int(f"{i:0{bits}b}"[::-1], 2) for i in range(n)]
    return x[..., perm]


# ---------------------------------------------------------------- attention

B, N, L, D, E = 2, 37, 53, 16, 12
SCALE = 0.25


def attention_src(transpose_v: bool = False) -> str:
    v_type = f"memref<{B}x{E}x{L}xf32>" if transpose_v else f"memref<{B}x{L}x{E}xf32>"
    attr = " {transpose_v = true}" if transpose_v else ""
    return f"""
func.func @f(%q: memref<{B}x{N}x{D}xf32>, %k: memref<{B}x{L}x{D}xf32>, %v: {v_type},
             %o: memref<{B}x{N}x{E}xf32>) {{
  %s = arith.constant {SCALE} : f32
  iree_linalg_ext.attention{attr} ins(%q, %k, %v, %s : memref<{B}x{N}x{D}xf32>, memref<{B}x{L}x{D}xf32>, {v_type}, f32)
      outs(%o : memref<{B}x{N}x{E}xf32>)
  return
}}"""


def softmax_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float = SCALE
) -> np.ndarray:
    s = q.astype(np.float64) @ np.swapaxes(k, 1, 2).astype(np.float64) * scale
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    return p @ v.astype(np.float64)


# ---------------------------------------------------------------- pack, winograd


def pack_formula(
    x: np.ndarray, dims_pos: list[int], tiles: list[int], perm: list[int] | None, pad: float
) -> np.ndarray:
    """Independent formula: an explicit loop over the packed index space."""
    outer = list(x.shape)
    for d, t in zip(dims_pos, tiles):
        outer[d] = -(-x.shape[d] // t)
    perm = perm or list(range(x.ndim))
    out = np.empty([outer[p] for p in perm] + tiles, x.dtype)
    for index in np.ndindex(*out.shape):
        o = [0] * x.ndim
        for pos, p in enumerate(perm):
            o[p] = index[pos]
        src = list(o)
        for j, (d, t) in enumerate(zip(dims_pos, tiles)):
            src[d] = o[d] * t + index[x.ndim + j]
        inside = all(s < n for s, n in zip(src, x.shape))
        out[index] = x[tuple(src)] if inside else pad
    return out


def conv_nhwc_hwcf(image: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    n, h, w, _ = image.shape
    r, _, _, f = kernel.shape
    out = np.zeros((n, h - r + 1, w - r + 1, f))
    for a in range(r):
        for b in range(r):
            out += np.einsum(
                "nhwc,cf->nhwf", image[:, a : a + h - r + 1, b : b + w - r + 1, :], kernel[a, b]
            )
    return out


# ---------------------------------------------------------------- fusion

ANY = "!transform.any_op"


def fuse_schedule(consumer: str, producer: str, tiles: str, loops: int) -> str:
    """A schedule tiling `consumer` into `loops` loops and fusing `producer` into the innermost."""
    results = ", ".join([ANY] * loops)
    return f"""
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: {ANY} {{transform.readonly}}) {{
    %c = transform.structured.match ops{{["{consumer}"]}} in %root : ({ANY}) -> {ANY}
    %p = transform.structured.match ops{{["{producer}"]}} in %root : ({ANY}) -> {ANY}
    %t, %l:{loops} = transform.structured.tile_using_for %c tile_sizes {tiles} : ({ANY}) -> ({ANY}, {results})
    %f, %nl = transform.structured.fuse_into_containing_op %p into %l#{loops - 1} : ({ANY}, {ANY}) -> ({ANY}, {ANY})
    transform.yield
  }}
}}"""
