"""The `transform.vector.*` lowering ops (seed 002): run the op's payload rewrite on each
target and return the targets (FunctionalStyle + TransformEach + TransformWithPatterns).

Upstream's TransformWithPatternsOpTrait applies patterns greedily, which needs an
isolated-from-above target (a function, a module): anything else is a definite
failure, as upstream's "applies only to isolated-from-above targets". Patterns that
do not apply leave their op alone (no failure); an error inside a rewrite is a
definite failure naming the target.
"""

from __future__ import annotations

from xdsl.traits import IsolatedFromAbove

from xlinalg.dialects.transform.vector_lowering_ops import VECTOR_LOWERING_OPS
from xlinalg.errors import XlinalgError
from xlinalg.interpreter.diagnostics import describe_payload, failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.ops.patterns import tracking
from xlinalg.interpreter.registry import register


def apply_vector_lowering(op, interp: Interpreter) -> None:
    targets = interp.state.get_ops(op.target, op)
    for target in targets:
        if target.get_trait(IsolatedFromAbove) is None:
            raise failure(op, f"applies only to isolated-from-above targets (it applies "
                          f"patterns greedily), got {describe_payload(target)}",
                          silenceable=False)
    with tracking(interp, targets):
        for target in targets:
            try:
                op.rewrite(target)
            except XlinalgError as err:
                raise failure(op, f"pattern application failed on {describe_payload(target)}: "
                              f"{err}", silenceable=False) from err
    interp.state.bind(op.transformed, targets)


for _cls in VECTOR_LOWERING_OPS:
    register(_cls)(apply_vector_lowering)
