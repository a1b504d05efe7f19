"""Folded index arithmetic with `affine.apply` / `affine.min`, as upstream's
`makeComposedFoldedAffineApply` / `makeComposedFoldedAffineMin`.

Index quantities are `OpFoldResult`s: a Python `int` when statically known, an
`SSAValue` of type `index` otherwise. `IndexBuilder.apply(expr, operands)`
substitutes constant operands, composes through producing `affine.apply` ops,
simplifies, and only emits an `affine.apply` when the result is neither a
constant nor one of the operands. Operands defined at the top level of a
function (its arguments, `memref.dim` of them, constants) become map symbols,
every other value (loop induction variables, results of ops inside loops) a map
dimension, as upstream's `canonicalizeMapAndOperands` does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import affine, arith, func
from xdsl.dialects.builtin import DYNAMIC_INDEX, AffineMapAttr, IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.rewriter import InsertPoint, Rewriter

OpFoldResult = int | SSAValue


def constant_index_value(value: SSAValue) -> int | None:
    """The integer of an `arith.constant` of index (or integer) type, else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def fold_constant(value: OpFoldResult) -> OpFoldResult:
    """An `int` when `value` is statically known, the value itself otherwise."""
    if isinstance(value, int):
        return value
    constant = constant_index_value(value)
    return value if constant is None else constant


def constant_upper_bound(value: OpFoldResult) -> int | None:
    """A constant upper bound of an index value: a constant, or the smallest constant
    result of the `affine.min` defining it."""
    if isinstance(value, int):
        return value
    known = constant_index_value(value)
    if known is not None:
        return known
    owner = value.owner
    if isinstance(owner, affine.MinOp):
        bounds = [e.value for e in owner.map.data.results if isinstance(e, AffineConstantExpr)]
        return min(bounds) if bounds else None
    return None


def mixed_values(static: Iterable[int], dynamic: Iterable[SSAValue]) -> list[OpFoldResult]:
    """`static` with the `dynamic` values in its `DYNAMIC_INDEX` places, in order (the
    mixed offsets, sizes, ... of an op with a static list and dynamic operands)."""
    values = iter(dynamic)
    return [next(values) if s == DYNAMIC_INDEX else s for s in static]


def map_used_dims(amap: AffineMap) -> set[int]:
    """The dims that the results of `amap` use."""
    return {d for e in amap.results for d in e.used_dims()}


def is_top_level_value(value: SSAValue) -> bool:
    """True for values defined directly in a function body (valid affine symbols)."""
    if isinstance(value, BlockArgument):
        block: Block | None = value.block
    else:
        assert isinstance(value.owner, Operation)
        block = value.owner.parent
    if block is None:
        return True
    parent = block.parent_op()
    return parent is None or isinstance(parent, (func.FuncOp, ModuleOp))


def defined_inside(value: SSAValue, op: Operation) -> bool:
    """True when `value` is defined within `op` (by an op nested in it, or as an argument of
    a block in its regions)."""
    owner = value.owner
    parent = owner if isinstance(owner, Operation) else owner.parent_op()
    return parent is not None and op.is_ancestor(parent)


def _substitute(expr: AffineExpr, positions: Sequence[AffineExpr]) -> AffineExpr:
    return expr.replace_dims_and_symbols(positions, ())


def _leaves(
    exprs: Sequence[AffineExpr], operands: Sequence[OpFoldResult]
) -> tuple[list[AffineExpr], list[SSAValue]]:
    """Rewrite `exprs` (over dims d_i = operands[i]) over a list of distinct SSA leaves.

    Constant operands are substituted, operands produced by `affine.apply` are
    composed into the expression (recursively). Leaves are referenced as dims.
    """
    leaves: list[SSAValue] = []

    def leaf_expr(value: SSAValue) -> AffineExpr:
        owner = value.owner
        if isinstance(owner, affine.ApplyOp):
            inner = owner.map.data
            args = [leaf_or_const(v) for v in owner.mapOperands]
            return inner.results[0].replace_dims_and_symbols(
                args[: inner.num_dims], args[inner.num_dims :]
            )
        if value not in leaves:
            leaves.append(value)
        return AffineExpr.dimension(leaves.index(value))

    def leaf_or_const(value: OpFoldResult) -> AffineExpr:
        folded = fold_constant(value)
        if isinstance(folded, int):
            return AffineExpr.constant(folded)
        return leaf_expr(folded)

    positions = [leaf_or_const(v) for v in operands]
    return [_substitute(e, positions) for e in exprs], leaves


