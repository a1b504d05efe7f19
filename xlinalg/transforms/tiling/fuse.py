"""Producer fusion on tensors: `fuse_into_containing_op` and `fuse` (tile + greedy fusion).

The payload side of `transform.structured.fuse_into_containing_op`, following
upstream's three strategies, tried in this order for each producer:

1. **tile and fuse through an `extract_slice`**: a `tensor.extract_slice` of a
   producer result inside the containing op is replaced by the producer
   computed on just that slice (`tile_producer_at_slice`): the loop-space
   offsets/sizes come from the result's indexing map (a projected
   permutation), every operand of the producer is sliced accordingly. As
   upstream, an init of the producer that is also an init of an enclosing
   `scf.for` inside the container is replaced by that loop's iteration
   argument (so the tile is computed in place) -- only when the producer does
   not read its init. A rank-reducing slice gets the full-rank tile followed by
   a rank-reducing `extract_slice` of it; a slice with non-unit strides is not
   tiled (upstream's tiling takes unit strides only) and falls back to cloning.
   On an `scf.forall` containing op, when the producer
   still has uses after the loop, the forall gets a new `shared_outs` operand
   and yields the fused tile there, and those uses read the new result
   (upstream's "new containing op");
2. **through a `shared_outs` block argument** (`scf.forall` only): a producer
   result passed as a `shared_outs` operand whose block argument is sliced
   inside is computed per tile into that slice, and the forall's operand
   becomes the producer's own init;
3. **clone and fuse**: any other use inside the containing op gets a clone of
   the whole producer right before it.

A producer with several uses inside is fused once per use (as upstream).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.ir.affine import AffineDimExpr
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.scf import ForallOp
from xlinalg.dialects.tensor import ParallelInsertSliceOp
from xlinalg.errors import TransformFailure, silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.interfaces.tiling import TilingInterface
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.transforms.bufferization.analysis import StructuredReads
from xlinalg.transforms.tensor.slices import (
    as_slice_result,
    extract_slice,
    has_unit_strides,
    mixed_offsets,
    mixed_sizes,
)
from xlinalg.transforms.tiling.loops import (
    check_tensor_structured_op,
    offset_indices,
    slice_parameters,
    tensor_loop_ranges,
)


def reads_outputs(op: StructuredOpInterface) -> bool:
    """Whether the op's payload reads its inits (reductions always do); asked afresh
    (a new memo) since fusion rewrites the IR between two questions."""
    return StructuredReads()(op)


def check_fusable_result(result: OpResult, what: str) -> StructuredOpInterface:
    """The producer of `result` as a structured op on tensors whose indexing map for
    that result is a projected permutation; else a silenceable failure."""
    producer = check_tensor_structured_op(result.op, what)
    num_inputs = len(producer.get_inputs())
    amap = producer.get_indexing_maps()[num_inputs + result.index]
    positions = [e.position for e in amap.results if isinstance(e, AffineDimExpr)]
    if len(positions) != len(amap.results) or len(set(positions)) != len(positions):
        raise silenceable_failure(
            f"{what}: the indexing map {amap} of result #{result.index} of '{result.op.name}' "
            "is not a projected permutation; its tile cannot be computed from a slice"
        )
    return producer


def tile_producer_at_slice(
    result: OpResult,
    offsets: Sequence[OpFoldResult],
    sizes: Sequence[OpFoldResult],
    builder: IndexBuilder,
    init_replacements: dict[SSAValue, SSAValue] | None = None,
) -> tuple[Operation, SSAValue]:
    """Compute the tile `[offsets] [sizes]` of `result` (a result of a structured op on
    tensors) at `builder`: every operand sliced, the op cloned on the slices.
    `init_replacements` maps inits of the producer to the tensor to slice instead.
    Returns the tiled op and its value for that result."""
    producer = check_fusable_result(result, "fusion")
    num_inputs = len(producer.get_inputs())
    maps = producer.get_indexing_maps()
    out_map = maps[num_inputs + result.index]
    ranges = tensor_loop_ranges(producer, builder)
    ivs: list[OpFoldResult] = [0] * len(ranges)
    extents: list[OpFoldResult] = list(ranges)
    for expr, offset, size in zip(out_map.results, offsets, sizes, strict=True):
        assert isinstance(expr, AffineDimExpr)
        ivs[expr.position] = offset
        extents[expr.position] = size
    replacements = init_replacements or {}
    operands: list[SSAValue] = []
    for position, (value, amap) in enumerate(zip(producer.get_operands_in_order(), maps)):
        if shape_of(value.type) is None:
            operands.append(value)
            continue
        source = replacements.get(value, value) if position >= num_inputs else value
        slice_offsets, slice_sizes = slice_parameters(builder, amap, ivs, extents)
        operands.append(extract_slice(builder, source, slice_offsets, slice_sizes))
    outs = operands[num_inputs:]
    tiled = producer.clone_with_operands(operands[:num_inputs], outs, [v.type for v in outs])
    builder.insert(tiled)
    offset_indices(tiled, ivs)
    return tiled, tiled.results[result.index]


def _loops_between(inner: Operation, outer: Operation) -> list[Operation]:
    """The loop ops enclosing `inner` up to and including `outer`, outermost first."""
    chain: list[Operation] = []
    parent = inner.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp | ForallOp):
            chain.append(parent)
        if parent is outer:
            break
        parent = parent.parent_op()
    return list(reversed(chain))


def loop_carried_inits(
    producer: StructuredOpInterface, where: Operation, container: Operation
) -> dict[SSAValue, SSAValue]:
    """Upstream's in-place fusion: an init of the producer that is also the init of an
    enclosing `scf.for` (from `container` down to `where`) is read through that loop's
    innermost iteration argument instead. Only for producers that do not read their inits
    (the iteration argument holds earlier iterations' results, not the init)."""
    if reads_outputs(producer):
        return {}
    found: dict[SSAValue, SSAValue] = {}
    for init in producer.get_outputs():
        current: SSAValue = init
        for loop in _loops_between(where, container):
            if not isinstance(loop, scf.ForOp):
                break
            inits = list(loop.iter_args)
            if current not in inits:
                break
            current = loop.body.block.args[1 + inits.index(current)]
        if current is not init:
            found[init] = current
    return found


@dataclass
class FusionStep:
    """One fusion: the new ops inside the container and the (possibly new) container."""

    fused: list[Operation]
    container: Operation


def _uses_inside(result: SSAValue, container: Operation) -> list[Operation]:
    return [u.operation for u in result.uses if container.is_ancestor(u.operation)]


def _tile_through_extract(producer: Operation, container: Operation) -> FusionStep | None:
    """Strategy 1 (see the module docstring); None when no slice of a result is inside."""
    for result in producer.results:
        for user in _uses_inside(result, container):
            if not isinstance(user, tensor.ExtractSliceOp) or user.source is not result:
                continue
            if not has_unit_strides(user):
                continue  # upstream's tiling takes unit strides only: cloned instead
            if not isinstance(producer, StructuredOpInterface) and isinstance(
                producer, TilingInterface
            ):
                if isinstance(container, ForallOp) and _uses_after(result, container):
                    continue  # the forall would have to yield the tile: left to cloning
                builder = IndexBuilder(InsertPoint.before(user))
                value = producer.generate_result_tile_value(
                    builder, result.index, mixed_offsets(user), mixed_sizes(user)
                )
                value = as_slice_result(builder, value, user)
                user.result.replace_all_uses_with(value)
                Rewriter.erase_op(user)
                assert isinstance(value, OpResult)
                return FusionStep([value.owner], container)
            structured = check_fusable_result(result, "fuse_into_containing_op")
            builder = IndexBuilder(InsertPoint.before(user))
            offsets, sizes = mixed_offsets(user), mixed_sizes(user)
            replacements = loop_carried_inits(structured, user, container)
            tiled, value = tile_producer_at_slice(result, offsets, sizes, builder, replacements)
            value = as_slice_result(builder, value, user)
            user.result.replace_all_uses_with(value)
            Rewriter.erase_op(user)
            new_container = container
            if isinstance(container, ForallOp) and _uses_after(result, container):
                new_container = _yield_from_forall(container, result, tiled, offsets, sizes)
            return FusionStep([tiled], new_container)
    return None


def _uses_after(result: SSAValue, container: Operation) -> list[Operation]:
    block = container.parent_block()
    return [
        u.operation
        for u in result.uses
        if not container.is_ancestor(u.operation)
        and block is not None
        and _after_in_block(block, container, u.operation)
    ]


def _after_in_block(block: Block, anchor: Operation, op: Operation) -> bool:
    top = op
    while top.parent_block() is not block:
        parent = top.parent_op()
        if parent is None:
            return False
        top = parent
    return block.get_operation_index(top) > block.get_operation_index(anchor)


def _yield_from_forall(
    forall: ForallOp,
    result: OpResult,
    tiled: Operation,
    offsets: Sequence[OpFoldResult],
    sizes: Sequence[OpFoldResult],
) -> ForallOp:
    """A new forall with one more `shared_outs` (initialised from the producer's init for
    `result`) into which the fused tile is inserted; the producer's uses after the loop
    read the new result."""
    structured = result.op
    assert isinstance(structured, StructuredOpInterface)
    init = structured.get_outputs()[result.index]
    outputs = [*forall.outputs, init]
    body = forall.body
    forall.region.detach_block(body)
    new_arg = body.insert_arg(init.type, len(body.args))
    new = ForallOp(
        forall.lower_bounds(), forall.upper_bounds(), forall.steps(), outputs, forall.mapping, body
    )
    Rewriter.insert_op(new, InsertPoint.before(forall))
    after = _uses_after(result, forall)
    for old, replacement in zip(forall.results, new.results):
        old.replace_all_uses_with(replacement)
    Rewriter.erase_op(forall)
    terminator = new.terminator
    terminator_block = terminator.region.block
    tile = tiled.results[result.index]
    insert = ParallelInsertSliceOp(tile, new_arg, list(offsets), list(sizes), [1] * len(offsets))
    terminator_block.add_op(insert)
    new_result = new.results[-1]
    for user in after:
        for operand_index, operand in enumerate(user.operands):
            if operand is result:
                user.operands[operand_index] = new_result
    return new


def _tile_through_block_argument(producer: Operation, container: Operation) -> FusionStep | None:
    """Strategy 2 (see the module docstring): `scf.forall` only."""
    if not isinstance(container, ForallOp):
        return None
    for result in producer.results:
        for use in list(result.uses):
            if use.operation is not container:
                continue
            out_index = use.index - (len(container.operands) - len(container.outputs))
            if out_index < 0:
                continue
            arg = container.region_out_args[out_index]
            slices = [
                u.operation
                for u in arg.uses
                if isinstance(u.operation, tensor.ExtractSliceOp) and has_unit_strides(u.operation)
            ]
            if not slices:
                continue
            user = slices[0]
            structured = check_fusable_result(result, "fuse_into_containing_op")
            init = structured.get_outputs()[result.index]
            builder = IndexBuilder(InsertPoint.before(user))
            offsets, sizes = mixed_offsets(user), mixed_sizes(user)
            tiled, value = tile_producer_at_slice(result, offsets, sizes, builder, {init: arg})
            value = as_slice_result(builder, value, user)
            user.result.replace_all_uses_with(value)
            Rewriter.erase_op(user)
            container.operands[use.index] = init
            return FusionStep([tiled], container)
    return None


def _clone_into_first_use(producer: Operation, container: Operation) -> FusionStep | None:
    """Strategy 3: a clone of the whole producer right before its first use inside."""
    for result in producer.results:
        users = _uses_inside(result, container)
        if not users:
            continue
        user = users[0]
        clone = producer.clone()
        Rewriter.insert_op(clone, InsertPoint.before(user))
        for operand_index, operand in enumerate(user.operands):
            if operand is result:
                user.operands[operand_index] = clone.results[result.index]
        return FusionStep([clone], container)
    return None


def fuse_into_containing_op(
    producers: Sequence[Operation], container: Operation
) -> tuple[list[Operation], Operation]:
    """Fuse every producer (one by one, each use inside the container once) into
    `container`; returns the fused ops and the containing op (new when a forall grew a
    result). Raises a silenceable `TransformFailure` when a producer cannot be fused
    (no use inside the container, or tiling fails)."""
    remaining = list(producers)
    fused: list[Operation] = []
    if not remaining:
        return fused, container
    while remaining:
        producer = next(
            (p for p in remaining if any(_uses_inside(r, container) for r in p.results)), None
        )
        if producer is None:
            names = ", ".join(f"'{p.name}'" for p in remaining)
            raise silenceable_failure(
                f"could not find next producer to fuse into the container: {names} "
                "has no use inside it"
            )
        uses = sum(len(_uses_inside(r, container)) for r in producer.results)
        if uses == 1:
            remaining.remove(producer)
        if container.is_ancestor(producer):
            raise silenceable_failure(
                f"the producer '{producer.name}' is already inside the containing op"
            )
        step = None
        try:
            step = _tile_through_extract(producer, container)
        except TransformFailure:
            step = None  # not tileable: fall back to cloning, as upstream does
        if step is None:
            try:
                step = _tile_through_block_argument(producer, container)
            except TransformFailure:
                step = None
        if step is None:
            step = _clone_into_first_use(producer, container)
        assert step is not None
        fused.extend(step.fused)
        container = step.container
    erase_if_dead(producers)
    return fused, container


def erase_if_dead(ops: Sequence[Operation]) -> None:
    """Erase the structured ops on tensors among `ops` whose results are no longer used
    (upstream leaves them to a later canonicalization; our pipeline has none, and a dead
    op on tensors would still be computed)."""
    for op in ops:
        if (
            op.parent is not None
            and isinstance(op, StructuredOpInterface | TilingInterface)
            and op.results
            and all(isinstance(r.type, TensorType) for r in op.results)
            and not any(r.uses for r in op.results)
        ):
            Rewriter.erase_op(op)


__all__ = [
    "FusionStep",
    "check_fusable_result",
    "erase_if_dead",
    "fuse_into_containing_op",
    "loop_carried_inits",
    "reads_outputs",
    "tile_producer_at_slice",
]
