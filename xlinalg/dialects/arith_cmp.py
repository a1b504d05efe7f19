"""`arith.cmpi` / `arith.cmpf` whose result is a vector/tensor of i1 for shaped operands.

xDSL 0.74 types the result of both comparisons `i1` whatever the operands, so
`arith.cmpf ogt, %a, %b : vector<16xf32>` parses to an op that does not verify
(and vectorizing a body with a comparison fails). Upstream: "the result is an
i1, or a vector/tensor thereof having the same shape as the inputs". These
classes replace xDSL's in our `Arith` dialect (`xlinalg/dialects/arith.py`)
with upstream's syntax (the same as xDSL's):

```
%c = arith.cmpi slt, %a, %b : index
%m = arith.cmpf ogt, %x, %y fastmath<fast> : vector<4x16xf32>     // -> vector<4x16xi1>
```

Passes that build scalar comparisons may keep building xDSL's classes; code
recognising either tests `isinstance(op, CMPI_OPS / CMPF_OPS)` or the name.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import arith as _xdsl
from xdsl.dialects.arith import (
    CMPF_COMPARISON_OPERATIONS,
    CMPI_COMPARISON_OPERATIONS,
    FastMathFlagsAttr,
    floatingPointLike,
    signlessIntegerLike,
)
from xdsl.dialects.builtin import IntegerAttr, IntegerType, TensorType, VectorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.irdl.constraints import VerificationContext
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

I1 = IntegerType(1)


def i1_like(t: Attribute) -> Attribute:
    """i1 for a scalar type, a vector/tensor of i1 of the same shape for a shaped one."""
    if isinstance(t, VectorType):
        return VectorType(I1, t.get_shape(), t.scalable_dims)
    if isinstance(t, TensorType):
        return TensorType(I1, t.get_shape())
    return I1


def _predicate(arg: int | str, names: list[str], op: str) -> int:
    if isinstance(arg, int):
        return arg
    if arg not in names:
        raise VerifyException(f"unknown '{op}' predicate '{arg}'")
    return names.index(arg)


class _Compare(IRDLOperation):
    """The parts shared by cmpi and cmpf."""

    _NAMES: ClassVar[list[str]]

    predicate = prop_def(IntegerAttr)
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    traits = traits_def(Pure())

    def verify_(self) -> None:
        if self.lhs.type != self.rhs.type:
            raise VerifyException(
                f"'{self.name}' operands must have the same type, got "
                f"{self.lhs.type} and {self.rhs.type}"
            )
        if self.result.type != i1_like(self.lhs.type):
            raise VerifyException(
                f"'{self.name}' result must be {i1_like(self.lhs.type)} "
                f"for operands of type {self.lhs.type}, got {self.result.type}"
            )
        if not 0 <= self.predicate.value.data < len(self._NAMES):
            raise VerifyException(
                f"'{self.name}' predicate {self.predicate.value.data} is out of range"
            )

    def _print_head(self, printer: Printer) -> None:
        printer.print_string(f" {self._NAMES[self.predicate.value.data]}, ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)

    @staticmethod
    def _parse_head(parser: Parser) -> tuple[str, UnresolvedOperand, UnresolvedOperand]:
        arg = parser.parse_identifier()
        parser.parse_punctuation(",")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        return arg, lhs, rhs


@irdl_op_definition
class CmpiOp(_Compare):
    """`arith.cmpi <pred>, %a, %b : T` (T integer/index-like; result i1-like of T's shape)."""

    name = "arith.cmpi"
    _NAMES: ClassVar[list[str]] = CMPI_COMPARISON_OPERATIONS

    def __init__(
        self, operand1: Operation | SSAValue, operand2: Operation | SSAValue, arg: int | str
    ):
        operand1, operand2 = SSAValue.get(operand1), SSAValue.get(operand2)
        super().__init__(
            operands=[operand1, operand2],
            result_types=[i1_like(operand1.type)],
            properties={
                "predicate": IntegerAttr(_predicate(arg, CMPI_COMPARISON_OPERATIONS, self.name), 64)
            },
        )

    def verify_(self) -> None:
        signlessIntegerLike.verify(self.lhs.type, _context())
        super().verify_()

    @classmethod
    def parse(cls, parser: Parser) -> CmpiOp:
        arg, lhs, rhs = cls._parse_head(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        a, b = parser.resolve_operands([lhs, rhs], [t, t], parser.pos)
        op = cls(a, b, arg)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        self._print_head(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)


@irdl_op_definition
class CmpfOp(_Compare):
    """`arith.cmpf <pred>, %a, %b [fastmath<...>] : T` (T float-like; result i1-like)."""

    name = "arith.cmpf"
    _NAMES: ClassVar[list[str]] = CMPF_COMPARISON_OPERATIONS

    fastmath = prop_def(FastMathFlagsAttr, default_value=FastMathFlagsAttr("none"))

    def __init__(
        self,
        operand1: Operation | SSAValue,
        operand2: Operation | SSAValue,
        arg: int | str,
        fastmath: FastMathFlagsAttr | None = None,
    ):
        operand1, operand2 = SSAValue.get(operand1), SSAValue.get(operand2)
        fastmath = fastmath if fastmath is not None else FastMathFlagsAttr("none")
        super().__init__(
            operands=[operand1, operand2],
            result_types=[i1_like(operand1.type)],
            properties={
                "predicate": IntegerAttr(
                    _predicate(arg, CMPF_COMPARISON_OPERATIONS, self.name), 64
                ),
                "fastmath": fastmath,
            },
        )

    def verify_(self) -> None:
        floatingPointLike.verify(self.lhs.type, _context())
        super().verify_()

    @classmethod
    def parse(cls, parser: Parser) -> CmpfOp:
        arg, lhs, rhs = cls._parse_head(parser)
        fastmath = FastMathFlagsAttr("none")
        if parser.parse_optional_keyword("fastmath"):
            fastmath = FastMathFlagsAttr(FastMathFlagsAttr.parse_parameter(parser))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        a, b = parser.resolve_operands([lhs, rhs], [t, t], parser.pos)
        op = cls(a, b, arg, fastmath)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        self._print_head(printer)
        if self.fastmath != FastMathFlagsAttr("none"):
            printer.print_string(" fastmath")
            self.fastmath.print_parameter(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)


def _context() -> VerificationContext:
    return VerificationContext()


CMPI_OPS = (_xdsl.CmpiOp, CmpiOp)
CMPF_OPS = (_xdsl.CmpfOp, CmpfOp)

__all__ = ["CMPF_OPS", "CMPI_OPS", "CmpfOp", "CmpiOp", "i1_like"]
