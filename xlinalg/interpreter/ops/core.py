"""Core ops: sequence, param.constant."""

from __future__ import annotations

from xlinalg.dialects.transform.core import ParamConstantOp, SequenceOp
from xlinalg.interpreter.diagnostics import failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import register


@register(SequenceOp)
def apply_sequence(op: SequenceOp, interp: Interpreter) -> None:
    """Nested `transform.sequence %root : T failures(...)`: bind the block args, run the body."""
    block = op.body.block
    if op.root is None:
        raise failure(
            op,
            "a nested transform.sequence needs a root operand (only a top-level sequence may omit it)",
            silenceable=False,
        )
    operands = [op.root, *op.extra_bindings]
    for arg, operand in zip(block.args, operands):
        interp.state.bind_like(arg, operand, op)
    yielded = interp.run_block(block, suppress=op.suppresses_failures)
    interp.forward(yielded, op.results_, op)


@register(ParamConstantOp)
def apply_param_constant(op: ParamConstantOp, interp: Interpreter) -> None:
    interp.state.bind(op.param, [op.value])
