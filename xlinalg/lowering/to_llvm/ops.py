"""LLVM-dialect ops that xDSL 0.74 lacks or prints differently from upstream MLIR.

- `llvm.fptosi`, `llvm.fptoui`, `llvm.uitofp` are missing;
- xDSL prints the alignment of `llvm.load`/`llvm.store` inside the attribute
  dictionary (`{alignment = 4 : i64}`), which current upstream MLIR rejects
  ("inherent attribute 'alignment' cannot be parsed from attr-dict"); upstream
  spells it `llvm.load %p <alignment = 4> : !llvm.ptr -> f32`. `LoadOp` and
  `StoreOp` here print (and parse) that form.
- xDSL prints the fast-math flags of `llvm.fadd` & co. in the attribute
  dictionary; upstream spells them `llvm.fadd %a, %b fastmath<fast> : f32`.
  `FAddOp` … `FRemOp` here use that form.
"""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from xdsl.dialects import llvm
from xdsl.dialects.builtin import AnyFloatConstr, IntegerAttr, IntegerType, VectorType, i64
from xdsl.dialects.llvm import GenericCastOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure


@irdl_op_definition
class FPToSIOp(GenericCastOp):
    name = "llvm.fptosi"


@irdl_op_definition
class FPToUIOp(GenericCastOp):
    name = "llvm.fptoui"


@irdl_op_definition
class UIToFPOp(GenericCastOp):
    name = "llvm.uitofp"


def _print_alignment(printer: Printer, alignment: IntegerAttr | None) -> None:
    if alignment is not None:
        printer.print_string(f" <alignment = {alignment.value.data}>")


def _parse_alignment(parser: Parser) -> int | None:
    if parser.parse_optional_punctuation("<") is None:
        return None
    parser.parse_keyword("alignment")
    parser.parse_punctuation("=")
    value = parser.parse_integer()
    parser.parse_punctuation(">")
    return value


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`llvm.load` with upstream's `<alignment = N>` syntax."""

    name = "llvm.load"

    ptr = operand_def(llvm.LLVMPointerType)
    alignment = opt_prop_def(IntegerAttr[IntegerType])
    ordering = prop_def(IntegerAttr[IntegerType], default_value=IntegerAttr(0, i64))
    dereferenced_value = result_def()

    def __init__(
        self, ptr: SSAValue | Operation, result_type: Attribute, alignment: int | None = None
    ):
        props: dict[str, Attribute] = {"ordering": IntegerAttr(0, i64)}
        if alignment is not None:
            props["alignment"] = IntegerAttr(alignment, i64)
        super().__init__(operands=[ptr], result_types=[result_type], properties=props)

    def print(self, printer: Printer) -> None:
        if self.ordering.value.data != 0:
            raise ValueError("atomic llvm.load is not supported")
        printer.print_string(" ")
        printer.print_ssa_value(self.ptr)
        _print_alignment(printer, self.alignment)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.dereferenced_value.type)

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        ptr = parser.parse_unresolved_operand()
        alignment = _parse_alignment(parser)
        attrs = parser.parse_optional_attr_dict()
        if alignment is None and isinstance(a := attrs.pop("alignment", None), IntegerAttr):
            alignment = a.value.data
        parser.parse_punctuation(":")
        ptr_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls(parser.resolve_operand(ptr, ptr_type), result_type, alignment=alignment)
        op.attributes |= attrs
        return op


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`llvm.store` with upstream's `<alignment = N>` syntax."""

    name = "llvm.store"

    value = operand_def()
    ptr = operand_def(llvm.LLVMPointerType)
    alignment = opt_prop_def(IntegerAttr[IntegerType])
    ordering = opt_prop_def(IntegerAttr[IntegerType])

    def __init__(
        self, value: SSAValue | Operation, ptr: SSAValue | Operation, alignment: int | None = None
    ):
        props: dict[str, Attribute] = {"ordering": IntegerAttr(0, i64)}
        if alignment is not None:
            props["alignment"] = IntegerAttr(alignment, i64)
        super().__init__(operands=[value, ptr], properties=props)

    def print(self, printer: Printer) -> None:
        if self.ordering is not None and self.ordering.value.data != 0:
            raise ValueError("atomic llvm.store is not supported")
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        printer.print_ssa_value(self.ptr)
        _print_alignment(printer, self.alignment)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(", ")
        printer.print_attribute(self.ptr.type)

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        ptr = parser.parse_unresolved_operand()
        alignment = _parse_alignment(parser)
        attrs = parser.parse_optional_attr_dict()
        if alignment is None and isinstance(a := attrs.pop("alignment", None), IntegerAttr):
            alignment = a.value.data
        parser.parse_punctuation(":")
        value_type = parser.parse_type()
        parser.parse_punctuation(",")
        ptr_type = parser.parse_type()
        op = cls(
            parser.resolve_operand(value, value_type),
            parser.resolve_operand(ptr, ptr_type),
            alignment=alignment,
        )
        op.attributes |= attrs
        return op


class FloatArithOp(IRDLOperation, ABC):
    T: ClassVar = VarConstraint("T", AnyFloatConstr | VectorType.constr(AnyFloatConstr))

    lhs = operand_def(T)
    rhs = operand_def(T)
    res = result_def(T)
    fastmathFlags = prop_def(llvm.FastMathAttr, default_value=llvm.FastMathAttr(None))

    traits = traits_def(Pure())

    assembly_format = "$lhs `,` $rhs (`fastmath` `` $fastmathFlags^)? attr-dict `:` type($res)"

    def __init__(
        self,
        lhs: SSAValue | Operation,
        rhs: SSAValue | Operation,
        fastmath: llvm.FastMathAttr | None = None,
    ):
        super().__init__(
            operands=[lhs, rhs],
            result_types=[SSAValue.get(lhs).type],
            properties={"fastmathFlags": fastmath or llvm.FastMathAttr(None)},
        )


@irdl_op_definition
class FAddOp(FloatArithOp):
    name = "llvm.fadd"


@irdl_op_definition
class FSubOp(FloatArithOp):
    name = "llvm.fsub"


@irdl_op_definition
class FMulOp(FloatArithOp):
    name = "llvm.fmul"


@irdl_op_definition
class FDivOp(FloatArithOp):
    name = "llvm.fdiv"


@irdl_op_definition
class FRemOp(FloatArithOp):
    name = "llvm.frem"
