"""`transform.structured.convert_conv2d_to_img2col` (spec [002]; syntax as upstream:
`%img2col, %transformed = transform.structured.convert_conv2d_to_img2col %conv
: (!transform.any_op) -> (!transform.any_op, !transform.any_op)`)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.transform import TransformHandleType
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def

from xlinalg.dialects.transform.effects import ConsumesTarget
from xlinalg.dialects.transform.printing import TargetPropsMixin


@irdl_op_definition
class ConvertConv2DToImg2ColOp(TargetPropsMixin, IRDLOperation, ConsumesTarget):
    """Returns a handle to the op producing the img2col tensor and one to the
    final op of the sequence replacing the convolution (the reshape)."""

    name = "transform.structured.convert_conv2d_to_img2col"
    NUM_RESULTS: ClassVar[int] = 2

    target = operand_def(TransformHandleType)
    img2col_tensor = result_def(TransformHandleType)
    transformed = result_def(TransformHandleType)


STRUCTURED_CONV_OPS: list[type[IRDLOperation]] = [ConvertConv2DToImg2ColOp]

__all__ = ["STRUCTURED_CONV_OPS", "ConvertConv2DToImg2ColOp"]
