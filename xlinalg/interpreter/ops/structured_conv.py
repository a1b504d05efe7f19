"""`transform.structured.convert_conv2d_to_img2col` (TransformEachOpTrait).

Return modes: the spec says "a definite failure if target is not isolated from
above" — no convolution is ever isolated from above, so read literally the op
could never apply; upstream applies the pattern to each target and reports a
silenceable failure when it does not apply. We follow upstream and the
description's example: every payload op that is not a supported 2-D convolution
on static tensors is a silenceable failure (the handles hold the ops converted
before it).
"""

from __future__ import annotations

from xdsl.ir import Operation

from xlinalg.dialects.transform.structured_conv import ConvertConv2DToImg2ColOp
from xlinalg.interpreter.diagnostics import ApplyToEach, Lazy
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import register
from xlinalg.transforms.linalg.img2col import convert_conv2d_to_img2col


@register(ConvertConv2DToImg2ColOp)
def apply_convert_conv2d_to_img2col(op: ConvertConv2DToImg2ColOp, interp: Interpreter) -> None:
    cols: list[Operation] = []
    replaced: list[Operation] = []

    each = ApplyToEach(op)
    for target in interp.state.get_ops(op.target, op):
        with each.target(Lazy("cannot convert {} to img2col: ", target), silenceable=True):
            col, reshape = convert_conv2d_to_img2col(target)
            cols.append(col)
            replaced.append(reshape)
    interp.state.bind(op.img2col_tensor, cols)
    interp.state.bind(op.transformed, replaced)
    each.finish()
