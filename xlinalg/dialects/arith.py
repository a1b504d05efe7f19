"""Our `arith` dialect: xDSL's arith ops, with an `arith.select` that takes vector conditions.

xDSL 0.74's `arith.select` requires an `i1` condition. Upstream MLIR allows
"i1 or vector/tensor of i1 of the same shape" as the result, which masked
vector code needs (`select(%mask, %value, %passthru)`, a masked reduction's
`select(%mask, %source, neutral)`). `SelectOp` here replaces xDSL's class in
the `Arith` dialect registered by `xlinalg.dialects.context` (a decorated xDSL op class
cannot be subclassed): parsed selects are ours, passes that build scalar
selects may keep building xDSL's; code recognising either tests
`isinstance(op, SELECT_OPS)` or the name. Upstream syntax both ways:

```
%x = arith.select %c, %a, %b : f32                                   // i1 condition
%v = arith.select %m, %a, %b : vector<4x8xi1>, vector<4x8xf32>       // per-lane condition
%w = arith.select %c, %va, %vb : vector<8xf32>                       // i1 picks a whole vector
```
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import arith as _xdsl
from xdsl.dialects.arith import Arith as _XdslArith
from xdsl.dialects.arith import ArithConstantMaterializationInterface
from xdsl.dialects.arith import SelectOp as _XdslSelectOp
from xdsl.dialects.builtin import IntegerType, TensorType, VectorType
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.arith_cmp import CmpfOp, CmpiOp
from xlinalg.dialects.arith_index_cast import REPLACES as INDEX_CAST_REPLACES
from xlinalg.dialects.arith_index_cast import IndexCastOp
from xlinalg.dialects.arith_trunci import REPLACES as TRUNCI_REPLACES
from xlinalg.dialects.arith_trunci import TruncIOp

I1 = IntegerType(1)


def _is_i1(t: Attribute) -> bool:
    return t == I1


@irdl_op_definition
class SelectOp(IRDLOperation):
    """`arith.select %cond, %lhs, %rhs`: per-lane when `%cond` is a vector/tensor of i1."""

    name = "arith.select"

    _T: ClassVar = VarConstraint("_T", AnyAttr())
    cond = operand_def(AnyAttr())
    lhs = operand_def(_T)
    rhs = operand_def(_T)
    result = result_def(_T)

    traits = traits_def(Pure())

    def __init__(
        self, cond: Operation | SSAValue, lhs: Operation | SSAValue, rhs: Operation | SSAValue
    ):
        lhs = SSAValue.get(lhs)
        super().__init__(operands=[cond, lhs, rhs], result_types=[lhs.type])

    @property
    def is_per_lane(self) -> bool:
        return isinstance(self.cond.type, VectorType | TensorType)

    def verify_(self) -> None:
        ct, rt = self.cond.type, self.result.type
        if _is_i1(ct):
            return
        if not isinstance(ct, VectorType | TensorType) or not _is_i1(ct.element_type):
            raise VerifyException(
                f"'arith.select' condition must be i1 or a vector/tensor of i1, got {ct}"
            )
        # (rt is of ct's class when the shapes are compared: the isinstance narrows it)
        if (
            type(ct) is not type(rt)
            or not isinstance(rt, VectorType | TensorType)
            or tuple(ct.get_shape()) != tuple(rt.get_shape())
        ):
            raise VerifyException(
                f"'arith.select' condition of type {ct} must have the shape of the result {rt}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> SelectOp:
        cond = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) == 1:
            cond_type, result_type = I1, types[0]
        elif len(types) == 2:
            cond_type, result_type = types
        else:
            parser.raise_error("expected 'result type' or 'condition type, result type'")
        op = cls(
            parser.resolve_operand(cond, cond_type),
            parser.resolve_operand(lhs, result_type),
            parser.resolve_operand(rhs, result_type),
        )
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list((self.cond, self.lhs, self.rhs), printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        if self.is_per_lane:
            printer.print_attribute(self.cond.type)
            printer.print_string(", ")
        printer.print_attribute(self.result.type)


SELECT_OPS = (_XdslSelectOp, SelectOp)

_REPLACED: dict[type[Operation], type[Operation]] = {
    _XdslSelectOp: SelectOp,
    TRUNCI_REPLACES: TruncIOp,
    INDEX_CAST_REPLACES: IndexCastOp,  # vector operands (arith_index_cast.py)
    _xdsl.CmpiOp: CmpiOp,  # vector/tensor-of-i1 results (arith_cmp.py)
    _xdsl.CmpfOp: CmpfOp,
}

Arith = Dialect(
    "arith",
    [_REPLACED.get(op, op) for op in _XdslArith.operations],
    list(_XdslArith.attributes),
    [ArithConstantMaterializationInterface()],
)

__all__ = ["SELECT_OPS", "Arith", "SelectOp"]
