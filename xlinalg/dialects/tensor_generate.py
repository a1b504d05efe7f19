"""`tensor.generate`: a tensor whose elements a region computes from their indices
(xDSL 0.74 lacks it). Syntax as upstream:

```
%t = tensor.generate %n {
^bb0(%i: index, %j: index):
  %v = ... : f32
  tensor.yield %v : f32
} : tensor<?x3xf32>
```

One operand per dynamic dim of the result (its extent); the region takes one `index`
argument per dim and yields one value of the element type.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.dialects.tensor import YieldOp
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class GenerateOp(IRDLOperation):
    name = "tensor.generate"

    dynamic_extents = var_operand_def(IndexType)
    result = result_def(TensorType[Attribute])
    body = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        rtype = self.result.type
        assert isinstance(rtype, TensorType)
        shape = rtype.get_shape()
        dynamic = sum(1 for d in shape if d == DYNAMIC_INDEX)
        if dynamic != len(self.dynamic_extents):
            raise VerifyException(
                f"'tensor.generate' must have as many index operands as dynamic extents in the "
                f"result type ({dynamic}), got {len(self.dynamic_extents)}"
            )
        block = self.body.block
        if len(block.args) != len(shape) or any(
            not isinstance(a.type, IndexType) for a in block.args
        ):
            raise VerifyException(
                f"'tensor.generate' must have one index argument per dim of the result "
                f"({len(shape)})"
            )
        last = block.last_op
        if not isinstance(last, YieldOp) or len(last.arguments) != 1:
            raise VerifyException("'tensor.generate' body must end with one 'tensor.yield'")
        if last.arguments[0].type != rtype.get_element_type():
            raise VerifyException(
                f"'tensor.generate' body yields {last.arguments[0].type}, expected the element type "
                f"{rtype.get_element_type()}"
            )

    def print(self, printer: Printer) -> None:
        if self.dynamic_extents:
            printer.print_string(" ")
            printer.print_list(self.dynamic_extents, printer.print_operand)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> GenerateOp:
        extents = []
        if (first := parser.parse_optional_operand(IndexType())) is not None:
            extents.append(first)
            while parser.parse_optional_punctuation(",") is not None:
                extents.append(parser.parse_operand(IndexType()))
        body = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        rtype = parser.parse_type()
        op = cls.create(operands=extents, result_types=[rtype], regions=[body])
        op.attributes.update(attrs)
        return op

    def __init__(self, extents: Sequence[SSAValue], result_type: Attribute, body: Region) -> None:
        super().__init__(operands=[extents], result_types=[result_type], regions=[body])


__all__ = ["GenerateOp"]
