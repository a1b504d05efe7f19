"""Arithmetic-operation counts of ops, for `Kernel.flops()` (GFLOP/s): a structured op counts
the arith/math ops of its generalized body per point of its iteration space
(`arith_ops_per_point`: 2 for a matmul); the ops that are not structured (`iree_linalg_ext`,
and linalg's hand-written softmax / pack / unpack / winograd ops) have a formula each.

The count is a formula per op (static shapes):

- attention (Q: B×M×K1, K: B×N×K1, V: B×N×K2): `2·B·M·N·K1 + 2·B·M·N·K2` — the
  two matmuls, as IREE counts attention (4·B·M·N·K when K1 = K2); the softmax's
  exp/max/sum are not counted;
- fft (one stage, innermost extent n): `5·n` per row — n/2 butterflies of one
  complex multiply (6) and two complex adds (4);
- scan: the combiner's ops per input element;
- scatter: the combiner's ops per update element;
- sort: the comparator's ops × n·⌈log2 n⌉ per sorted row (the comparisons of an
  optimal comparison sort, not of our loop lowering, which does more);
- topk (input extent n, K outputs): the comparator's ops × n·⌈log2 K⌉ per row (a
  heap's comparisons), at least n;
- winograd filter (α = m + r - 1): `2·(α·r·r + α·α·r)` per (c, f) — `G g Gᵀ`;
  input: `4·α³` per (tile, channel) — `Bᵀ d B`; output: `2·(m·α·α + m·m·α)` per
  (tile, channel) — `Aᵀ y A` (dense products, zero coefficients included);
- reverse, pack, unpack, set/unset_encoding, upper_bound_tile_size: 0 (data movement);
- linalg.softmax: 5 per element (max, subtract, exp, sum, divide: its decomposition's
  generic bodies); linalg.winograd_* (α = m + r - 1; a side of extent 1 untransformed):
  the same dense products as above per (c, f) / (tile, channel); linalg.pack/unpack: 0.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import ModuleOp, ShapedType
from xdsl.ir import Block, Operation, Region, SSAValue

from xlinalg.dialects import iree_linalg_ext as ext
from xlinalg.dialects.linalg import GenericOp
from xlinalg.dialects.linalg.softmax import SoftmaxOp
from xlinalg.dialects.linalg.winograd import (
    WinogradFilterTransformOp,
    WinogradInputTransformOp,
    WinogradOutputTransformOp,
)
from xlinalg.errors import XlinalgError
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.transforms.linalg.generalize import generalize

#: ops that move or convert data, not counted as arithmetic (shared with `api.flops`)
FREE_OPS = frozenset(
    {
        "arith.constant",
        "arith.index_cast",
        "arith.extf",
        "arith.truncf",
        "arith.sitofp",
        "arith.uitofp",
        "arith.fptosi",
        "arith.fptoui",
        "arith.extsi",
        "arith.extui",
        "arith.trunci",
        "arith.bitcast",
        "arith.select",
    }
)


def region_arith_ops(region: Region) -> int:
    """arith/math ops (not constants or casts) in a region."""
    return sum(
        1
        for op in region.walk()
        if op.name.startswith(("arith.", "math.")) and op.name not in FREE_OPS
    )


def _shape(op: Operation, value: SSAValue) -> tuple[int, ...]:
    type_ = value.type
    assert isinstance(type_, ShapedType)
    shape = tuple(type_.get_shape())
    if any(s < 0 for s in shape):
        raise XlinalgError(
            f"cannot count the flops of '{op.name}' with dynamic shape {list(shape)}"
        )
    return shape


def _rows(shape: tuple[int, ...], dim: int) -> int:
    return math.prod(s for d, s in enumerate(shape) if d != dim)


def ext_flops(op: Operation) -> int:
    """The arithmetic operations of one `iree_linalg_ext` op (see the module docstring)."""
    if isinstance(op, ext.AttentionOp):
        b, m, k1 = _shape(op, op.inputs[0])
        n = _shape(op, op.inputs[1])[1]
        k2 = _shape(op, op.outputs[0])[2]
        return 2 * b * m * n * (k1 + k2)
    if isinstance(op, ext.FftOp):
        shape = _shape(op, op.outputs[0])
        return 5 * math.prod(shape)
    if isinstance(op, ext.ScanOp):
        return region_arith_ops(op.region) * math.prod(_shape(op, op.inputs[0]))
    if isinstance(op, ext.ScatterOp):
        return region_arith_ops(op.region) * math.prod(_shape(op, op.inputs[0]))
    if isinstance(op, ext.SortOp):
        shape = _shape(op, op.outputs[0])
        n = shape[op.dim]
        return (
            region_arith_ops(op.region)
            * _rows(shape, op.dim)
            * n
            * max(1, math.ceil(math.log2(max(n, 1))))
        )
    if isinstance(op, ext.TopkOp):
        shape = _shape(op, op.inputs[0])
        n, k = shape[op.dim], _shape(op, op.outputs[0])[op.dim]
        return (
            region_arith_ops(op.region)
            * _rows(shape, op.dim)
            * n
            * max(1, math.ceil(math.log2(max(k, 1))))
        )
    if isinstance(op, ext.WinogradFilterTransformOp):
        alpha, r = op.tile, op.r
        out = _shape(op, op.outputs[0])
        return 2 * (alpha * r * r + alpha * alpha * r) * out[2] * out[3]
    if isinstance(op, ext.WinogradInputTransformOp):
        alpha = op.tile
        return 4 * alpha**3 * math.prod(_shape(op, op.outputs[0])[2:])
    if isinstance(op, ext.WinogradOutputTransformOp):
        alpha, m = op.tile, op.m
        return 2 * (m * alpha * alpha + m * m * alpha) * math.prod(_shape(op, op.inputs[0])[2:])
    return 0


def _linalg_flops(op: Operation) -> int:
    if isinstance(op, SoftmaxOp):
        return 5 * math.prod(_shape(op, op.input))
    if not isinstance(
        op, WinogradFilterTransformOp | WinogradInputTransformOp | WinogradOutputTransformOp
    ):
        return 0
    m, _ = op.get_m_r()
    if isinstance(op, WinogradFilterTransformOp):
        _, kh, kw, _ = _shape(op, op.filter)
        ah, aw, c, f = _shape(op, op.output)
        return 2 * (ah * kh * kw + ah * aw * kw) * c * f
    if isinstance(op, WinogradInputTransformOp):
        ah, aw, *points = _shape(op, op.output)
        return 2 * (ah * ah * aw + ah * aw * aw) * math.prod(points)
    ah, aw, *points = _shape(op, op.value)
    mh, mw = (m if ah != 1 else 1), (m if aw != 1 else 1)
    return 2 * (mh * ah * aw + mh * mw * aw) * math.prod(points)


#: the hand-written linalg ops counted by `_linalg_flops`
_LINALG_OPS = (
    "linalg.softmax",
    "linalg.winograd_filter_transform",
    "linalg.winograd_input_transform",
    "linalg.winograd_output_transform",
)


def has_flop_formula(op: Operation) -> bool:
    """Whether `op` is counted by `op_flops` (not a structured op, not a terminator)."""
    return (op.name.startswith("iree_linalg_ext.") and op.name != "iree_linalg_ext.yield") or (
        op.name in _LINALG_OPS
    )


def op_flops(op: Operation) -> int:
    """The arithmetic operations of one op with a formula (see the module docstring)."""
    return ext_flops(op) if op.name.startswith("iree_linalg_ext.") else _linalg_flops(op)


def arith_ops_per_point(op: StructuredOpInterface) -> int:
    """Number of arith/math ops (not constants or casts) in the generalized body of `op`."""
    if isinstance(op, GenericOp):
        return region_arith_ops(op.body)
    assert isinstance(op, Operation)
    clone = op.clone()
    holder = ModuleOp(Region(Block([clone])))  # generalize replaces the op in its block
    generic = generalize(clone)
    del holder
    return region_arith_ops(generic.body)
