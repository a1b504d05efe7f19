"""`vector.gather`: lanes read from a tensor or memref at an index vector, in upstream syntax.

```
%g = vector.gather %base[%c0, %c0] [%idx], %mask, %pass_thru
       : tensor<16x8xf32>, vector<4x8xindex>, vector<4x8xi1>, vector<4x8xf32> into vector<4x8xf32>
```

Lane `l` is `base[offsets][idx[l]]` — `idx[l]` counts elements of the row-major (linearized)
base from the element at `offsets` — where `mask[l]` is set, `pass_thru[l]` elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, TensorType, VectorType
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class GatherOp(IRDLOperation):
    """`vector.gather %base[%offsets] [%index_vec], %mask, %pass_thru`."""

    name = "vector.gather"

    base = operand_def(MemRefType | TensorType)
    offsets = var_operand_def(IndexType)
    index_vec = operand_def(VectorType)
    mask = operand_def(VectorType)
    pass_thru = operand_def(VectorType)
    result = result_def(VectorType)

    def __init__(
        self,
        base: SSAValue,
        offsets: Sequence[SSAValue],
        index_vec: SSAValue,
        mask: SSAValue,
        pass_thru: SSAValue,
    ) -> None:
        super().__init__(
            operands=[base, offsets, index_vec, mask, pass_thru], result_types=[pass_thru.type]
        )

    def verify_(self) -> None:
        base, idx, mask, pt, res = (
            self.base.type,
            self.index_vec.type,
            self.mask.type,
            self.pass_thru.type,
            self.result.type,
        )
        assert isinstance(base, MemRefType | TensorType)
        assert isinstance(idx, VectorType)
        assert isinstance(mask, VectorType)
        assert isinstance(pt, VectorType)
        assert isinstance(res, VectorType)
        if len(self.offsets) != base.get_num_dims():
            raise VerifyException(
                f"expected {base.get_num_dims()} offsets, got {len(self.offsets)}"
            )
        if res.element_type != base.element_type:
            raise VerifyException("base and result element types must match")
        if not isinstance(idx.element_type, IntegerType | IndexType):
            raise VerifyException("index vector must hold integers or indices")
        if mask.element_type != IntegerType(1):
            raise VerifyException("mask must be a vector of i1")
        shape = res.get_shape()
        if idx.get_shape() != shape or mask.get_shape() != shape or pt != res:
            raise VerifyException("index vector, mask, pass_thru and result must have one shape")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.base)
        printer.print_string("[")
        printer.print_list(self.offsets, printer.print_operand)
        printer.print_string("] [")
        printer.print_operand(self.index_vec)
        printer.print_string("], ")
        printer.print_list([self.mask, self.pass_thru], printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list(
            [self.base.type, self.index_vec.type, self.mask.type, self.pass_thru.type],
            printer.print_attribute,
        )
        printer.print_string(" into ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> GatherOp:
        base = parser.parse_unresolved_operand()
        offsets = parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        parser.parse_punctuation("[")
        index_vec = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        parser.parse_punctuation(",")
        mask = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        pass_thru = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        if len(types) != 4:
            parser.raise_error("vector.gather expects 4 operand types")
        parser.parse_keyword("into")
        res = parser.parse_type()
        base_t, idx_t, mask_t, pt_t = types
        op = GatherOp(
            parser.resolve_operand(base, base_t),
            [parser.resolve_operand(o, IndexType()) for o in offsets],
            parser.resolve_operand(index_vec, idx_t),
            parser.resolve_operand(mask, mask_t),
            parser.resolve_operand(pass_thru, pt_t),
        )
        if op.result.type != res:
            parser.raise_error(f"vector.gather result type {res} must be {pt_t}")
        op.attributes |= attrs
        return op


__all__ = ["GatherOp"]
