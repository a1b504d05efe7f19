"""`transform.structured.*`: fuse, fuse_into_containing_op, hoist_redundant_tensor_subsets,
bufferize_to_allocation."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import Operation, SSAValue

from xlinalg.dialects.transform.structured_fusion import (
    BufferizeToAllocationOp,
    FuseIntoContainingOp,
    FuseOp,
    HoistRedundantTensorSubsetsOp,
)
from xlinalg.interpreter.diagnostics import Lazy, describe_handle, failure, failure_of
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import register
from xlinalg.transforms.linalg.bufferize_to_allocation import (
    AllocationOptions,
    bufferize_op_to_allocation,
    bufferize_value_to_allocation,
)
from xlinalg.transforms.tensor.hoist_tensor_subsets import hoist_redundant_tensor_subsets
from xlinalg.transforms.tiling.fuse import fuse_into_containing_op
from xlinalg.transforms.tiling.fuse_tile import tile_and_fuse


def resolve_mixed_ints(
    op: Operation, interp: Interpreter, mixed: Sequence[int | SSAValue], what: str
) -> list[int]:
    """Static ints and params (one non-negative integer each) of a mixed list, in order;
    a param holding anything else is a definite failure naming `what`."""
    values: list[int] = []
    for entry in mixed:
        if isinstance(entry, int):
            values.append(entry)
            continue
        params = interp.state.get_params(entry, op)
        if len(params) != 1 or not isinstance(params[0], IntegerAttr) or params[0].value.data < 0:
            raise failure(
                op,
                f"{what} {describe_handle(entry)} must hold one non-negative integer, "
                f"holds {params}",
                silenceable=False,
            )
        values.append(params[0].value.data)
    return values


@register(FuseOp)
def apply_fuse(op: FuseOp, interp: Interpreter) -> None:
    """Tile each target (into `scf.for`s, or one `scf.forall` with `use_forall`) and fuse
    its producers greedily (FunctionalStyle: consumes the target). A target that cannot
    be tiled is a silenceable failure."""
    sizes = resolve_mixed_ints(op, interp, op.mixed_tile_sizes(), "tile size")
    interchange = op.tile_interchange()
    transformed: list[Operation] = []
    loops: list[list[Operation]] = [[] for _ in op.loops]

    def bind_done() -> None:
        interp.state.bind(op.transformed, transformed)
        for handle, slot in zip(op.loops, loops):
            interp.state.bind(handle, slot)

    for target in interp.state.get_ops(op.target, op):
        with failure_of(
            op, Lazy("cannot tile and fuse {} by {}: ", target, sizes), before=bind_done
        ):
            result = tile_and_fuse(
                target,
                sizes,
                interchange,
                use_forall=op.use_forall is not None,
                apply_cleanup=op.apply_cleanup is not None,
            )
        transformed.append(result.tiled_op)
        for slot, loop in zip(loops, result.loops):
            slot.append(loop)
    interp.state.bind(op.transformed, transformed)
    for handle, slot in zip(op.loops, loops):
        interp.state.bind(handle, slot)


# Upstream allows repeated handle operands here: every producer gets fused anyway.
@register(FuseIntoContainingOp)
def apply_fuse_into_containing_op(op: FuseIntoContainingOp, interp: Interpreter) -> None:
    """Consumes the producer handle, reads the containing handle (exactly one op, else a
    definite failure); a producer that cannot be fused is a silenceable failure."""
    containers = interp.state.get_ops(op.containing_op, op)
    if len(containers) != 1:
        raise failure(
            op,
            f"requires exactly one containing op, {describe_handle(op.containing_op)} holds "
            f"{len(containers)}",
            silenceable=False,
        )
    container = containers[0]
    # upstream keeps the producers in a SetVector: a repeated producer is fused once
    producers = list(dict.fromkeys(interp.state.get_ops(op.producer_op, op)))

    def bind_unchanged() -> None:
        interp.state.bind(op.fused_op, [])
        for handle in op.new_containing_op:
            interp.state.bind(handle, [container])

    with failure_of(op, before=bind_unchanged):
        fused, new_container = fuse_into_containing_op(producers, container)
    if new_container is not container:
        interp.state.replace_payload_op(container, new_container)
    interp.state.bind(op.fused_op, fused)
    for handle in op.new_containing_op:
        interp.state.bind(handle, [new_container])


@register(HoistRedundantTensorSubsetsOp)
def apply_hoist_redundant_tensor_subsets(
    op: HoistRedundantTensorSubsetsOp, interp: Interpreter
) -> None:
    """Always succeeds; only reads the target handle (an optional result is bound to the
    same ops)."""
    targets = interp.state.get_ops(op.target, op)
    for target in targets:
        hoist_redundant_tensor_subsets(target)
    for handle in op.transformed:
        interp.state.bind(handle, targets)


@register(BufferizeToAllocationOp)
def apply_bufferize_to_allocation(op: BufferizeToAllocationOp, interp: Interpreter) -> None:
    """Always succeeds (spec): targets without a tensor to allocate (a non-tensor value,
    an op without tensor results or destinations) are dropped from the results."""
    options = AllocationOptions(
        memory_space=op.memory_space,
        memcpy_op=op.memcpy,
        alloc_op=op.alloc,
        destination_only=op.bufferize_destination_only is not None,
        emit_dealloc=op.emit_dealloc is not None,
    )
    buffers: list[SSAValue] = []
    new_ops: list[Operation] = []
    to_tensors: list[Operation] = []
    targets: list[Operation | SSAValue]
    if op.target in interp.state.values:
        targets = list(interp.state.get_values(op.target, op))
    else:
        targets = list(interp.state.get_ops(op.target, op))
    for target in targets:
        if isinstance(target, SSAValue) and not isinstance(target.type, TensorType):
            continue
        with failure_of(op):
            if isinstance(target, SSAValue):
                results = [bufferize_value_to_allocation(target, options)]
            else:
                results = bufferize_op_to_allocation(target, options)
        for result in results:
            buffers.append(result.buffer)
            new_ops.extend(result.new_ops)
            to_tensors.append(result.to_tensor)
    if len(op.results_) == 1:
        interp.state.bind(op.results_[0], to_tensors)
    else:
        interp.state.bind(op.results_[0], buffers)
        interp.state.bind(op.results_[1], new_ops)
