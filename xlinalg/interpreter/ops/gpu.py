"""`transform.gpu.map_forall_to_blocks` / `map_nested_forall_to_threads` (see
`xlinalg/transforms/scf/gpu_mapping.py` for the semantics and failure modes)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation

from xlinalg.dialects.gpu import LaunchOp
from xlinalg.dialects.transform.gpu import MapForallToBlocksOp, MapNestedForallToThreadsOp
from xlinalg.interpreter.diagnostics import describe_payload, failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import register
from xlinalg.transforms.scf.gpu_mapping import (
    MappingFailure,
    map_forall_to_blocks,
    map_nested_forall_to_threads,
)


def _map_each(
    op: MapForallToBlocksOp | MapNestedForallToThreadsOp,
    interp: Interpreter,
    mapping: Callable[[Operation], LaunchOp],
) -> None:
    """Apply `mapping` to every target; bind the result to the launches."""
    launches: list[Operation] = []
    for target in interp.state.get_ops(op.target, op):
        try:
            launches.append(mapping(target))
        except MappingFailure as err:
            raise failure(
                op,
                f"{err.message} (when applied to {describe_payload(target)})",
                silenceable=err.silenceable,
            ) from None
    interp.state.bind(op.result, launches)


@register(MapForallToBlocksOp)
def apply_map_forall_to_blocks(op: MapForallToBlocksOp, interp: Interpreter) -> None:
    grid = op.ints("grid_dims")
    generate = op.generate_gpu_launch is not None
    _map_each(op, interp, lambda target: map_forall_to_blocks(target, grid, generate))


@register(MapNestedForallToThreadsOp)
def apply_map_nested_forall_to_threads(op: MapNestedForallToThreadsOp, interp: Interpreter) -> None:
    block = op.ints("block_dims")
    _map_each(
        op,
        interp,
        lambda target: map_nested_forall_to_threads(target, block, op.sync, op.warp_size_value),
    )
