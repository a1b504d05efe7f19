"""Tile a consumer and greedily fuse its producers: the payload side of `transform.structured.fuse`.

Upstream's `tileConsumerAndFuseProducersUsingSCF`: the consumer (a linalg op on
tensors) is tiled into an `scf.for` nest (`tile_using_for.py`), or one `scf.forall`
with `use_forall` (`tile_using_forall.py`, the outputs become `shared_outs`); then every
`tensor.extract_slice` with unit strides feeding the tiled op is a candidate
(a rank-reducing one gets a rank-reducing slice of the producer's tile). Its
source is followed through the loops' iteration arguments / `shared_outs` to the value outside the nest;
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

from xlinalg.dialects.scf import ForallOp
from xlinalg.errors import TransformFailure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import IndexBuilder
from xlinalg.transforms.tensor.slices import (
    as_slice_result,
    has_unit_strides,
    mixed_offsets,
    mixed_sizes,
)
from xlinalg.transforms.tiling.fuse import (
    check_fusable_result,
    erase_if_dead,
    tile_producer_at_slice,
)
from xlinalg.transforms.tiling.fuse_cleanup import cleanup_slice
from xlinalg.transforms.tiling.fuse_dims import resolve_result_dims
from xlinalg.transforms.tiling.loops import check_tensor_structured_op
from xlinalg.transforms.tiling.tile_using_for import tile_tensor_op_using_for
from xlinalg.transforms.tiling.tile_using_forall import tile_using_forall


@dataclass(frozen=True)
class FuseResult:
    """The tiled consumer, the loops (outermost first; one `scf.forall` with
    `use_forall`) and the fused producer tiles."""

    tiled_op: Operation
    loops: list[Operation]
    fused: list[Operation]


def _init_of(loop: Operation, arg: SSAValue) -> tuple[SSAValue, int] | None:
    """The init operand an iteration argument / `shared_outs` block argument of `loop`
    is tied to, with its operand index; None for another value."""
    if isinstance(loop, scf.ForOp):
        args = loop.body.block.args[1:]
        if arg.owner is not loop.body.block or arg not in args:
            return None
        index = args.index(arg)
        return loop.iter_args[index], 3 + index
    if isinstance(loop, ForallOp):
        outs = loop.region_out_args
        if arg not in outs:
            return None
        index = outs.index(arg)
        return loop.outputs[index], len(loop.operands) - len(loop.outputs) + index
    return None


def _untiled_source(
    slice_op: tensor.ExtractSliceOp, loops: Sequence[Operation]
) -> tuple[SSAValue, int | None]:
    """The slice's source followed through the loops' iteration arguments (innermost
    first) to the value outside the nest, and the operand index of the outermost loop's
    init it came through (None when the source is not an iteration argument)."""
    source = slice_op.source
    through: int | None = None
    for loop in reversed(loops):
        tied = _init_of(loop, source)
        if tied is None:
            break
        source = tied[0]
        if loop is loops[0]:
            through = tied[1]
    return source, through


def _tiled_reduction(consumer: StructuredOpInterface, sizes: Sequence[int]) -> bool:
    kinds = consumer.get_iterator_types()
    return any(size != 0 and kind == IteratorType.REDUCTION for size, kind in zip(sizes, kinds))


def _tile(
    op: Operation, tile_sizes: Sequence[int], interchange: Sequence[int], use_forall: bool
) -> tuple[Operation, list[Operation]]:
    if not use_forall:
        tiled = tile_tensor_op_using_for(op, tile_sizes, interchange)
        return tiled.tiled_op, list(tiled.loops)
    if not any(tile_sizes):
        return op, []
    # The forall's dimensions follow the loop order whatever `interchange` says:
    # without a mapping the order of a forall's dimensions has no meaning (upstream
    # permutes them; the iterations computed are the same).
    result = tile_using_forall(op, tile_sizes=list(tile_sizes))
    return result.tiled_op, [result.forall]


def tile_and_fuse(
    op: Operation,
    tile_sizes: Sequence[int],
    interchange: Sequence[int] = (),
    *,
    use_forall: bool = False,
    apply_cleanup: bool = False,
) -> FuseResult:
    """Tile `op` by `tile_sizes` (0 = not tiled) in `interchange` order -- into an
    `scf.for` nest, or one `scf.forall` with `use_forall` -- and fuse its producers
    greedily (see the module docstring); `apply_cleanup` first merges each candidate
    slice with the slices/casts it reads (`fuse_cleanup.py`). Silenceable failure
    when `op` cannot be tiled."""
    consumer = check_tensor_structured_op(op, "fuse")
    reduction_tiled = _tiled_reduction(consumer, list(tile_sizes))
    tiled_op, loops = _tile(op, tile_sizes, interchange, use_forall)
    fused: list[Operation] = []
    if not loops:
        return FuseResult(tiled_op, loops, fused)
    nest = loops[0]
    candidates: deque[tensor.ExtractSliceOp] = deque(
        o.owner for o in tiled_op.operands if isinstance(o.owner, tensor.ExtractSliceOp)
    )
    producers: list[Operation] = []
    while candidates:
        slice_op = candidates.popleft()
        if slice_op.parent is None:
            continue
        if apply_cleanup:
            slice_op = cleanup_slice(slice_op)
        if not has_unit_strides(slice_op):
            continue  # upstream tiles producers at unit-stride slices only
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
            nest.operands[through] = producer.get_outputs()[source.index]
        value = as_slice_result(builder, value, slice_op)
        slice_op.result.replace_all_uses_with(value)
        Rewriter.erase_op(slice_op)
        fused.append(tile)
        producers.append(source.op)
        candidates.extend(
            o.owner for o in tile.operands if isinstance(o.owner, tensor.ExtractSliceOp)
        )
    for producer in producers:  # dynamic loop bounds may still read the untiled producer
        if producer.parent is not None:
            resolve_result_dims(producer)
    erase_if_dead(producers)
    return FuseResult(tiled_op, loops, fused)


__all__ = ["FuseResult", "tile_and_fuse"]
