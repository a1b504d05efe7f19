"""Expansion of affine expressions and maps into `arith` ops on `index`.

Shared by `lower-affine` (affine.apply/min/max) and `convert-linalg-to-loops`
(operand indices from indexing maps). The expansion follows upstream MLIR's
`AffineApplyExpander` (mlir/lib/Dialect/Affine/Utils/Utils.cpp):

- `a mod b`      (b > 0): `r = remsi a, b; r < 0 ? r + b : r`
- `a floordiv b` (b > 0): `n = a < 0; q = divsi (n ? -1 - a : a), b; n ? -1 - q : q`
- `a ceildiv b`  (b > 0): `p = a <= 0; q = divsi (p ? -a : a - 1), b; p ? -q : q + 1`

so the result only uses `arith.constant/addi/subi/muli/divsi/remsi/cmpi/select`,
which every later stage (and LLVM) understands. Constant subexpressions are
folded here, `x + y * -1` and `y * -1 + x` become `subi x, y`, and min/max over several results
are chains of `cmpi` + `select` (LLVM turns them into smin/smax).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)
from xdsl.rewriter import InsertPoint

from xlinalg.errors import LoweringError


class AffineExpander:
    """Emits arith ops through `builder` that compute affine expressions.

    `dims`/`symbols` give the SSA values of the map's dims and symbols; a dim
    may be None when the caller knows the expressions it expands do not use it.
    Constants are cached per expander and block (one `arith.constant` per value).
    """

    def __init__(self, builder: Builder, constants_at: InsertPoint | None = None) -> None:
        self.builder = builder
        # Where constants go: a fixed point dominating every use (e.g. before a
        # loop nest), or, when None, the current insertion point of `builder`.
        self._constants_builder = Builder(constants_at) if constants_at is not None else None
        self._constants: dict[tuple[Block | None, int], SSAValue] = {}

    # ---- primitives ----
    def _emit(self, op: Operation) -> SSAValue:
        self.builder.insert(op)
        return op.results[0]

    def adopt_constant(self, value: int, ssa: SSAValue) -> None:
        """Reuse an existing index constant (it must dominate every later insertion)."""
        fixed = self._constants_builder
        key = (None if fixed is not None else self.builder.insertion_point.block, value)
        self._constants[key] = ssa

    def constant(self, value: int) -> SSAValue:
        """An index constant, shared by everything this expander emits.

        Without a fixed constants point, constants are shared per block: callers
        only move the insertion point forward within a block (or into nested
        blocks), so a cached constant always dominates its new uses.
        """
        fixed = self._constants_builder
        key = (None if fixed is not None else self.builder.insertion_point.block, value)
        cached = self._constants.get(key)
        if cached is None:
            constant = arith.ConstantOp(IntegerAttr(value, IndexType()))
            (fixed or self.builder).insert(constant)
            cached = self._constants[key] = constant.result
        return cached

    def _cmp(self, lhs: SSAValue, rhs: SSAValue, predicate: str) -> SSAValue:
        return self._emit(arith.CmpiOp(lhs, rhs, predicate))

    def _select(self, cond: SSAValue, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._emit(arith.SelectOp(cond, lhs, rhs))

    # ---- expressions ----
    def expand(
        self,
        expr: AffineExpr,
        dims: Sequence[SSAValue | None],
        symbols: Sequence[SSAValue] = (),
    ) -> SSAValue:
        match expr:
            case AffineConstantExpr():
                return self.constant(expr.value)
            case AffineDimExpr():
                value = dims[expr.position]
                if value is None:
                    raise LoweringError(f"affine expression '{expr}' uses an unavailable dim")
                return value
            case AffineSymExpr():
                return symbols[expr.position]
            case AffineBinaryOpExpr():
                return self._expand_binary(expr, dims, symbols)
            case _:
                raise LoweringError(f"unsupported affine expression '{expr}'")

    def _expand_binary(
        self,
        expr: AffineBinaryOpExpr,
        dims: Sequence[SSAValue | None],
        symbols: Sequence[SSAValue],
    ) -> SSAValue:
        lhs_expr, rhs_expr = expr.lhs, expr.rhs
        kind = expr.kind
        lhs_const = _constant_of(lhs_expr)
        rhs_const = _constant_of(rhs_expr)
        if lhs_const is not None and rhs_const is not None:
            return self.constant(_fold(kind, lhs_const, rhs_const, expr))
        if kind == AffineBinaryOpKind.Add:
            # x + y * -1  ->  x - y  (and y * -1 + x, the form of `s0 - d0`)
            negated = _negated_operand(rhs_expr)
            if negated is not None:
                lhs = self.expand(lhs_expr, dims, symbols)
                rhs = self.expand(negated, dims, symbols)
                return self._emit(arith.SubiOp(lhs, rhs))
            negated = _negated_operand(lhs_expr)
            if negated is not None:
                lhs = self.expand(rhs_expr, dims, symbols)
                rhs = self.expand(negated, dims, symbols)
                return self._emit(arith.SubiOp(lhs, rhs))
            if rhs_const == 0:
                return self.expand(lhs_expr, dims, symbols)
            if lhs_const == 0:
                return self.expand(rhs_expr, dims, symbols)
            lhs = self.expand(lhs_expr, dims, symbols)
            rhs = self.expand(rhs_expr, dims, symbols)
            return self._emit(arith.AddiOp(lhs, rhs))
        if kind == AffineBinaryOpKind.Mul:
            if rhs_const == 1:
                return self.expand(lhs_expr, dims, symbols)
            if lhs_const == 1:
                return self.expand(rhs_expr, dims, symbols)
            if rhs_const == 0 or lhs_const == 0:
                return self.constant(0)
            if rhs_const == -1:
                return self._emit(
                    arith.SubiOp(self.constant(0), self.expand(lhs_expr, dims, symbols))
                )
            lhs = self.expand(lhs_expr, dims, symbols)
            rhs = self.expand(rhs_expr, dims, symbols)
            return self._emit(arith.MuliOp(lhs, rhs))
        # mod / floordiv / ceildiv: the divisor must be positive (affine semantics).
        if rhs_const is not None and rhs_const <= 0:
            raise LoweringError(f"affine expression '{expr}' has a non-positive divisor")
        lhs = self.expand(lhs_expr, dims, symbols)
        if rhs_const == 1:
            return self.constant(0) if kind == AffineBinaryOpKind.Mod else lhs
        rhs = self.expand(rhs_expr, dims, symbols)
        zero = self.constant(0)
        if kind == AffineBinaryOpKind.Mod:
            rem = self._emit(arith.RemSIOp(lhs, rhs))
            negative = self._cmp(rem, zero, "slt")
            corrected = self._emit(arith.AddiOp(rem, rhs))
            return self._select(negative, corrected, rem)
        if kind == AffineBinaryOpKind.FloorDiv:
            minus_one = self.constant(-1)
            negative = self._cmp(lhs, zero, "slt")
            flipped = self._emit(arith.SubiOp(minus_one, lhs))
            dividend = self._select(negative, flipped, lhs)
            quotient = self._emit(arith.DivSIOp(dividend, rhs))
            corrected = self._emit(arith.SubiOp(minus_one, quotient))
            return self._select(negative, corrected, quotient)
        if kind == AffineBinaryOpKind.CeilDiv:
            one = self.constant(1)
            non_positive = self._cmp(lhs, zero, "sle")
            negated = self._emit(arith.SubiOp(zero, lhs))
            decremented = self._emit(arith.SubiOp(lhs, one))
            dividend = self._select(non_positive, negated, decremented)
            quotient = self._emit(arith.DivSIOp(dividend, rhs))
            negated_quotient = self._emit(arith.SubiOp(zero, quotient))
            incremented = self._emit(arith.AddiOp(quotient, one))
            return self._select(non_positive, negated_quotient, incremented)
        raise LoweringError(f"unsupported affine expression '{expr}'")

    # ---- maps ----
    def expand_map(self, amap: AffineMap, operands: Sequence[SSAValue | None]) -> list[SSAValue]:
        """One value per map result; `operands` are the dims then the symbols."""
        if len(operands) != amap.num_dims + amap.num_symbols:
            raise LoweringError(
                f"affine map {amap} expects {amap.num_dims + amap.num_symbols} operands, "
                f"got {len(operands)}"
            )
        dims = operands[: amap.num_dims]
        symbols = [s for s in operands[amap.num_dims :] if s is not None]
        if len(symbols) != amap.num_symbols:
            raise LoweringError(f"affine map {amap} is missing a symbol operand")
        return [self.expand(expr, dims, symbols) for expr in amap.results]

    def reduce(self, values: Sequence[SSAValue], predicate: str) -> SSAValue:
        """min (`predicate="slt"`) or max (`"sgt"`) of `values` as a cmpi/select chain."""
        if not values:
            raise LoweringError("affine min/max of an empty map")
        result = values[0]
        for value in values[1:]:
            # keep the current result unless the new value is strictly better
            better = self._cmp(value, result, predicate)
            result = self._select(better, value, result)
        return result


def _constant_of(expr: AffineExpr) -> int | None:
    return expr.value if isinstance(expr, AffineConstantExpr) else None


def _negated_operand(expr: AffineExpr) -> AffineExpr | None:
    """`y` if `expr` is `y * -1` (or `-1 * y`), else None."""
    if isinstance(expr, AffineBinaryOpExpr) and expr.kind == AffineBinaryOpKind.Mul:
        if _constant_of(expr.rhs) == -1 and _constant_of(expr.lhs) is None:
            return expr.lhs
        if _constant_of(expr.lhs) == -1 and _constant_of(expr.rhs) is None:
            return expr.rhs
    return None


def _fold(kind: AffineBinaryOpKind, lhs: int, rhs: int, expr: AffineExpr) -> int:
    if kind == AffineBinaryOpKind.Add:
        return lhs + rhs
    if kind == AffineBinaryOpKind.Mul:
        return lhs * rhs
    if rhs <= 0:
        raise LoweringError(f"affine expression '{expr}' has a non-positive divisor")
    if kind == AffineBinaryOpKind.Mod:
        return lhs % rhs
    if kind == AffineBinaryOpKind.FloorDiv:
        return lhs // rhs
    return -((-lhs) // rhs)
