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

from xlinalg.ir.affine_utils import constant_index_value
from xlinalg.ir.walk import walk_ops

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


def simplify_min_max(
    op: Operation, bounds: Mapping[SSAValue, Interval], ranges: list[Interval | None] | None = None
) -> bool:
    """Replace the `affine.min`/`affine.max` `op` by its provably selected result.
    `ranges` (one per result of the map) replaces the ranges derived from `bounds`.
    Returns whether it changed anything."""
    is_min = op.name == "affine.min"
    if not is_min and op.name != "affine.max":
        return False
    amap_attr = op.properties.get("map")
    if not isinstance(amap_attr, AffineMapAttr):
        return False
    amap = amap_attr.data
    if ranges is None:
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
        op
        for op in walk_ops(root)
        if op.name in ("affine.min", "affine.max") and value in op.operands
    ]
    return sum(simplify_min_max(op, {value: (lo, hi)}) for op in todo)


def simplify_min_max_of_difference(
    root: Operation, value: SSAValue, bound: SSAValue, difference: Interval
) -> int:
    """Simplify every min/max nested in `root` that uses `value` and `bound`, knowing
    `lo <= bound - value <= hi` (`difference`) while nothing is known of either
    alone: `bound` is rewritten as `value + r` for a fresh `r` in `difference`, so
    that a result such as `bound - value` (a partial tile's size) has a range.
    Returns how many were rewritten."""
    todo = [
        op
        for op in walk_ops(root)
        if op.name in ("affine.min", "affine.max") and value in op.operands and bound in op.operands
    ]
    changed = 0
    for op in todo:
        amap_attr = op.properties.get("map")
        if not isinstance(amap_attr, AffineMapAttr):
            continue
        amap = amap_attr.data
        count = amap.num_dims + amap.num_symbols
        rest = AffineExpr.dimension(count)
        at_value = AffineExpr.dimension(list(op.operands).index(value))
        positions = [
            at_value + rest if v is bound else AffineExpr.dimension(i)
            for i, v in enumerate(op.operands)
        ]
        exprs = [
            e.replace_dims_and_symbols(
                positions[: amap.num_dims], positions[amap.num_dims :]
            ).simplify(count + 1, 0)
            for e in amap.results
        ]
        leaf_ranges = [*_operand_ranges(op, {}), difference]
        changed += simplify_min_max(op, {}, [expr_range(e, leaf_ranges, []) for e in exprs])
    return changed


__all__ = [
    "Interval",
    "expr_range",
    "simplify_min_max",
    "simplify_min_max_in",
    "simplify_min_max_of_difference",
]
