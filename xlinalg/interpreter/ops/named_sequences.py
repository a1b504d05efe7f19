"""`transform.named_sequence`: a definition when the interpreter meets it; `run_named_sequence`
runs one for its callers (`transform.include`, `transform.foreach_match`)."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from xlinalg.dialects.transform.named_sequences import NamedSequenceOp
from xlinalg.interpreter.diagnostics import failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import register


@register(NamedSequenceOp)
def apply_named_sequence(op: NamedSequenceOp, interp: Interpreter) -> None:
    """A named sequence met while interpreting is a definition: nothing to do."""


def run_named_sequence(
    callee: NamedSequenceOp,
    args: list[SSAValue],
    caller: Operation,
    interp: Interpreter,
    *,
    suppress: bool = False,
) -> list[SSAValue]:
    """Run `callee` with its block args bound like `args`; return the yielded handles."""
    if callee in interp.call_stack:
        chain = " -> ".join(f"@{c.sym_name.data}" for c in [*interp.call_stack, callee])
        raise failure(
            caller, f"recursion is not allowed in named sequences ({chain})", silenceable=False
        )
    block = callee.body.block
    if len(block.args) != len(args):
        raise failure(
            caller,
            f"@{callee.sym_name.data} takes {len(block.args)} arguments, got {len(args)}",
            silenceable=False,
        )
    for arg, value in zip(block.args, args):
        interp.state.bind_like(arg, value, caller)
    interp.call_stack.append(callee)
    try:
        return interp.run_block(block, suppress=suppress)
    finally:
        interp.call_stack.pop()


__all__ = ["run_named_sequence"]
