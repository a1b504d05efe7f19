"""attention, fft, pack, unpack and the winograd transforms in the other element types
they allow, untiled and tiled with non-dividing sizes, compiled and checked against an
independent NumPy formula evaluated in float64, within `xlinalg.reference.compare`'s
tolerance for the element type and the reduction length (exact for pack/unpack).

Seed 004 declares every operand "of any type"; IREE's verifiers restrict fft to floats
(complex arithmetic on real/imag pairs) and attention/winograd to floats (exp, division,
fractional matrices), so: attention f16/bf16/f64 (f32: `test_linalg_ext_attention.py`),
fft f64 (f32: `test_linalg_ext_exec.py`), winograd f16/f64, pack/unpack every float and
integer type. Each kernel holds exactly the (op, element type) of its `MORE_DTYPE_CASES`
entry (what the coverage table's run/tiled columns read)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import xlinalg
from xlinalg.coverage.linalg_ext_cases import MORE_DTYPE_CASES, exercised
from xlinalg.reference.compare import compare

from support.linalg_ext import bit_reverse, conv_nhwc_hwcf, fft_src, pack_formula, tile_schedule

RNG = np.random.default_rng(23)
NP = {
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
}


def _mem(shape: tuple[int, ...], t: str) -> str:
    return "memref<" + "x".join(map(str, shape)) + f"x{t}>"


def _check(actual: np.ndarray, expected: np.ndarray, t: str, reduction: int) -> None:
    result = compare(actual.astype(np.float64), expected, dtype=NP[t], reduction_length=reduction)
    assert result, str(result)


def _compile_both(src: str, op: str, t: str, tiles: list[int], entry: str = "f"):
    """The untiled and the tiled kernel of `src` (whose ext op is exactly (op, t))."""
    assert exercised(xlinalg.parse(src)) == {(op, t)}
    return [
        xlinalg.compile(src, entry=entry),
        xlinalg.compile(src, schedule=tile_schedule(f"iree_linalg_ext.{op}", tiles), entry=entry),
    ]


# ---------------------------------------------------------------- attention
def _attention(t: str) -> None:
    b, n, l_, d, e = 2, 13, 19, 5, 6
    q, k, v = (RNG.standard_normal(s).astype(NP[t]) for s in [(b, n, d), (b, l_, d), (b, l_, e)])
    src = f"""
func.func @f(%q: {_mem((b, n, d), t)}, %k: {_mem((b, l_, d), t)}, %v: {_mem((b, l_, e), t)}, %o: {_mem((b, n, e), t)}) {{
  %s = arith.constant 0.5 : {t}
  iree_linalg_ext.attention ins(%q, %k, %v, %s : {_mem((b, n, d), t)}, {_mem((b, l_, d), t)}, {_mem((b, l_, e), t)}, {t})
      outs(%o : {_mem((b, n, e), t)})
  return
}}"""
    s = q.astype(np.float64) @ np.swapaxes(k, 1, 2).astype(np.float64) * 0.5
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    expected = p / p.sum(axis=-1, keepdims=True) @ v.astype(np.float64)
    for kernel in _compile_both(src, "attention", t, [1, 4, 7]):
        o = np.full((b, n, e), np.nan, NP[t])
        kernel(q, k, v, o)
        _check(o, expected, t, l_ * d)


# ---------------------------------------------------------------- fft
def _fft(t: str) -> None:
    n = 16
    x = RNG.standard_normal((3, n)) + 1j * RNG.standard_normal((3, n))
    xr = bit_reverse(x)
    src = fft_src(n, coefficients=False).replace("xf32>", f"x{t}>")
    for kernel in _compile_both(src, "fft", t, [2]):
        re, im = (np.ascontiguousarray(part, NP[t]) for part in (xr.real, xr.imag))
        kernel(re, im)
        expected = np.fft.fft(x)
        _check(re, expected.real, t, n)
        _check(im, expected.imag, t, n)


# ---------------------------------------------------------------- pack / unpack
def _values(shape: tuple[int, ...], t: str) -> np.ndarray:
    if t.startswith("i"):
        info = np.iinfo(NP[t])
        return RNG.integers(info.min, info.max, size=shape, endpoint=True).astype(NP[t])
    return RNG.standard_normal(shape).astype(NP[t])


def _pack(t: str) -> None:
    # transposed inner tiles in every type (bf16 too: `Bf16StoragePass` keeps LLVM 22 off
    # the bf16 masked loads it aborts on)
    dims_pos, tiles, packed_shape = [1, 0], [2, 8], (8, 2, 2, 8)
    pad_text = "-7" if t.startswith("i") else "-7.0"
    src = f"""
func.func @f(%a: {_mem((13, 15), t)}, %b: {_mem(packed_shape, t)}) {{
  %pad = arith.constant {pad_text} : {t}
  iree_linalg_ext.pack %a padding_value(%pad : {t}) outer_dims_perm = [1, 0] inner_dims_pos = {dims_pos}
    inner_tiles = {tiles} into %b : ({_mem((13, 15), t)} {_mem(packed_shape, t)})
  return
}}"""
    x = _values((13, 15), t)
    expected = pack_formula(x, dims_pos, tiles, [1, 0], NP[t](-7))
    for kernel in _compile_both(src, "pack", t, [3, 1]):
        out = np.zeros(packed_shape, NP[t])
        kernel(x, out)
        np.testing.assert_array_equal(out, expected)


def unpack_formula(
    packed: np.ndarray,
    dims_pos: list[int],
    tiles: list[int],
    perm: list[int],
    shape: tuple[int, ...],
) -> np.ndarray:
    """Independent formula: an explicit loop over the unpacked index space."""
    perm = perm or list(range(len(shape)))
    out = np.empty(shape, packed.dtype)
    for index in np.ndindex(*shape):
        outer, inner = list(index), []
        for d, t in zip(dims_pos, tiles):
            outer[d] = index[d] // t
            inner.append(index[d] % t)
        out[index] = packed[tuple([outer[p] for p in perm] + inner)]
    return out


def _unpack(t: str) -> None:
    for outer, dims_pos, tiles, packed_shape in (
        ([], [0, 1], [8, 5], (4, 3, 8, 5)),
        ([1, 0], [1, 0], [5, 8], (3, 4, 5, 8)),
    ):
        outer_text = f"outer_dims_perm = {outer} " if outer else ""
        src = f"""
