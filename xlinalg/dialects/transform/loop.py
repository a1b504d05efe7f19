"""`transform.loop.*` ops: unroll."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, IntegerType, i64
from xdsl.dialects.transform import TransformHandleType
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class LoopUnrollOp(IRDLOperation):
    """`transform.loop.unroll %loop factor = 4 : !transform.any_op`.

    That is current upstream syntax (what iree-opt prints and requires); the
    older `transform.loop.unroll %loop {factor = 4} : ...` is accepted too and
    printed in the current form.
    """

    name = "transform.loop.unroll"

    target = operand_def(TransformHandleType)
    factor = prop_def(IntegerAttr[IntegerType])

    def __init__(self, target: SSAValue, factor: int):
        super().__init__(operands=[target], properties={"factor": IntegerAttr(factor, i64)})

    @classmethod
    def parse(cls, parser: Parser) -> LoopUnrollOp:
        target = parser.parse_unresolved_operand()
        factor: IntegerAttr | None = None
        if parser.parse_optional_keyword("factor") is not None:
            parser.parse_punctuation("=")
            factor = IntegerAttr(parser.parse_integer(allow_boolean=False), i64)
        attrs = parser.parse_optional_attr_dict()
        if factor is None:
            old = attrs.pop("factor", None)
            if not isinstance(old, IntegerAttr):
                parser.raise_error("transform.loop.unroll: expected `factor = <integer>`")
            factor = IntegerAttr(old.value.data, i64)
        parser.parse_punctuation(":")
        op = LoopUnrollOp(parser.resolve_operand(target, parser.parse_type()), factor.value.data)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        printer.print_string(f" factor = {self.factor.value.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.target.type)

    def verify_(self) -> None:
        if self.factor.value.data <= 0:
            raise VerifyException(
                f"transform.loop.unroll: factor must be positive, got {self.factor.value.data}"
            )


TransformLoop = Dialect("transform.loop", [LoopUnrollOp])

__all__ = ["LoopUnrollOp", "TransformLoop"]
