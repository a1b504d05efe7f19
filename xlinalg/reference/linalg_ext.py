"""NumPy semantics of the `iree_linalg_ext` ops (the oracle for tests and trial checks).

`evaluate_linalg_ext(op, operands)` runs one op: memref outputs are written in
place, tensor outputs are copied; it returns the values of the op's tensor
results. Regions (comparators, combiners) run through `evaluate_scalar_op`,
vectorised over all positions that are independent (scan rows, scatter
slices, topk rows). Semantics follow each op's docstring in
`xlinalg.dialects.iree_linalg_ext`; the implementations here are written
directly in NumPy terms (sorting with Python's stable `sorted`, attention
as `softmax(Q K^T s) V`, winograd as matrix products), independent of the loop
lowerings they check.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, SSAValue

from xlinalg.dialects.iree_linalg_ext import (
    AttentionOp,
    FftOp,
    PackOp,
    ReverseOp,
    ScanOp,
    ScatterOp,
    SetEncodingOp,
    SortOp,
    TopkOp,
    UnPackOp,
    UnsetEncodingOp,
    WinogradFilterTransformOp,
    WinogradInputTransformOp,
    WinogradOutputTransformOp,
)
from xlinalg.dialects.iree_linalg_ext.base import LinalgExtOp
from xlinalg.dialects.iree_linalg_ext.winograd_matrices import MATRICES
from xlinalg.dialects.linalg.pack_shape import packed_index_of
from xlinalg.errors import XlinalgError
from xlinalg.reference.generic import _prepare_operand, evaluate_scalar_op


def run_region(block: Block, args: Sequence[Any]) -> list[Any]:
    """Evaluate a scalar region (arith/math ops, `iree_linalg_ext.yield`) on NumPy values."""
    values: dict[SSAValue, Any] = dict(zip(block.args, args))
    for inner in block.ops:
        if inner.name == "iree_linalg_ext.yield":
            return [values[v] for v in inner.operands]
        if inner.regions:
            raise XlinalgError(f"the NumPy reference does not support '{inner.name}' in a region")
        try:
            operands = [values[v] for v in inner.operands]
        except KeyError:
            raise XlinalgError(f"'{inner.name}' in a region uses a value from outside it") from None
        values.update(zip(inner.results, evaluate_scalar_op(inner, operands)))
    raise XlinalgError("region without 'iree_linalg_ext.yield'")


# ---- per-op semantics on prepared arrays (outputs mutated in place) ----
def _sort(op: SortOp, outs: list[np.ndarray]) -> None:
    d = op.dim
    block = op.region.block
    moved = [np.moveaxis(o, d, -1) for o in outs]
    n = moved[0].shape[-1]
    for index in np.ndindex(*moved[0].shape[:-1]):
        rows = [m[index].copy() for m in moved]

        def before(i: int, j: int, rows: list[np.ndarray] = rows) -> int:
            args = [x for r in rows for x in (r[i], r[j])]
            if bool(run_region(block, args)[0]):
                return -1
            swapped = [x for r in rows for x in (r[j], r[i])]
            return 1 if bool(run_region(block, swapped)[0]) else 0

        order = sorted(range(n), key=functools.cmp_to_key(before))  # stable
        for m, r in zip(moved, rows):
            m[index] = r[order]


def _scan(op: ScanOp, inp: np.ndarray, out: np.ndarray, acc: np.ndarray) -> None:
    d = op.dim
    block = op.region.block
    x = np.moveaxis(inp, d, 0)
    y = np.moveaxis(out, d, 0)
    if x.shape[0] == 0:
        return
    y[0] = x[0] if op.is_inclusive else acc
    for i in range(1, x.shape[0]):
        y[i] = run_region(block, [y[i - 1], x[i] if op.is_inclusive else x[i - 1]])[0]
    acc[...] = y[-1]


def _topk(op: TopkOp, ins: list[np.ndarray], values: np.ndarray, indices: np.ndarray) -> None:
    d = op.dim
    block = op.region.block
    x = np.moveaxis(ins[0], d, -1)
    ids = np.moveaxis(ins[1], d, -1) if len(ins) == 2 else None
    vals, idx = np.moveaxis(values, d, -1), np.moveaxis(indices, d, -1)
    for j in range(x.shape[-1]):
        cur_v = x[..., j].copy()
        cur_i = ids[..., j].copy() if ids is not None else np.full(cur_v.shape, j, dtype=np.int32)
        for k in range(vals.shape[-1]):
            out_v, out_i = vals[..., k].copy(), idx[..., k].copy()
            better = np.asarray(run_region(block, [cur_v, out_v])[0], dtype=bool)
            worse = np.asarray(run_region(block, [out_v, cur_v])[0], dtype=bool)
            take = better | ((better == worse) & (cur_i < out_i))
            vals[..., k] = np.where(take, cur_v, out_v)
            idx[..., k] = np.where(take, cur_i, out_i)
            cur_v, cur_i = np.where(take, out_v, cur_v), np.where(take, out_i, cur_i)


def _scatter(op: ScatterOp, updates: np.ndarray, indices: np.ndarray, original: np.ndarray) -> None:
    block = op.region.block
    rank = original.ndim
    offset = op.slice_offset()
    slice_shape = updates.shape[1:]
    for i in range(updates.shape[0]):
        starts = [0] * rank
        for k, d in enumerate(op.dim_map()):
            starts[d] += int(indices[i, k])
        window: list[Any] = []
        for dim in range(rank):
            if dim < offset:
                window.append(starts[dim])
            else:
                size = slice_shape[dim - offset]
                if starts[dim] < 0 and starts[dim] + size <= original.shape[dim]:
                    raise XlinalgError(f"scatter: update {i} is out of bounds of the original")
                window.append(slice(starts[dim], starts[dim] + size))
        if any(isinstance(w, int) and not 0 <= w < original.shape[k] for k, w in enumerate(window)):
            raise XlinalgError(f"scatter: index of update {i} is out of bounds of the original")
        original[tuple(window)] = run_region(block, [updates[i], original[tuple(window)]])[0]


def _fft(op: FftOp, stage: int, coefs: list[np.ndarray], re: np.ndarray, im: np.ndarray) -> None:
    m = 1 << int(stage)
    half = m // 2
    k = np.arange(half)
    if coefs:
        w = coefs[0][:half].astype(np.float64) + 1j * coefs[1][:half].astype(np.float64)
    else:
        w = np.exp(-2j * np.pi * k / m)
    x = re.astype(np.float64) + 1j * im.astype(np.float64)
    n = x.shape[-1]
    groups = x.reshape(*x.shape[:-1], n // m, m)
    u, v = groups[..., :half].copy(), groups[..., half:] * w
    groups[..., :half], groups[..., half:] = u + v, u - v
    y = groups.reshape(x.shape)
    re[...] = y.real.astype(re.dtype)
    im[...] = y.imag.astype(im.dtype)


def _attention(
    op: AttentionOp, q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: Any, outs: list[np.ndarray]
) -> None:
    f64 = np.float64
    vv = np.swapaxes(v, 1, 2) if op.is_transpose_v else v
    s = np.einsum("bnd,bld->bnl", q.astype(f64), k.astype(f64)) * f64(scale)
    if not op.is_online:
        s = s - s.max(axis=-1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(axis=-1, keepdims=True)
        outs[0][...] = np.einsum("bnl,ble->bne", p, vv.astype(f64))
        return
    acc, m_old, l_old = (o.astype(f64) for o in outs)
    m_new = np.maximum(m_old, s.max(axis=-1)) if s.shape[-1] else m_old
    corr = np.exp(m_old - m_new)
    p = np.exp(s - m_new[..., None])
    outs[0][...] = acc * corr[..., None] + np.einsum("bnl,ble->bne", p, vv.astype(f64))
    outs[1][...] = m_new
    outs[2][...] = l_old * corr + p.sum(axis=-1)


def _pack(op: PackOp, src: np.ndarray, tiles: list[int], pad: Any, dst: np.ndarray) -> None:
    rank = src.ndim
    dims_pos = op.dims_pos()
    where = packed_index_of(op.perm(), rank)
    tile_of = dict(zip(dims_pos, tiles))
    outer = [dst.shape[where[i]] for i in range(rank)]
    padded_shape = [outer[i] * tile_of.get(i, 1) for i in range(rank)]
    padded = np.full(padded_shape, pad if pad is not None else 0, dtype=src.dtype)
    if any(p < s for p, s in zip(padded_shape, src.shape)):
        raise XlinalgError("pack: the destination is too small for the source")
    padded[tuple(slice(0, s) for s in src.shape)] = src
    # split every tiled dim i into (outer_i, tile_i), then order as [outer perm..., tiles...]
    split: list[int] = []
    axis_outer: dict[int, int] = {}
    axis_tile: dict[int, int] = {}
    for i in range(rank):
        axis_outer[i] = len(split)
        split.append(outer[i])
        if i in tile_of:
            axis_tile[i] = len(split)
            split.append(tile_of[i])
    blocked = padded.reshape(split)
    perm = list(op.perm()) or list(range(rank))
    dst[...] = blocked.transpose([axis_outer[p] for p in perm] + [axis_tile[d] for d in dims_pos])


def _unpack(op: UnPackOp, src: np.ndarray, tiles: list[int], dst: np.ndarray) -> None:
    rank = dst.ndim
    dims_pos = op.dims_pos()
    perm = list(op.perm()) or list(range(rank))
    # undo the permutation: axes [outer_0..outer_{n-1}] in source-dim order, then the tiles
    inverse = [0] * rank
    for position, dim in enumerate(perm):
        inverse[dim] = position
    tile_axis = {d: rank + j for j, d in enumerate(dims_pos)}
    order: list[int] = []
    for i in range(rank):
        order.append(inverse[i])
        if i in tile_axis:
            order.append(tile_axis[i])
    blocked = src.transpose(order)
    full_shape = [
        src.shape[inverse[i]] * (tiles[dims_pos.index(i)] if i in tile_axis else 1)
        for i in range(rank)
    ]
    full = blocked.reshape(full_shape)
    dst[...] = full[tuple(slice(0, s) for s in dst.shape)]


def _winograd(op: Operation, src: np.ndarray, dst: np.ndarray) -> None:
    if isinstance(op, WinogradFilterTransformOp):
        g, _, _ = MATRICES[(op.m, op.r)]
        f = src if op.hwcf() else src.transpose(2, 3, 1, 0)  # -> (r, r, C, F)
        dst[...] = np.einsum("ia,abcf,jb->ijcf", g, f.astype(np.float64), g)
        return
    assert isinstance(op, (WinogradInputTransformOp, WinogradOutputTransformOp))
    m, tile = op.m, op.tile
    _, bt, at = MATRICES[(op.m, op.r)]
    if isinstance(op, WinogradInputTransformOp):
        image = src if op.nhwc() else src.transpose(0, 2, 3, 1)  # NHWC
        th, tw = dst.shape[3], dst.shape[4]
        padded = np.zeros(
            (image.shape[0], (th - 1) * m + tile, (tw - 1) * m + tile, image.shape[3])
        )
        h, w = min(image.shape[1], padded.shape[1]), min(image.shape[2], padded.shape[2])
        padded[:, :h, :w, :] = image[:, :h, :w, :]
        rows = (np.arange(th) * m)[:, None] + np.arange(tile)[None, :]  # (H', T)
        cols = (np.arange(tw) * m)[:, None] + np.arange(tile)[None, :]  # (W', T)
        windows = padded[:, rows[:, None, :, None], cols[None, :, None, :], :]
        # windows: (N, H', W', T, T, C)
        dst[...] = np.einsum("ia,nxyabc,jb->ijnxyc", bt, windows, bt)
        return
    y = np.einsum("ia,abnxyc,jb->nxyijc", at, src.astype(np.float64), at)  # (N,H',W',m,m,C)
    nb, th, tw, _, _, c = y.shape
    image = y.transpose(0, 1, 3, 2, 4, 5).reshape(nb, th * m, tw * m, c)
    dst[...] = image if op.nhwc() else image.transpose(0, 3, 1, 2)


def evaluate_linalg_ext(op: Operation, operands: Sequence[Any]) -> list[np.ndarray]:
    """Run one `iree_linalg_ext` op on NumPy values; the values of its tensor results."""
    name = op.name
    if isinstance(op, (SetEncodingOp, UnsetEncodingOp)):
        return [np.array(operands[0], copy=True)]  # a layout annotation: the values are unchanged
    if not isinstance(op, LinalgExtOp):
        raise XlinalgError(
            f"the NumPy reference does not support '{name}' (its value is target-dependent)"
        )
    n_in = len(op.inputs)
    outputs_v = list(op.outputs)
    outs = [
        _prepare_operand(v, x, True, f"'{name}' output #{i}")
        for i, (v, x) in enumerate(zip(outputs_v, operands[n_in : n_in + len(outputs_v)]))
    ]
    ins = list(operands[:n_in])
    if isinstance(op, SortOp):
        _sort(op, outs)
    elif isinstance(op, ScanOp):
        _scan(op, np.asarray(ins[0]), *outs)
    elif isinstance(op, TopkOp):
        _topk(op, [np.asarray(x) for x in ins], *outs)
    elif isinstance(op, ScatterOp):
        _scatter(op, np.asarray(ins[0]), np.asarray(ins[1]), outs[0])
    elif isinstance(op, ReverseOp):
        outs[0][...] = np.flip(np.asarray(ins[0]), axis=tuple(op.dims()))
    elif isinstance(op, FftOp):
        _fft(op, int(ins[0]), [np.asarray(c) for c in ins[1:]], *outs)
    elif isinstance(op, AttentionOp):
        q, k, v, scale = ins
        _attention(op, np.asarray(q), np.asarray(k), np.asarray(v), scale, outs)
    elif isinstance(op, (PackOp, UnPackOp)):
        extra = list(operands[n_in + len(outputs_v) :])
        dynamic = iter(int(t) for t in extra[: len(op.inner_tiles)])
        tiles = [next(dynamic) if t < 0 else t for t in op.static_tiles()]
        if isinstance(op, PackOp):
            pad = extra[len(op.inner_tiles)] if op.padding_value is not None else None
            _pack(op, np.asarray(ins[0]), tiles, pad, outs[0])
        else:
            _unpack(op, np.asarray(ins[0]), tiles, outs[0])
    elif isinstance(
        op, (WinogradFilterTransformOp, WinogradInputTransformOp, WinogradOutputTransformOp)
    ):
        _winograd(op, np.asarray(ins[0]), outs[0])
    else:
        raise XlinalgError(f"the NumPy reference does not support '{name}'")
    return [o for o, v in zip(outs, outputs_v) if isinstance(v.type, TensorType)]