def _simplify(expr: AffineExpr, num_dims: int, num_symbols: int = 0) -> AffineExpr:
    if expr.is_pure_affine():
        return expr.simplify(num_dims, num_symbols)
    return expr


@dataclass
class IndexBuilder:
    """Creates folded index computations at an insertion point."""

    insert_point: InsertPoint
    _constants: dict[int, SSAValue] = field(default_factory=dict[int, SSAValue])

    def insert(self, op: Operation) -> Operation:
        Rewriter.insert_op(op, self.insert_point)
        return op

    def constant(self, value: int) -> SSAValue:
        """An `arith.constant <value> : index` (one per value and builder)."""
        if value not in self._constants:
            op = arith.ConstantOp(IntegerAttr(value, IndexType()))
            op.result.name_hint = f"c{value}" if value >= 0 else f"c_{-value}"
            self.insert(op)
            self._constants[value] = op.result
        return self._constants[value]

    def value(self, ofr: OpFoldResult) -> SSAValue:
        """Materialize an OpFoldResult as an SSA value."""
        return self.constant(ofr) if isinstance(ofr, int) else ofr

    def binary(
        self, cls: Callable[[SSAValue, SSAValue], Operation], a: OpFoldResult, b: OpFoldResult
    ) -> SSAValue:
        """A binary op (`arith.addi`, ...) of `a` and `b` materialized; emitted, not folded."""
        op = cls(self.value(a), self.value(b))
        self.insert(op)
        return op.results[0]

    def _map_and_operands(
        self, exprs: Sequence[AffineExpr], leaves: Sequence[SSAValue]
    ) -> tuple[AffineMap, list[SSAValue]]:
        """Drop unused leaves and split the rest into dims then symbols."""
        used: set[int] = set()
        for e in exprs:
            for node in e.dfs():
                if isinstance(node, AffineDimExpr):
                    used.add(node.position)
        dims = [i for i in range(len(leaves)) if i in used and not is_top_level_value(leaves[i])]
        syms = [i for i in range(len(leaves)) if i in used and is_top_level_value(leaves[i])]
        replacement: list[AffineExpr] = [AffineExpr.constant(0)] * len(leaves)
        for pos, i in enumerate(dims):
            replacement[i] = AffineExpr.dimension(pos)
        for pos, i in enumerate(syms):
            replacement[i] = AffineExpr.symbol(pos)
        new_exprs = tuple(
            _simplify(_substitute(e, replacement), len(dims), len(syms)) for e in exprs
        )
        amap = AffineMap(len(dims), len(syms), new_exprs)
        return amap, [leaves[i] for i in (*dims, *syms)]

    def apply(self, expr: AffineExpr, operands: Sequence[OpFoldResult]) -> OpFoldResult:
        """`expr` (over d0..d{n-1} bound to `operands`), folded; emits `affine.apply` if needed."""
        if isinstance(expr, AffineDimExpr):
            return fold_constant(operands[expr.position])
        (composed,), leaves = _leaves([expr], operands)
        composed = _simplify(composed, len(leaves))
        if isinstance(composed, AffineConstantExpr):
            return composed.value
        if isinstance(composed, AffineDimExpr):
            return leaves[composed.position]
        amap, map_operands = self._map_and_operands([composed], leaves)
        op = affine.ApplyOp(map_operands, AffineMapAttr(amap))
        self.insert(op)
        return op.result

    def min(self, exprs: Sequence[AffineExpr], operands: Sequence[OpFoldResult]) -> OpFoldResult:
        """min over `exprs`, folded; emits `affine.min` unless all but one result fold away."""
        composed, leaves = _leaves(exprs, operands)
        simplified: list[AffineExpr] = []
        smallest_constant: int | None = None
        for expr in composed:
            e = _simplify(expr, len(leaves))
            if isinstance(e, AffineConstantExpr):
                if smallest_constant is None or e.value < smallest_constant:
                    smallest_constant = e.value
                continue
            if e not in simplified:
                simplified.append(e)
        if not simplified:
            assert smallest_constant is not None
            return smallest_constant
        if smallest_constant is not None:
            simplified.append(AffineExpr.constant(smallest_constant))
        if len(simplified) == 1:
            only = simplified[0]
            if isinstance(only, AffineDimExpr):
                return leaves[only.position]
        amap, map_operands = self._map_and_operands(simplified, leaves)
        op = affine.MinOp(map_operands, AffineMapAttr(amap))
        self.insert(op)
        return op.result
