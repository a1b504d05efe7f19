"""NumPy reference of the hand-written linalg ops (map, reduce, softmax, pack, unpack, winograd).

`MISC_EVALUATORS[op_name](op, operands, env)` follows the convention of the
structured-op evaluators: memref outputs are written in place, and the
returned list holds one fresh array per tensor result.

- `map` / `reduce`: their region is arbitrary, so they run through the
  `linalg.generic` evaluator on the equivalent generic (`to_generic`);
- `softmax`: `exp(x - max) / sum(exp(x - max))` along the dimension, computed
  in float64 for f16/bf16/f32 and rounded once;
- `pack`: pad (with the padding value) → reshape into tiles → transpose;
  `unpack`: the inverse transpose → reshape → slice away the padding;
- winograd: `L @ X @ R` with the F(m, r) matrices of `winograd_matrices`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import MemRefType, ShapedType, TensorType
from xdsl.ir import Operation, SSAValue

from xlinalg.dialects.linalg.map_reduce import MapOp, ReduceOp
from xlinalg.dialects.linalg.pack import PackOp, UnPackOp
from xlinalg.dialects.linalg.softmax import SoftmaxOp
from xlinalg.dialects.linalg.winograd import (
    WinogradFilterTransformOp,
    WinogradInputTransformOp,
    _WinogradOp,
)
from xlinalg.dialects.linalg.winograd_matrices import winograd_matrices
from xlinalg.errors import XlinalgError
from xlinalg.ir.shaped_types import element_type
from xlinalg.reference.generic import evaluate_generic, numpy_dtype

Evaluator = Callable[[Operation, Sequence[Any], Mapping[SSAValue, Any]], list[np.ndarray]]
MISC_EVALUATORS: dict[str, Evaluator] = {}


def _register(name: str) -> Callable[[Evaluator], Evaluator]:
    def wrap(fn: Evaluator) -> Evaluator:
        MISC_EVALUATORS[name] = fn
        return fn

    return wrap


def _store(op: Operation, output: SSAValue, target: Any, value: np.ndarray) -> list[np.ndarray]:
    """Write `value` into a memref output in place, or return it as the tensor result."""
    assert isinstance(output.type, ShapedType)
    value = np.asarray(value).astype(numpy_dtype(element_type(output.type)), copy=False)
    if isinstance(output.type, MemRefType):
        if not isinstance(target, np.ndarray) or target.shape != value.shape:
            raise XlinalgError(
                f"'{op.name}': output buffer of shape {np.shape(target)}, expected {value.shape}"
            )
        target[...] = value
        return []
    assert isinstance(output.type, TensorType)
    return [value.copy()]


@_register("linalg.map")
@_register("linalg.reduce")
def _region_op(
    op: Operation, operands: Sequence[Any], env: Mapping[SSAValue, Any]
) -> list[np.ndarray]:
    assert isinstance(op, (MapOp, ReduceOp))
    generic = op.to_generic()
    try:
        outs = evaluate_generic(generic, list(operands), env)
    finally:
        generic.erase()
    outputs = list(op.get_outputs())
    return [np.asarray(o) for o, v in zip(outs, outputs) if isinstance(v.type, TensorType)]


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """Numerically careful softmax (max subtracted first; float64 for narrow floats)."""
    wide = x.astype(np.float64) if x.dtype.itemsize < 8 else x
    shifted = np.exp(wide - np.max(wide, axis=axis, keepdims=True))
    return (shifted / np.sum(shifted, axis=axis, keepdims=True)).astype(x.dtype)


@_register("linalg.softmax")
def _softmax(
    op: Operation, operands: Sequence[Any], env: Mapping[SSAValue, Any]
) -> list[np.ndarray]:
    assert isinstance(op, SoftmaxOp)
    x = np.asarray(operands[0])
    return _store(op, op.output, operands[1], softmax(x, op.get_dimension()))


def pack(
    x: np.ndarray,
    inner_dims_pos: Sequence[int],
    tiles: Sequence[int],
    outer_dims_perm: Sequence[int] | None,
    padding: Any,
    packed_shape: Sequence[int],
) -> np.ndarray:
    """pad (high, tiled dims only, up to the packed outer size) → split dims into tiles → transpose.

    `packed_shape` is the dest shape: its outer sizes decide how much padding
    there is (the verifier guarantees it is exactly what the last tile needs).
    """
    n = x.ndim
    perm = list(outer_dims_perm) if outer_dims_perm is not None else list(range(n))
    outer = [0] * n
    for j, d in enumerate(perm):
        outer[d] = int(packed_shape[j])
    tile_of = dict(zip(inner_dims_pos, tiles))
    widths = [(0, outer[d] * tile_of[d] - x.shape[d]) if d in tile_of else (0, 0) for d in range(n)]
    if any(hi < 0 for _, hi in widths):
        raise XlinalgError("linalg.pack: the dest has fewer outer tiles than the source needs")
    if any(hi > 0 for _, hi in widths):
        if padding is None:
            raise XlinalgError(
                "linalg.pack: a tile does not divide its dimension and there is no padding_value"
            )
        x = np.pad(x, widths, constant_values=padding)
    split: list[int] = []
    axis_outer: list[int] = []
    axis_inner: dict[int, int] = {}
    for d in range(n):
        axis_outer.append(len(split))
        if d in tile_of:
            split += [outer[d], tile_of[d]]
            axis_inner[d] = len(split) - 1
        else:
            split.append(x.shape[d])
    tiled = x.reshape(split)
    order = [axis_outer[d] for d in perm] + [axis_inner[d] for d in inner_dims_pos]
    return np.ascontiguousarray(tiled.transpose(order))


def unpack(
    p: np.ndarray,
    inner_dims_pos: Sequence[int],
    outer_dims_perm: Sequence[int] | None,
    unpacked_shape: Sequence[int],
) -> np.ndarray:
    """The inverse of `pack`: transpose back → merge tiles → drop the padding."""
    n = p.ndim - len(inner_dims_pos)
    perm = list(outer_dims_perm) if outer_dims_perm is not None else list(range(n))
    # packed axes: outer j is source dim perm[j]; inner i is source dim inner_dims_pos[i]
    inner_axis = {d: n + i for i, d in enumerate(inner_dims_pos)}
    outer_axis = {d: j for j, d in enumerate(perm)}
    order: list[int] = []
    merged: list[int] = []
    for d in range(n):
        order.append(outer_axis[d])
        if d in inner_axis:
            order.append(inner_axis[d])
            merged.append(p.shape[outer_axis[d]] * p.shape[inner_axis[d]])
        else:
            merged.append(p.shape[outer_axis[d]])
    full = p.transpose(order).reshape(merged)
    return np.ascontiguousarray(full[tuple(slice(0, int(s)) for s in unpacked_shape)])


def _tile_sizes(op: Any, env: Mapping[SSAValue, Any]) -> list[int]:
    return [int(env[t]) if isinstance(t, SSAValue) else t for t in op.mixed_tiles()]


@_register("linalg.pack")
def _pack(op: Operation, operands: Sequence[Any], env: Mapping[SSAValue, Any]) -> list[np.ndarray]:
    assert isinstance(op, PackOp)
    padding = env[op.padding_value] if op.padding_value is not None else None
    dest = operands[1]
    result = pack(
        np.asarray(operands[0]),
        op.get_inner_dims_pos(),
        _tile_sizes(op, env),
        op.get_outer_dims_perm(),
        padding,
        np.shape(dest),
    )
    return _store(op, op.dest, dest, result)


@_register("linalg.unpack")
def _unpack(
    op: Operation, operands: Sequence[Any], env: Mapping[SSAValue, Any]
) -> list[np.ndarray]:
    assert isinstance(op, UnPackOp)
    dest = operands[1]
    result = unpack(
        np.asarray(operands[0]), op.get_inner_dims_pos(), op.get_outer_dims_perm(), np.shape(dest)
    )
    return _store(op, op.dest, dest, result)


def _side(mat: np.ndarray, extent: int) -> np.ndarray:
    """The transform matrix of one side, or the 1x1 identity when that side has extent 1."""
    return mat if extent == mat.shape[1] else np.ones((1, 1))


def winograd_filter(g: np.ndarray, m: int, r: int) -> np.ndarray:
    """(F, KH, KW, C) → (alphaH, alphaW, C, F): `G g G^T`."""
    G = winograd_matrices(m, r).numpy("G")
    left, right = _side(G, g.shape[1]), _side(G, g.shape[2])
    return np.einsum("ai,fijc,bj->abcf", left, g.astype(np.float64), right)


def winograd_input(d: np.ndarray, m: int, r: int) -> np.ndarray:
    """(N, H, W, C) → (alphaH, alphaW, tileH, tileW, N, C): `B^T d B` per window."""
    BT = winograd_matrices(m, r).numpy("BT")
    alpha = m + r - 1
    _, h, w, _ = d.shape
    left, right = _side(BT, alpha if h != 1 else 1), _side(BT, alpha if w != 1 else 1)
    ah, aw = left.shape[1], right.shape[1]
    sh, sw = (m if h != 1 else 1), (m if w != 1 else 1)
    tiles_h, tiles_w = (h - ah) // sh + 1, (w - aw) // sw + 1
    rows = (np.arange(tiles_h) * sh)[:, None] + np.arange(ah)[None, :]  # (tileH, ah)
    cols = (np.arange(tiles_w) * sw)[:, None] + np.arange(aw)[None, :]  # (tileW, aw)
    windows = d.astype(np.float64)[:, rows[:, :, None, None], cols[None, None, :, :], :]
    # windows: (N, tileH, ah, tileW, aw, C)
    return np.einsum("ai,nhiwjc,bj->abhwnc", left, windows, right)


def winograd_output(y: np.ndarray, init: np.ndarray, m: int, r: int) -> np.ndarray:
    """(alphaH, alphaW, tileH, tileW, N, F) → init + `A^T y A` per tile (N, H, W, F)."""
    AT = winograd_matrices(m, r).numpy("AT")
    left, right = _side(AT, y.shape[0]), _side(AT, y.shape[1])
    tiles = np.einsum("ia,abhwnf,jb->nhiwjf", left, y.astype(np.float64), right)
    n, th, mh, tw, mw, f = tiles.shape
    return init.astype(np.float64) + tiles.reshape(n, th * mh, tw * mw, f)


@_register("linalg.winograd_filter_transform")
@_register("linalg.winograd_input_transform")
@_register("linalg.winograd_output_transform")
def _winograd(
    op: Operation, operands: Sequence[Any], env: Mapping[SSAValue, Any]
) -> list[np.ndarray]:
    assert isinstance(op, _WinogradOp)
    m, r = op.get_m_r()
    x, out = np.asarray(operands[0]), operands[1]
    if isinstance(op, WinogradFilterTransformOp):
        value = winograd_filter(x, m, r)
    elif isinstance(op, WinogradInputTransformOp):
        value = winograd_input(x, m, r)
    else:
        value = winograd_output(x, np.asarray(out), m, r)
    return _store(op, op.operands[1], out, value)
