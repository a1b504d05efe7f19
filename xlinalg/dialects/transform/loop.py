"""`transform.loop.*` ops: unroll."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, IntegerType, i64
from xdsl.dialects.transform import TransformHandleType
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
)
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class LoopUnrollOp(IRDLOperation):
    """`transform.loop.unroll %loop {factor = 4} : !transform.any_op` (upstream syntax)."""

    name = "transform.loop.unroll"

    target = operand_def(TransformHandleType)
    factor = prop_def(IntegerAttr[IntegerType])

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$target attr-dict `:` type($target)"

    def __init__(self, target: SSAValue, factor: int):
        super().__init__(operands=[target], properties={"factor": IntegerAttr(factor, i64)})

    def verify_(self) -> None:
        if self.factor.value.data <= 0:
            raise VerifyException(
                f"transform.loop.unroll: factor must be positive, got {self.factor.value.data}"
            )


TransformLoop = Dialect("transform.loop", [LoopUnrollOp])

__all__ = ["LoopUnrollOp", "TransformLoop"]
