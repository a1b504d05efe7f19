"""`one_shot_bufferize {test_analysis_only = true}`: annotate the in-place decisions
instead of bufferizing (upstream's `__inplace_operands_attr__`).

The bufferizer runs on a copy of the target while an observer
(`one_shot.DESTINATION_OBSERVERS`) records, for every tensor an op writes (its
destination), whether the bufferizer reuses that tensor's buffer ("true") or
works on a new one ("false", a copy). The original ops then get upstream's
marker: one string per operand, "none" for a non-tensor operand, the decision
for a destination, "true" for a tensor that is only read (reading never needs a
copy), e.g.

    linalg.fill {__inplace_operands_attr__ = ["none", "false"]} ins(%cst : f32) outs(%arg0 : ...)

The decisions are xlinalg's own, not upstream's: function arguments, for
instance, are never written in place here (the caller's array is not modified),
where upstream writes an argument in place when nothing reads it afterwards.
Upstream's `bufferization.access` argument attributes and
`__equivalent_func_args__` are not produced.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import ArrayAttr, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue

INPLACE_ATTR = "__inplace_operands_attr__"


def annotate_inplace_decisions(
    target: Operation, twin: Operation, bufferize: Callable[[Operation], None]
) -> int:
    """Bufferize `twin` (a clone of `target`) with `bufferize` while recording the
    in-place decisions, then annotate the ops of `target` (module docstring). Returns
    the number of annotated ops; errors of `bufferize` propagate (target untouched)."""
    from xlinalg.lowering.bufferize.one_shot import DESTINATION_OBSERVERS

    original_of = dict(zip(twin.walk(), target.walk(), strict=True))
    decisions: dict[tuple[Operation, int], bool] = {}

    def observe(op: Operation, dest: SSAValue, in_place: bool) -> None:
        original = original_of.get(op)
        if original is None:
            return
        # the last operand that is `dest` (destinations follow the inputs: an op reading
        # and writing the same tensor has it first as an input)
        for index in reversed(range(len(op.operands))):
            if op.operands[index] is dest and (original, index) not in decisions:
                decisions[(original, index)] = in_place
                return

    DESTINATION_OBSERVERS.append(observe)
    try:
        bufferize(twin)
    finally:
        DESTINATION_OBSERVERS.remove(observe)
    annotated = 0
    for op in target.walk():
        if not any(isinstance(v.type, TensorType) for v in op.operands):
            continue
        marks = [
            "none"
            if not isinstance(v.type, TensorType)
            else ("true" if decisions.get((op, i), True) else "false")
            for i, v in enumerate(op.operands)
        ]
        op.attributes[INPLACE_ATTR] = ArrayAttr([StringAttr(m) for m in marks])
        annotated += 1
    return annotated


__all__ = ["INPLACE_ATTR", "annotate_inplace_decisions"]
