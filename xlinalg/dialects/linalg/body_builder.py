"""Build the payload block of a named op (arith/math ops + `linalg.yield`) from its table expression.

Used by `generalize`: the block takes the element types of all operands
(inputs then outputs) and yields the output element value, exactly as
upstream's region builders do (e.g. matmul: `arith.mulf %in, %in_0` then
`arith.addf %out, %0`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xlinalg.dialects.linalg.attrs import TypeFn
from xlinalg.dialects.linalg.body_expr import Arg, Binary, Cast, Const, Expr, Index, Select, Unary
from xlinalg.dialects.linalg.casting import (
    CastKind,
    cast_kind,
    named_scalar_type,
    scalar_kind,
)
from xlinalg.dialects.linalg.generic import IndexOp, YieldOp
from xlinalg.ir.shaped_types import element_type

if TYPE_CHECKING:
    from xlinalg.dialects.linalg.named import NamedStructuredOp

_UNARY_FLOAT: dict[str, Callable[[SSAValue], Operation]] = {
    "exp": math.ExpOp,
    "log": math.LogOp,
    "abs": math.AbsFOp,
    "ceil": math.CeilOp,
    "floor": math.FloorOp,
    "negf": arith.NegfOp,
    "round": math.RoundOp,
    "sqrt": math.SqrtOp,
    "rsqrt": math.RsqrtOp,
    "tanh": math.TanhOp,
    "erf": math.ErfOp,
}

_BINARY_FLOAT: dict[str, Callable[[SSAValue, SSAValue], Operation]] = {
    "add": arith.AddfOp,
    "sub": arith.SubfOp,
    "mul": arith.MulfOp,
    "div": arith.DivfOp,
    "max_signed": arith.MaximumfOp,
    "min_signed": arith.MinimumfOp,
    "powf": math.PowFOp,
}

_BINARY_INT: dict[str, Callable[[SSAValue, SSAValue], Operation]] = {
    "add": arith.AddiOp,
    "sub": arith.SubiOp,
    "mul": arith.MuliOp,
    "div": arith.DivSIOp,
    "div_unsigned": arith.DivUIOp,
    "max_signed": arith.MaxSIOp,
    "min_signed": arith.MinSIOp,
    "max_unsigned": arith.MaxUIOp,
    "min_unsigned": arith.MinUIOp,
}

_BINARY_BOOL: dict[str, Callable[[SSAValue, SSAValue], Operation]] = {
    "add": arith.OrIOp,
    "mul": arith.AndIOp,
}

# the casts by the type they cast to (`cast_kind` chose the kind from that type)
_CASTS_TO_INT: dict[CastKind, Callable[[SSAValue, IntegerType], Operation]] = {
    CastKind.FPTOSI: arith.FPToSIOp,
    CastKind.FPTOUI: arith.FPToUIOp,
    CastKind.EXTSI: arith.ExtSIOp,
    CastKind.EXTUI: arith.ExtUIOp,
    CastKind.TRUNCI: arith.TruncIOp,
}
_CASTS_TO_FLOAT: dict[CastKind, Callable[[SSAValue, AnyFloat], Operation]] = {
    CastKind.SITOFP: arith.SIToFPOp,
    CastKind.UITOFP: arith.UIToFPOp,
}
_CASTS: dict[CastKind, Callable[[SSAValue, Attribute], Operation]] = {
    CastKind.EXTF: arith.ExtFOp,
    CastKind.TRUNCF: arith.TruncFOp,
    CastKind.INDEX_CAST: arith.IndexCastOp,
}


def _cast(kind: CastKind, value: SSAValue, dst: Attribute) -> Operation:
    if kind in _CASTS_TO_INT:
        assert isinstance(dst, IntegerType)
        return _CASTS_TO_INT[kind](value, dst)
    if kind in _CASTS_TO_FLOAT:
        assert isinstance(dst, AnyFloat)
        return _CASTS_TO_FLOAT[kind](value, dst)
    return _CASTS[kind](value, dst)


def build_payload(op: NamedStructuredOp) -> Region:
    """A fresh single-block region computing `op`'s payload."""
    spec = op.spec
    operands = [*op.get_inputs(), *op.get_outputs()]
    specs = op.operand_specs()
    block = Block(arg_types=[element_type(v.type) for v in operands])
    for block_arg, operand in zip(block.args, specs):
        block_arg.name_hint = "out" if operand.is_output else "in"
    values: dict[str, SSAValue] = {operand.name: arg for operand, arg in zip(specs, block.args)}
    out_type = element_type(op.get_outputs()[0].type)
    body = op.body()
    if body is None:
        result: SSAValue = values[spec.inputs[0].name]
    else:
        emitter = _Emitter(values, out_type, op.get_cast_fn(), block, spec.dim_names)
        result = emitter.emit(body)
    block.add_op(YieldOp(result))
    return Region(block)


