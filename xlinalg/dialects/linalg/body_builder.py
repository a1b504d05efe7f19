"""Build the payload block of a named op (arith/math ops + `linalg.yield`) from its table expression.

Used by `generalize`: the block takes the element types of all operands
(inputs then outputs) and yields the output element value, exactly as
upstream's region builders do (e.g. matmul: `arith.mulf %in, %in_0` then
`arith.addf %out, %0`).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import FloatAttr, IntegerType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xlinalg.dialects.linalg.attrs import TypeFn
from xlinalg.dialects.linalg.body_expr import Arg, Binary, Cast, Expr, Unary
from xlinalg.dialects.linalg.casting import CastKind, cast_kind, element_type, scalar_kind
from xlinalg.dialects.linalg.generic import YieldOp
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

_CASTS: dict[CastKind, Callable[[SSAValue, Attribute], Operation]] = {
    CastKind.FPTOSI: arith.FPToSIOp,  # type: ignore[dict-item]
    CastKind.FPTOUI: arith.FPToUIOp,  # type: ignore[dict-item]
    CastKind.SITOFP: arith.SIToFPOp,  # type: ignore[dict-item]
    CastKind.UITOFP: arith.UIToFPOp,  # type: ignore[dict-item]
    CastKind.EXTSI: arith.ExtSIOp,  # type: ignore[dict-item]
    CastKind.EXTUI: arith.ExtUIOp,  # type: ignore[dict-item]
    CastKind.TRUNCI: arith.TruncIOp,  # type: ignore[dict-item]
    CastKind.EXTF: arith.ExtFOp,
    CastKind.TRUNCF: arith.TruncFOp,
    CastKind.INDEX_CAST: arith.IndexCastOp,
}


def build_payload(op: NamedStructuredOp) -> Region:
    """A fresh single-block region computing `op`'s payload."""
    spec = op.spec
    operands = [*op.get_inputs(), *op.get_outputs()]
    block = Block(arg_types=[element_type(v.type) for v in operands])
    for block_arg, operand in zip(block.args, spec.operands):
        block_arg.name_hint = "out" if operand.is_output else "in"
    values = {operand.name: arg for operand, arg in zip(spec.operands, block.args)}
    out_type = element_type(op.get_outputs()[0].type)
    if spec.body_expr is None:
        result: SSAValue = values[spec.inputs[0].name]
    else:
        result = _emit(spec.body_expr, values, out_type, op.get_cast_fn(), block)
    block.add_op(YieldOp(result))
    return Region(block)


def _emit(
    expr: Expr, values: dict[str, SSAValue], out_type: Attribute, fn: TypeFn, block: Block
) -> SSAValue:
    if isinstance(expr, Arg):
        return values[expr.name]
    if isinstance(expr, Cast):
        value = _emit(expr.value, values, out_type, fn, block)
        kind = cast_kind(value.type, out_type, expr.fn or fn)
        if kind is CastKind.NONE:
            return value
        return _add(block, _CASTS[kind](value, out_type))
    if isinstance(expr, Unary):
        value = _emit(expr.value, values, out_type, fn, block)
        if expr.fn == "square":
            mul = arith.MulfOp if scalar_kind(value.type) == "float" else arith.MuliOp
            return _add(block, mul(value, value))
        if expr.fn == "reciprocal":
            one = _add(block, arith.ConstantOp(FloatAttr(1.0, value.type)))  # type: ignore[arg-type]
            return _add(block, arith.DivfOp(one, value))
        return _add(block, _UNARY_FLOAT[expr.fn](value))
    if isinstance(expr, Binary):
        lhs = _emit(expr.lhs, values, out_type, fn, block)
        rhs = _emit(expr.rhs, values, out_type, fn, block)
        if scalar_kind(lhs.type) == "float":
            table = _BINARY_FLOAT
        elif isinstance(lhs.type, IntegerType) and lhs.type.width.data == 1 and expr.fn in _BINARY_BOOL:
            table = _BINARY_BOOL
        else:
            table = _BINARY_INT
        return _add(block, table[expr.fn](lhs, rhs))
    raise TypeError(f"not a body expression: {expr!r}")


def _add(block: Block, op: Operation) -> SSAValue:
    block.add_op(op)
    return op.results[0]
