"""Simplify `affine.min` / `affine.max` from value bounds (interval arithmetic).

The payload side of `transform.affine.simplify_bounded_affine_ops` (and of the
min/max folding after loop peeling): given `lo <= v <= hi` for some index
values, a min whose one result is provably `<=` every other result is that
result (an `affine.apply`, or an `arith.constant` if its range is one point);
likewise for max with `>=`.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import AffineMapAttr, IndexType, IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)
from xdsl.rewriter import Rewriter

from xlinalg.transforms.affine_utils import constant_index_value

Interval = tuple[int, int]


def expr_range(
    expr: AffineExpr, dims: list[Interval | None], syms: list[Interval | None]
) -> Interval | None:
    """The range of `expr` given ranges of its dims and symbols (None: unknown)."""
    if isinstance(expr, AffineConstantExpr):
        return expr.value, expr.value
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymExpr):
        return syms[expr.position]
    assert isinstance(expr, AffineBinaryOpExpr)
    lhs = expr_range(expr.lhs, dims, syms)
    rhs = expr_range(expr.rhs, dims, syms)
    if lhs is None or rhs is None:
        return None
    (a, b), (c, d) = lhs, rhs
    match expr.kind:
        case AffineBinaryOpKind.Add:
            return a + c, b + d
        case AffineBinaryOpKind.Mul:
            corners = (a * c, a * d, b * c, b * d)
            return min(corners), max(corners)
        case AffineBinaryOpKind.FloorDiv | AffineBinaryOpKind.CeilDiv:
            if c != d or c <= 0:
                return None
            if expr.kind == AffineBinaryOpKind.FloorDiv:
                return a // c, b // c
            return -(-a // c), -(-b // c)
        case AffineBinaryOpKind.Mod:
            if c != d or c <= 0:
                return None
            if a // c == b // c:
                return a % c, b % c
            return 0, c - 1
    return None


def _operand_ranges(op: Operation, bounds: Mapping[SSAValue, Interval]) -> list[Interval | None]:
    ranges: list[Interval | None] = []
    for value in op.operands:
        constant = constant_index_value(value)
        if constant is not None:
            ranges.append((constant, constant))
        else:
            ranges.append(bounds.get(value))
    return ranges


def simplify_min_max(op: Operation, bounds: Mapping[SSAValue, Interval]) -> bool:
    """Replace the `affine.min`/`affine.max` `op` by its provably selected result.
    Returns whether it changed anything."""
    is_min = op.name == "affine.min"
    if not is_min and op.name != "affine.max":
        return False
    amap_attr = op.properties.get("map")
    if not isinstance(amap_attr, AffineMapAttr):
        return False
    amap = amap_attr.data
    operand_ranges = _operand_ranges(op, bounds)
    dims, syms = operand_ranges[: amap.num_dims], operand_ranges[amap.num_dims :]
    ranges = [expr_range(e, dims, syms) for e in amap.results]
    chosen: int | None = None
    for i, candidate in enumerate(ranges):
        if candidate is None:
            continue
        others = [r for j, r in enumerate(ranges) if j != i]
        if is_min and all(r is not None and candidate[1] <= r[0] for r in others):
            chosen = i
            break
        if not is_min and all(r is not None and candidate[0] >= r[1] for r in others):
            chosen = i
            break
    if chosen is None:
        return False
    picked = ranges[chosen]
    assert picked is not None
    replacement: Operation
    if picked[0] == picked[1]:
        replacement = arith.ConstantOp(IntegerAttr(picked[0], IndexType()))
    else:
        single = AffineMap(amap.num_dims, amap.num_symbols, (amap.results[chosen],))
        replacement = affine.ApplyOp(list(op.operands), AffineMapAttr(single))
    Rewriter.replace_op(op, replacement)
    return True


def simplify_min_max_in(root: Operation, value: SSAValue, lo: int | None, hi: int | None) -> int:
    """Simplify every min/max nested in `root` that uses `value`, knowing
    `lo <= value <= hi`. Returns how many were rewritten."""
    if lo is None or hi is None:
        return 0
    todo = [
        op for op in root.walk() if op.name in ("affine.min", "affine.max") and value in op.operands
    ]
    return sum(simplify_min_max(op, {value: (lo, hi)}) for op in todo)


__all__ = ["Interval", "expr_range", "simplify_min_max", "simplify_min_max_in"]
