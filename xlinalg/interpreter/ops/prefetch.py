"""`transform.xlinalg.prefetch_next_iteration` (our extension op)."""

from __future__ import annotations

from xlinalg.dialects.transform.prefetch import PrefetchNextIterationOp
from xlinalg.interpreter.diagnostics import Lazy, failure_of
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import register
from xlinalg.transforms.scf.prefetch import prefetch_next_iteration


@register(PrefetchNextIterationOp)
def apply_prefetch_next_iteration(op: PrefetchNextIterationOp, interp: Interpreter) -> None:
    for target in interp.state.get_ops(op.target, op):
        with failure_of(op, Lazy("cannot prefetch for {}: ", target)):
            prefetch_next_iteration(target, op.locality.value.data)
