"""`transform.loop.unroll`."""

from __future__ import annotations

from xdsl.dialects import scf

from xlinalg.dialects.transform.loop import LoopUnrollOp
from xlinalg.errors import TransformFailure
from xlinalg.interpreter.diagnostics import describe_payload, failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import register


@register(LoopUnrollOp, consumes=lambda op: [op.target])
def apply_loop_unroll(op: LoopUnrollOp, interp: Interpreter) -> None:
    from xlinalg.transforms.unroll import unroll_for

    factor = op.factor.value.data
    for loop in interp.state.get_ops(op.target, op):
        if not isinstance(loop, scf.ForOp):
            raise failure(
                op, f"expected scf.for loops, got {describe_payload(loop)}", silenceable=True
            )
        try:
            unroll_for(loop, factor)
        except TransformFailure as err:
            raise failure(
                op,
                f"failed to unroll {describe_payload(loop)} by {factor}: {err.message}",
                silenceable=err.silenceable,
            ) from err
