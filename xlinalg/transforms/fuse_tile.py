"""Tile a consumer and greedily fuse its producers: the payload side of `transform.structured.fuse`.

Upstream's `tileConsumerAndFuseProducersUsingSCF`: the consumer (a linalg op on
tensors) is tiled into an `scf.for` nest (`tile_tensor.py`); then every
`tensor.extract_slice` feeding the tiled op is a candidate. Its source is
followed through the loops' iteration arguments to the value outside the nest;
when that is a result of a structured op on tensors, the producer is computed
on just that slice inside the nest (`fuse.tile_producer_at_slice`) and its own
operand slices become candidates in turn. Producers left without uses are
erased.

A slice of an iteration argument is the consumer's *destination*: its producer
(e.g. the `linalg.fill` that initialises a matmul's accumulator) is fused by
computing it into the slice of the iteration argument, and the outermost loop
then starts from the producer's own init. This is only correct when no
reduction loop of the consumer is tiled: inside a tiled reduction loop the
fused fill would re-initialise the accumulator on every step. Upstream
(IREE 3.13) fuses it anyway and computes a different result; we follow the
mathematics and leave such a producer outside the loops.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import scf, tensor
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.errors import TransformFailure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.transforms.affine_utils import IndexBuilder
from xlinalg.transforms.fuse import check_fusable_result, erase_if_dead, tile_producer_at_slice
from xlinalg.transforms.fuse_slices import (
    cast_if_needed,
    is_unit_stride_full_rank,
    mixed_offsets,
    mixed_sizes,
)
from xlinalg.transforms.tile_tensor import check_tensor_structured_op, tile_tensor_op_using_for


@dataclass(frozen=True)
class FuseResult:
    """The tiled consumer, the loops (outermost first) and the fused producer tiles."""

    tiled_op: Operation
    loops: list[scf.ForOp]
    fused: list[Operation]


def _untiled_source(
    slice_op: tensor.ExtractSliceOp, loops: Sequence[scf.ForOp]
) -> tuple[SSAValue, OpResult | None]:
    """The slice's source followed through the loops' iteration arguments (innermost
    first) to the value outside the nest, and the outermost loop's init operand it came
    through (None when the source is not an iteration argument)."""
    source = slice_op.source
    through: OpResult | None = None
    for loop in reversed(loops):
        args = loop.body.block.args
        if source.owner is not loop.body.block or source not in args[1:]:
            break
        index = args.index(source) - 1
        source = loop.iter_args[index]
        if loop is loops[0]:
            through = loop.results[index]
    return source, through


def _tiled_reduction(consumer: StructuredOpInterface, sizes: Sequence[int]) -> bool:
    kinds = consumer.get_iterator_types()
    return any(
        size != 0 and kind == IteratorType.REDUCTION for size, kind in zip(sizes, kinds)
    )


def tile_and_fuse(
    op: Operation, tile_sizes: Sequence[int], interchange: Sequence[int] = ()
) -> FuseResult:
    """Tile `op` by `tile_sizes` (0 = not tiled) in `interchange` order and fuse its
    producers greedily (see the module docstring). Silenceable failure when `op` cannot
    be tiled."""
    consumer = check_tensor_structured_op(op, "fuse")
    reduction_tiled = _tiled_reduction(consumer, list(tile_sizes))
    tiled = tile_tensor_op_using_for(op, tile_sizes, interchange)
    loops = tiled.loops
    fused: list[Operation] = []
    if not loops:
        return FuseResult(tiled.tiled_op, loops, fused)
    nest = loops[0]
    candidates: deque[tensor.ExtractSliceOp] = deque(
        o.owner for o in tiled.tiled_op.operands if isinstance(o.owner, tensor.ExtractSliceOp)
    )
    producers: list[Operation] = []
    while candidates:
        slice_op = candidates.popleft()
        if slice_op.parent is None or not is_unit_stride_full_rank(slice_op):
            continue
        source, through = _untiled_source(slice_op, loops)
        if not isinstance(source, OpResult) or nest.is_ancestor(source.op):
            continue
        try:
            producer = check_fusable_result(source, "fuse")
        except TransformFailure:
            continue
        replacements: dict[SSAValue, SSAValue] = {}
        if through is not None:
            if reduction_tiled:
                continue
            replacements[producer.get_outputs()[source.index]] = slice_op.source
        builder = IndexBuilder(InsertPoint.before(slice_op))
        tile, value = tile_producer_at_slice(
            source, mixed_offsets(slice_op), mixed_sizes(slice_op), builder, replacements
        )
        if through is not None:
            index = through.index
            nest.operands[3 + index] = producer.get_outputs()[source.index]
        value = cast_if_needed(builder, value, slice_op.result.type)
        slice_op.result.replace_all_uses_with(value)
        Rewriter.erase_op(slice_op)
        fused.append(tile)
        producers.append(source.op)
        candidates.extend(
            o.owner for o in tile.operands if isinstance(o.owner, tensor.ExtractSliceOp)
        )
    erase_if_dead(producers)
    return FuseResult(tiled.tiled_op, loops, fused)


__all__ = ["FuseResult", "tile_and_fuse"]
