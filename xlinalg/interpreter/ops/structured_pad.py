"""`transform.structured.pad` and `transform.structured.hoist_pad`."""

from __future__ import annotations

from xdsl.dialects import tensor
from xdsl.ir import Operation

from xlinalg.dialects.transform.structured_pad import HoistPadOp, PadOp
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.interpreter.diagnostics import ApplyToEach, Lazy, describe_payload, failure_of
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.ops.structured_fusion import resolve_mixed_ints
from xlinalg.interpreter.registry import register
from xlinalg.transforms.linalg.pad import pad_op
from xlinalg.transforms.tensor.hoist_pad import hoist_pad


@register(PadOp)
def apply_pad(op: PadOp, interp: Interpreter) -> None:
    """Non-linalg ops are dropped; a padding value of the wrong type is a definite failure;
    an op that cannot be padded is a silenceable one (the results hold the ops padded so
    far)."""
    multiples = resolve_mixed_ints(op, interp, op.mixed_multiples(), "pad_to_multiple_of")
    padded: list[Operation] = []
    pads: list[Operation] = []
    copies: list[Operation] = []

    def bind() -> None:
        interp.state.bind(op.padded, padded)
        if len(op.extra) == 2:
            interp.state.bind(op.extra[0], pads)
            interp.state.bind(op.extra[1], copies)

    for target in interp.state.get_ops(op.target, op):
        if not isinstance(target, StructuredOpInterface):
            continue
        with failure_of(op, Lazy("cannot pad {}: ", target), before=bind):
            result = pad_op(
                target,
                op.values(),
                op.dimensions(),
                multiples,
                op.nofold(),
                op.copy_back(),
                op.transposes(),
            )
        padded.append(result.padded_op)
        pads.extend(result.pads)
        copies.extend(result.copies)
    bind()


@register(HoistPadOp)
def apply_hoist_pad(op: HoistPadOp, interp: Interpreter) -> None:
    """A non-pad target is a silenceable failure (and dropped); a pad that cannot be
    hoisted too. Returns the hoisted pads (the ops computing the packed tensor)."""
    hoisted: list[Operation] = []
    each = ApplyToEach(op)
    for target in interp.state.get_ops(op.target, op):
        if not isinstance(target, tensor.PadOp):
            each.fail(f"{describe_payload(target)} is not a 'tensor.pad'")
            continue
        with each.target(Lazy("cannot hoist {}: ", target), silenceable=True):
            hoisted.append(hoist_pad(target, op.loops(), op.permutation()))
    interp.state.bind(op.transformed, hoisted)
    each.finish()
