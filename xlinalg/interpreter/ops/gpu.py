"""`transform.gpu.map_forall_to_blocks` / `map_nested_forall_to_threads` (see
`xlinalg/transforms/gpu_mapping.py` for the semantics and failure modes)."""

from __future__ import annotations

from xdsl.ir import Operation

from xlinalg.dialects.transform.gpu import MapForallToBlocksOp, MapNestedForallToThreadsOp
from xlinalg.interpreter.diagnostics import describe_payload, failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import register
from xlinalg.transforms.gpu_mapping import (
    MappingFailure,
    map_forall_to_blocks,
    map_nested_forall_to_threads,
)


@register(MapForallToBlocksOp, consumes=lambda op: [op.target])
def apply_map_forall_to_blocks(op: MapForallToBlocksOp, interp: Interpreter) -> None:
    launches: list[Operation] = []
    for target in interp.state.get_ops(op.target, op):
        try:
            launches.append(
                map_forall_to_blocks(
                    target, op.ints("grid_dims"), op.generate_gpu_launch is not None
                )
            )
        except MappingFailure as err:
            raise failure(
                op, f"{err.message} (when applied to {describe_payload(target)})",
                silenceable=err.silenceable,
            ) from None
    interp.state.bind(op.result, launches)


@register(MapNestedForallToThreadsOp, consumes=lambda op: [op.target])
def apply_map_nested_forall_to_threads(op: MapNestedForallToThreadsOp, interp: Interpreter) -> None:
    launches: list[Operation] = []
    for target in interp.state.get_ops(op.target, op):
        try:
            launches.append(
                map_nested_forall_to_threads(
                    target, op.ints("block_dims"), op.sync, op.warp_size_value
                )
            )
        except MappingFailure as err:
            raise failure(
                op, f"{err.message} (when applied to {describe_payload(target)})",
                silenceable=err.silenceable,
            ) from None
    interp.state.bind(op.result, launches)
