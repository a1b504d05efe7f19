"""`math` → LLVM intrinsics, or libm calls where LLVM has no intrinsic."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    ModuleOp,
    VectorType,
    f32,
    i1,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xlinalg.errors import LoweringError
from xlinalg.ir.passes import register_pass
from xlinalg.lowering.to_llvm import ops as xops
from xlinalg.lowering.to_llvm.builder import Builder, lowering, replace_op
from xlinalg.lowering.to_llvm.dialect_pass import DialectConversionPass
from xlinalg.lowering.to_llvm.externals import declare_external
from xlinalg.lowering.to_llvm.intrinsics import call_intrinsic
from xlinalg.lowering.to_llvm.types import convert_type

# math op -> LLVM intrinsic overloaded on the (float or int) operand type.
_INTRINSICS: dict[str, str] = {
    "math.exp": "exp",
    "math.exp2": "exp2",
    "math.log": "log",
    "math.log2": "log2",
    "math.log10": "log10",
    "math.sqrt": "sqrt",
    "math.absf": "fabs",
    "math.ceil": "ceil",
    "math.floor": "floor",
    "math.round": "round",
    "math.roundeven": "roundeven",
    "math.trunc": "trunc",
    "math.sin": "sin",
    "math.cos": "cos",
    "math.tan": "tan",
    "math.powf": "pow",
    "math.copysign": "copysign",
    "math.fma": "fma",
    "math.ctpop": "ctpop",
}

# math op -> libm function (double name; float name has the `f` suffix).
_LIBM: dict[str, str] = {
    "math.tanh": "tanh",
    "math.erf": "erf",
    "math.atan": "atan",
    "math.atan2": "atan2",
    "math.acos": "acos",
    "math.asin": "asin",
    "math.sinh": "sinh",
    "math.cosh": "cosh",
    "math.asinh": "asinh",
    "math.acosh": "acosh",
    "math.atanh": "atanh",
    "math.cbrt": "cbrt",
    "math.expm1": "expm1",
    "math.log1p": "log1p",
}


def _fastmath(op: Operation) -> llvm.FastMathAttr:
    flags = getattr(op.properties.get("fastmath"), "data", None)
    return llvm.FastMathAttr(flags if flags else None)


def _libm_call(
    b: Builder, module: ModuleOp, base: str, args: list[SSAValue], t: Attribute
) -> SSAValue:
    if isinstance(t, VectorType):
        raise LoweringError(f"cannot lower vector '{base}': no libm vector function")
    if isinstance(t, Float64Type):
        fn, ct = base, t
    elif isinstance(t, Float32Type):
        fn, ct = base + "f", t
    elif isinstance(t, Float16Type | BFloat16Type):
        fn, ct = base + "f", f32
    else:
        raise LoweringError(f"cannot lower '{base}' on {t}")
    call_args = [a if ct == t else b.convert(llvm.FPExtOp, a, ct) for a in args]
    declare_external(module, fn, [ct] * len(args), ct)
    r = b.call(fn, call_args, ct).results[0]
    return r if ct == t else b.convert(llvm.FPTruncOp, r, t)


def lower_math_op(op: Operation, module: ModuleOp) -> None:
    name = op.name
    b = Builder.before_op(op)
    args = [b.to_llvm(v) for v in op.operands]
    t = convert_type(op.results[0].type)
    result: SSAValue
    if name in _INTRINSICS:
        result = call_intrinsic(b, _INTRINSICS[name], args, t)
    elif name == "math.rsqrt":
        sq = call_intrinsic(b, "sqrt", args, t)
        if isinstance(t, VectorType):
            splat = DenseIntOrFPElementsAttr.from_list(t, [1.0])
            one = b.constant(splat, t)
        else:
            assert isinstance(t, AnyFloat)
            one = b.float_const(1.0, t)
        result = b.add(xops.FDivOp(one, sq, _fastmath(op)))
    elif name in ("math.absi", "math.ctlz", "math.cttz"):
        poison = b.constant(IntegerAttr(0, i1), i1)
        base = {"math.absi": "abs", "math.ctlz": "ctlz", "math.cttz": "cttz"}[name]
        result = call_intrinsic(b, base, [args[0], poison], t)
    elif name == "math.fpowi":
        exp = args[1]
        if exp.type != i32:
            raise LoweringError("cannot lower 'math.fpowi' with a non-i32 exponent")
        result = call_intrinsic(b, "powi", args, t, overload=[t, i32])
    elif name in _LIBM:
        result = _libm_call(b, module, _LIBM[name], args, t)
    else:
        raise LoweringError(f"cannot lower '{name}' to LLVM")
    if isinstance(result.owner, llvm.CallIntrinsicOp):
        result.owner.properties["fastmathFlags"] = _fastmath(op)
    replace_op(op, [b.from_llvm(result, op.results[0].type)])


@register_pass
@dataclass(frozen=True)
class ConvertMathToLLVMPass(DialectConversionPass):
    """Lower every `math` op to LLVM intrinsics or libm calls."""

    name = "xl-convert-math-to-llvm"
    dialect = "math"

    def convert_ops(self, module: ModuleOp, ops: Sequence[Operation]) -> None:
        for inner in ops:
            with lowering(inner):
                lower_math_op(inner, module)