class _Emitter:
    """Emits the ops of a payload expression into `block`; constants and loop indices are
    emitted once each."""

    def __init__(
        self,
        values: dict[str, SSAValue],
        out_type: Attribute,
        fn: TypeFn,
        block: Block,
        dim_names: tuple[str, ...],
    ) -> None:
        self.values = values
        self.out_type = out_type
        self.fn = fn
        self.block = block
        self.dim_names = dim_names
        self.cache: dict[Expr, SSAValue] = {}

    def emit(self, expr: Expr) -> SSAValue:
        if isinstance(expr, (Index, Const)):
            if expr not in self.cache:
                self.cache[expr] = self._leaf(expr)
            return self.cache[expr]
        if isinstance(expr, Arg):
            return self.values[expr.name]
        block = self.block
        if isinstance(expr, Cast):
            value = self.emit(expr.value)
            dst = self.out_type if expr.to is None else named_scalar_type(expr.to)
            kind = cast_kind(value.type, dst, expr.fn or self.fn)
            if kind is CastKind.NONE:
                return value
            return _add(block, _cast(kind, value, dst))
        if isinstance(expr, Select):
            cond, lhs, rhs = self.emit(expr.cond), self.emit(expr.lhs), self.emit(expr.rhs)
            return _add(block, arith.SelectOp(cond, lhs, rhs))
        if isinstance(expr, Unary):
            value = self.emit(expr.value)
            if expr.fn == "square":
                mul = arith.MulfOp if scalar_kind(value.type) == "float" else arith.MuliOp
                return _add(block, mul(value, value))
            if expr.fn == "reciprocal":
                type_ = value.type
                assert isinstance(type_, AnyFloat), "verified: reciprocal is of floats"
                one = _add(block, arith.ConstantOp(FloatAttr(1.0, type_)))
                return _add(block, arith.DivfOp(one, value))
            return _add(block, _UNARY_FLOAT[expr.fn](value))
        if isinstance(expr, Binary):
            lhs = self.emit(expr.lhs)
            rhs = self.emit(expr.rhs)
            if scalar_kind(lhs.type) == "float":
                table = _BINARY_FLOAT
            elif (
                isinstance(lhs.type, IntegerType)
                and lhs.type.width.data == 1
                and expr.fn in _BINARY_BOOL
            ):
                table = _BINARY_BOOL
            else:
                table = _BINARY_INT
            return _add(block, table[expr.fn](lhs, rhs))
        raise TypeError(f"not a body expression: {expr!r}")

    def _leaf(self, expr: Index | Const) -> SSAValue:
        if isinstance(expr, Index):
            return _add(self.block, IndexOp(self.dim_names.index(expr.dim)))
        type_ = named_scalar_type(expr.type_name)
        if isinstance(type_, AnyFloat):
            attr: Attribute = FloatAttr(float(expr.value), type_)
        else:
            assert isinstance(type_, IntegerType | IndexType)
            attr = IntegerAttr(int(expr.value), type_)
        return _add(self.block, arith.ConstantOp(attr))


def _add(block: Block, op: Operation) -> SSAValue:
    block.add_op(op)
    return op.results[0]