func.func @f(%b: {_mem(packed_shape, t)}, %a: {_mem((29, 13), t)}) {{
  iree_linalg_ext.unpack %b {outer_text}inner_dims_pos = {dims_pos} inner_tiles = {tiles} into %a
    : ({_mem(packed_shape, t)} {_mem((29, 13), t)})
  return
}}"""
        packed = _values(packed_shape, t)
        expected = unpack_formula(packed, dims_pos, tiles, outer, (29, 13))
        for kernel in _compile_both(src, "unpack", t, [6, 4]):
            out = np.zeros((29, 13), NP[t])
            kernel(packed, out)
            np.testing.assert_array_equal(out, expected)


# ---------------------------------------------------------------- winograd
def _winograd(op: str, t: str) -> None:
    """The three transforms chained into a convolution (NHWC, m = 4: the f16-friendly tile
    IREE uses for half precision); `op` is the transform compiled in type t (tiled and not),
    the other two run in f64 so the check measures that one transform's rounding."""
    m, r = 4, 3
    tt = m + r - 1
    n, h, w, c, f = 1, 11, 9, 3, 4
    th, tw = -(-(h - r + 1) // m), -(-(w - r + 1) // m)
    image = RNG.standard_normal((n, h, w, c))
    kernel = RNG.standard_normal((r, r, c, f))
    types = {
        name: (t if name == op else "f64")
        for name in (
            "winograd.filter_transform",
            "winograd.input_transform",
            "winograd.output_transform",
        )
    }
    tf, ti, to = types.values()
    src_f = f"""
func.func @f(%g: {_mem((r, r, c, f), tf)}, %u: {_mem((tt, tt, c, f), tf)}) {{
  iree_linalg_ext.winograd.filter_transform output_tile_size({m}) kernel_size({r}) kernel_dimensions([0, 1])
    ins(%g : {_mem((r, r, c, f), tf)}) outs(%u : {_mem((tt, tt, c, f), tf)})
  return
}}"""
    src_i = f"""
func.func @f(%d: {_mem((n, h, w, c), ti)}, %v: {_mem((tt, tt, n, th, tw, c), ti)}) {{
  iree_linalg_ext.winograd.input_transform output_tile_size({m}) kernel_size({r}) image_dimensions([1, 2])
    ins(%d : {_mem((n, h, w, c), ti)}) outs(%v : {_mem((tt, tt, n, th, tw, c), ti)})
  return
}}"""
    src_o = f"""
func.func @f(%x: {_mem((tt, tt, n, th, tw, f), to)}, %y: {_mem((n, th * m, tw * m, f), to)}) {{
  iree_linalg_ext.winograd.output_transform output_tile_size({m}) kernel_size({r}) image_dimensions([1, 2])
    ins(%x : {_mem((tt, tt, n, th, tw, f), to)}) outs(%y : {_mem((n, th * m, tw * m, f), to)})
  return
}}"""
    srcs = {
        "winograd.filter_transform": src_f,
        "winograd.input_transform": src_i,
        "winograd.output_transform": src_o,
    }
    tiles = {
        "winograd.filter_transform": [1, 2],
        "winograd.input_transform": [1, 0, 0, 2],
        "winograd.output_transform": [1, 0, 0, 2],
    }
    expected = conv_nhwc_hwcf(image, kernel)
    others = {name: xlinalg.compile(src, entry="f") for name, src in srcs.items() if name != op}
    for compiled in _compile_both(srcs[op], op, t, tiles[op]):

        def run(name: str, *args: np.ndarray, compiled=compiled) -> np.ndarray:
            arrays = [a.astype(NP[types[name]]) for a in args]
            (compiled if name == op else others[name])(*arrays)
            return arrays[-1].astype(np.float64)

        u = run("winograd.filter_transform", kernel, np.zeros((tt, tt, c, f)))
        v = run("winograd.input_transform", image, np.zeros((tt, tt, n, th, tw, c)))
        y = run(
            "winograd.output_transform",
            np.einsum("ijcf,ijnxyc->ijnxyf", u, v),
            np.zeros((n, th * m, tw * m, f)),
        )
        # reduction length: the r*r*c products of a convolution output, each transform
        # sums over a tile of tt*tt (input/output) or r*r (filter) values
        _check(y[:, : h - r + 1, : w - r + 1, :], expected, t, r * r * c * tt * tt)


@pytest.mark.parametrize(("op", "t"), MORE_DTYPE_CASES)
def test_dtype(op: str, t: str) -> None:
    if op == "attention":
        _attention(t)
    elif op == "fft":
        _fft(t)
    elif op == "pack":
        _pack(t)
    elif op == "unpack":
        _unpack(t)
    else:
        _winograd(op, t)
