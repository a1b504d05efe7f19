"""`transform.structured.pack`, `pack_greedily`, `pack_transpose`, `lower_pack`, `lower_unpack`.

Return modes (spec [002] + upstream):
- pack: a single Linalg op on tensors with one size per loop, else a silenceable
  failure (as iree-opt: "requires target to map to exactly 1 LinalgOp"); failures of the
  packing itself are definite. Consumes the target.
- pack_greedily: non-Linalg ops are dropped; an op without a matmul is returned as is.
- pack_transpose: one pack/unpack and one linalg.generic, else silenceable; ill-formed perms or
  a failed transposition are silenceable. Consumes both targets.
- lower_pack / lower_unpack: non-pack (non-unpack) ops are dropped; a failed rewrite is silenceable.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue

from xlinalg.dialects.linalg.pack import PackOp as PayloadPackOp
from xlinalg.dialects.linalg.pack import UnPackOp as PayloadUnPackOp
from xlinalg.dialects.transform.structured_pack import (
    ApplyFoldUnitExtentDimsViaSlicesPatternsOp,
    LowerPackOp,
    LowerUnPackOp,
    PackGreedilyOp,
    PackOp,
    PackTransposeOp,
    _ints,
)
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.interpreter.diagnostics import (
    ApplyToEach,
    Lazy,
    describe_handle,
    describe_payload,
    failure,
    failure_of,
)
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.ops.structured import _size_params
from xlinalg.interpreter.registry import PatternSet, register, register_patterns
from xlinalg.transforms.linalg.fold_unit_dims import fold_unit_dims_in
from xlinalg.transforms.linalg.pack import pack_op
from xlinalg.transforms.linalg.pack_greedily import pack_greedily
from xlinalg.transforms.linalg.pack_lower import lower_pack, lower_unpack
from xlinalg.transforms.linalg.pack_transpose import pack_transpose


def _sizes(
    op: PackOp | PackGreedilyOp, interp: Interpreter, mixed: Sequence[int | SSAValue]
) -> list[int]:
    return [s if isinstance(s, int) else _size_params(op, interp, s, 1)[0] for s in mixed]


@register(PackOp)
def apply_pack(op: PackOp, interp: Interpreter) -> None:
    targets = interp.state.get_ops(op.target, op)
    if len(targets) != 1 or not isinstance(targets[0], StructuredOpInterface):
        raise failure(
            op,
            f"requires target to map to exactly 1 LinalgOp, {describe_handle(op.target)} holds "
            + (", ".join(describe_payload(t) for t in targets) or "nothing"),
            silenceable=True,
        )
    sizes = _sizes(op, interp, op.get_mixed_sizes())
    with failure_of(op, Lazy("cannot pack {} by {}: ", targets[0], sizes)):
        result = pack_op(targets[0], sizes)
    interp.state.bind(op.packed_op, [result.packed_op])


@register(PackGreedilyOp)
def apply_pack_greedily(op: PackGreedilyOp, interp: Interpreter) -> None:
    sizes = _sizes(op, interp, op.get_mixed_sizes())
    results: list[Operation] = []
    for target in interp.state.get_ops(op.target, op):
        if not isinstance(target, StructuredOpInterface):
            continue
        with failure_of(op, Lazy("cannot pack {}: ", target)):
            packed = pack_greedily(target, sizes, op.padded_multiples(), op.inner_dims_order())
        results.append(target if packed is None else packed.packed_op)
    interp.state.bind(op.packed_op, results)


@register(PackTransposeOp)
def apply_pack_transpose(op: PackTransposeOp, interp: Interpreter) -> None:
    targets = interp.state.get_ops(op.target_pack_or_un_pack_op, op)
    computes = interp.state.get_ops(op.target_linalg_op, op)
    if len(targets) != 1 or len(computes) != 1:
        raise failure(
            op,
            f"requires exactly one target pack/unpack op ({len(targets)} given) and one compute op "
            f"({len(computes)} given)",
            silenceable=True,
        )
    if not isinstance(targets[0], PayloadPackOp | PayloadUnPackOp):
        raise failure(
            op,
            f"requires a linalg.pack or linalg.unpack target, got {describe_payload(targets[0])}",
            silenceable=True,
        )
    with failure_of(op, Lazy("cannot transpose {}: ", targets[0])):
        result = pack_transpose(targets[0], computes[0], _ints(op.outer_perm), _ints(op.inner_perm))
    interp.state.bind(op.packed_op, [result.packed_op])
    interp.state.bind(op.pack_op, [] if result.pack is None else [result.pack])
    interp.state.bind(op.un_pack_op, [] if result.unpack is None else [result.unpack])


@register(LowerPackOp)
def apply_lower_pack(op: LowerPackOp, interp: Interpreter) -> None:
    slots: list[list[Operation]] = [[], [], []]

    each = ApplyToEach(op)
    for target in interp.state.get_ops(op.target, op):
        if not isinstance(target, PayloadPackOp):
            continue
        with each.target(silenceable=True):
            lowered = lower_pack(target, op.pad_like_with_insert_slice())
            # a pad-like pack has no expand_shape / transpose: those handles get nothing
            for slot, new in zip(slots, (lowered.pad, lowered.expand_shape, lowered.transpose)):
                if new is not None:
                    slot.append(new)
    for handle, slot in zip(op.results, slots):
        interp.state.bind(handle, slot)
    each.finish()


@register(LowerUnPackOp)
def apply_lower_unpack(op: LowerUnPackOp, interp: Interpreter) -> None:
    with_copy = len(op.results_) == 5
    slots: list[list[Operation]] = [[] for _ in op.results_]

    each = ApplyToEach(op)
    for target in interp.state.get_ops(op.target, op):
        if not isinstance(target, PayloadUnPackOp):
            continue
        with each.target(silenceable=True):
            lowered = lower_unpack(target, with_copy=with_copy)
            new = [
                lowered.empty,
                lowered.transpose,
                lowered.collapse_shape,
                lowered.extract_slice,
                lowered.copy,
            ]
            for slot, value in zip(slots, new):
                assert value is not None
                slot.append(value)
    for handle, slot in zip(op.results_, slots):
        interp.state.bind(handle, slot)
    each.finish()


def _fold_unit_extent_dims(descriptor: Operation, target: Operation) -> None:
    fold_unit_dims_in(target)


register_patterns(
    ApplyFoldUnitExtentDimsViaSlicesPatternsOp, PatternSet(rewrite=_fold_unit_extent_dims)
)
