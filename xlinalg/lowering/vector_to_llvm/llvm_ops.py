"""`llvm.extractelement`, which xDSL 0.74's LLVM dialect lacks (upstream syntax)."""

from __future__ import annotations

from xdsl.dialects.builtin import VectorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect


@irdl_op_definition
class ExtractElementOp(IRDLOperation):
    """`llvm.extractelement` (printed in generic form; `emit.py` writes the LLVM IR)."""

    name = "llvm.extractelement"

    vector = operand_def(VectorType)
    position = operand_def()
    res = result_def()

    traits = traits_def(NoMemoryEffect())

    def __init__(self, vector: Operation | SSAValue, position: Operation | SSAValue):
        t = SSAValue.get(vector).type
        assert isinstance(t, VectorType)
        element: Attribute = t.element_type
        super().__init__(operands=[vector, position], result_types=[element])


__all__ = ["ExtractElementOp"]
