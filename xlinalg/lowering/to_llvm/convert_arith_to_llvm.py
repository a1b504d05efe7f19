"""`arith` → `llvm` (index becomes i64)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation

from xlinalg.errors import LoweringError
from xlinalg.ir.passes import register_pass
from xlinalg.lowering.to_llvm import ops as xops
from xlinalg.lowering.to_llvm.bf16 import to_bf16
from xlinalg.lowering.to_llvm.builder import Builder, lowering, replace_op
from xlinalg.lowering.to_llvm.dialect_pass import DialectConversionPass
from xlinalg.lowering.to_llvm.intrinsics import call_intrinsic
from xlinalg.lowering.to_llvm.types import convert_type

_INT_BINARY: dict[str, type[IRDLOperation]] = {
    "arith.addi": llvm.AddOp,
    "arith.subi": llvm.SubOp,
    "arith.muli": llvm.MulOp,
    "arith.divsi": llvm.SDivOp,
    "arith.divui": llvm.UDivOp,
    "arith.remsi": llvm.SRemOp,
    "arith.remui": llvm.URemOp,
    "arith.andi": llvm.AndOp,
    "arith.ori": llvm.OrOp,
    "arith.xori": llvm.XOrOp,
    "arith.shli": llvm.ShlOp,
    "arith.shrsi": llvm.AShrOp,
    "arith.shrui": llvm.LShrOp,
}

_FLOAT_BINARY: dict[str, type[xops.FloatArithOp]] = {
    "arith.addf": xops.FAddOp,
    "arith.subf": xops.FSubOp,
    "arith.mulf": xops.FMulOp,
    "arith.divf": xops.FDivOp,
    "arith.remf": xops.FRemOp,
}

# NaN semantics: minimumf/maximumf propagate NaN (llvm.minimum/maximum);
# minnumf/maxnumf return the non-NaN operand (llvm.minnum/maxnum).
_BINARY_INTRINSICS: dict[str, str] = {
    "arith.minimumf": "minimum",
    "arith.maximumf": "maximum",
    "arith.minnumf": "minnum",
    "arith.maxnumf": "maxnum",
    "arith.minsi": "smin",
    "arith.maxsi": "smax",
    "arith.minui": "umin",
    "arith.maxui": "umax",
}

_CASTS: dict[str, type[IRDLOperation]] = {
    "arith.sitofp": llvm.SIToFPOp,
    "arith.extf": llvm.FPExtOp,
    "arith.truncf": llvm.FPTruncOp,
    "arith.extsi": llvm.SExtOp,
    "arith.extui": llvm.ZExtOp,
    "arith.trunci": llvm.TruncOp,
    "arith.bitcast": llvm.BitcastOp,
}


def _fastmath(op: Operation) -> llvm.FastMathAttr:
    fm = op.properties.get("fastmath")
    flags = getattr(fm, "data", None)
    return llvm.FastMathAttr(flags if flags else None)


def _overflow_bits(op: Operation) -> int:
    """arith's `overflow<nsw, nuw>` as LLVM's flag bits (nsw = 1, nuw = 2)."""
    flags = getattr(op.properties.get("overflowFlags"), "data", None) or ()
    names = {str(f) for f in flags}
    return (1 if "nsw" in names else 0) | (2 if "nuw" in names else 0)


def _width(t: Attribute) -> int:
    if isinstance(t, VectorType):
        t = t.element_type
    assert isinstance(t, IntegerType), t
    return t.width.data


def _constant(b: Builder, op: Operation) -> SSAValue:
    value = op.properties.get("value", op.attributes.get("value"))
    res_type = convert_type(op.results[0].type)
    if isinstance(value, IntegerAttr):
        return b.int_const(value.value.data, res_type)
    if isinstance(value, FloatAttr) or (
        isinstance(value, DenseIntOrFPElementsAttr) and isinstance(res_type, VectorType)
    ):
        return b.constant(value, res_type)
    raise LoweringError(f"cannot lower 'arith.constant' with value {value}")


def _int_cast(b: Builder, x: SSAValue, to: Attribute, signed: bool) -> SSAValue:
    src, dst = _width(x.type), _width(to)
    if src == dst:
        return x
    if src > dst:
        return b.convert(llvm.TruncOp, x, to)
    return b.convert(llvm.SExtOp if signed else llvm.ZExtOp, x, to)


def _icmp(b: Builder, pred: str, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.icmp(llvm.ICmpPredicateFlag(pred), x, y)


def _ceil_floor_div(b: Builder, name: str, a: SSAValue, d: SSAValue) -> SSAValue:
    zero = b.int_const(0, a.type)
    one = b.int_const(1, a.type)
    if name == "arith.ceildivui":
        # a == 0 ? 0 : (a - 1) / d + 1
        q = b.binary(llvm.AddOp, b.binary(llvm.UDivOp, b.binary(llvm.SubOp, a, one), d), one)
        return b.select(_icmp(b, "eq", a, zero), zero, q)
    q = b.binary(llvm.SDivOp, a, d)
    r = b.binary(llvm.SRemOp, a, d)
    inexact = _icmp(b, "ne", r, zero)
    sign = b.binary(llvm.XOrOp, a, d)
    if name == "arith.ceildivsi":
        # round up when the quotient is positive and inexact
        fix = b.binary(llvm.AndOp, inexact, _icmp(b, "sge", sign, zero))
        return b.select(fix, b.binary(llvm.AddOp, q, one), q)
    fix = b.binary(llvm.AndOp, inexact, _icmp(b, "slt", sign, zero))
    return b.select(fix, b.binary(llvm.SubOp, q, one), q)


def lower_arith_op(op: Operation) -> bool:
    """Replace one arith op by LLVM ops; False if `op` is not an arith op."""
    name = op.name
    if not name.startswith("arith."):
        return False
    b = Builder.before_op(op)
    args = [b.to_llvm(v) for v in op.operands]
    res_types = [convert_type(r.type) for r in op.results]
    result: SSAValue
    if name == "arith.constant":
        result = _constant(b, op)
    elif name in _INT_BINARY:
        result = b.binary(_INT_BINARY[name], args[0], args[1])
        if (bits := _overflow_bits(op)) and "overflowFlags" in result.owner.properties:
            result.owner.properties["overflowFlags"] = IntegerAttr(bits, 32)
    elif name in _FLOAT_BINARY:
        result = b.add(_FLOAT_BINARY[name](args[0], args[1], _fastmath(op)))
    elif name == "arith.negf":
        result = b.add(llvm.FNegOp.create(operands=[args[0]], result_types=[res_types[0]]))
    elif name in _BINARY_INTRINSICS:
        result = call_intrinsic(b, _BINARY_INTRINSICS[name], args, res_types[0])
    elif name == "arith.cmpi":
        pred = op.properties["predicate"]
        assert isinstance(pred, IntegerAttr)
        result = b.icmp(llvm.ICmpPredicateFlag.from_int(pred.value.data), args[0], args[1])
    elif name == "arith.cmpf":
        pred = op.properties["predicate"]
        assert isinstance(pred, IntegerAttr)
        # created directly: xDSL's constructor types the result i1 even for vectors
        cmp = llvm.FCmpOp.create(
            operands=args,
            result_types=res_types,
            properties={
                "predicate": IntegerAttr(pred.value.data, 64),
                "fastmathFlags": _fastmath(op),
            },
        )
        result = b.add(cmp)
    elif name == "arith.select":
        result = b.select(args[0], args[1], args[2])
    elif name in ("arith.index_cast", "arith.index_castui"):
        result = _int_cast(b, args[0], res_types[0], signed=name == "arith.index_cast")
    elif (bf16 := to_bf16(b, name, args[0], res_types[0])) is not None:
        result = bf16
    elif name in _CASTS:
        result = b.convert(_CASTS[name], args[0], res_types[0])
    elif name in ("arith.fptosi", "arith.fptoui", "arith.uitofp"):
        cls: dict[str, type[IRDLOperation]] = {
            "arith.fptosi": xops.FPToSIOp,
            "arith.fptoui": xops.FPToUIOp,
            "arith.uitofp": xops.UIToFPOp,
        }
        result = b.convert(cls[name], args[0], res_types[0])
    elif name in ("arith.ceildivsi", "arith.floordivsi", "arith.ceildivui"):
        result = _ceil_floor_div(b, name, args[0], args[1])
    else:
        raise LoweringError(f"cannot lower '{name}' to LLVM")
    replace_op(op, [b.from_llvm(result, op.results[0].type)])
    return True


@register_pass
@dataclass(frozen=True)
class ConvertArithToLLVMPass(DialectConversionPass):
    """Lower every `arith` op to the LLVM dialect."""

    name = "xl-convert-arith-to-llvm"
    dialect = "arith"

    def convert_ops(self, module: ModuleOp, ops: Sequence[Operation]) -> None:
        for inner in ops:
            with lowering(inner):
                lower_arith_op(inner)
