"""Transposing a pack (or an unpack) and its compute op
(upstream `linalg::packTranspose`, `transform.structured.pack_transpose`).

`outer_perm` permutes the outer (untiled-rank) dims of the packed layout,
`inner_perm` the tiles: the new op has `outer_dims_perm = old_perm∘outer_perm`
(`new[i] = old[outer_perm[i]]`, old = identity when absent) and
`inner_dims_pos`/`inner_tiles` permuted by `inner_perm`. The `linalg.generic`
reading the packed operand gets the same permutation applied to the results of
that operand's indexing map, so it computes the same thing on the new layout.

- target a pack feeding an input of the generic: a new empty + pack, and the
  generic with that operand's map transposed;
- target an unpack of a generic result: the unpack, the generic's output map
  and the pack producing that output's init are all transposed (a `linalg.fill` of
  the packed init, which `pack` makes of pack(fill), is refilled in the new shape).

Every precondition failure is silenceable (the spec's return modes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg.generic import GenericOp
from xlinalg.dialects.linalg.named import named_op_class
from xlinalg.dialects.linalg.pack import PackOp, UnPackOp
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.structured import shape_of
from xlinalg.transforms.linalg.pack import build_pack, packed_empty, relayout_ints


@dataclass(frozen=True)
class PackTransposeResult:
    packed_op: GenericOp
    pack: PackOp | None  # None: the init was a fill, transposed as a fill
    unpack: UnPackOp | None


def _is_permutation(perm: Sequence[int], n: int) -> bool:
    return sorted(perm) == list(range(n))


def _permuted(
    op: PackOp | UnPackOp, outer_perm: Sequence[int], inner_perm: Sequence[int]
) -> tuple[list[int], list[int], list[int] | None]:
    inner, tiles, perm = relayout_ints(op)
    rank = len(shape_of(op.unpacked.type) or ())
    if outer_perm and not _is_permutation(outer_perm, rank):
        raise silenceable_failure(
            f"invalid outer_perm {list(outer_perm)}: expected a permutation of {rank} outer dims"
        )
    if inner_perm and not _is_permutation(inner_perm, len(inner)):
        raise silenceable_failure(
            f"invalid inner_perm {list(inner_perm)}: expected a permutation of {len(inner)} tiles"
        )
    new_perm = perm
    if outer_perm:
        old = perm or list(range(rank))
        new_perm = [old[i] for i in outer_perm]
        if new_perm == list(range(rank)):
            new_perm = None
    if inner_perm:
        inner = [inner[i] for i in inner_perm]
        tiles = [tiles[i] for i in inner_perm]
    return inner, tiles, new_perm


def _transposed_map(
    map_: AffineMap, rank: int, outer_perm: Sequence[int], inner_perm: Sequence[int]
) -> AffineMap:
    results = list(map_.results)
    outer, tiles = results[:rank], results[rank:]
    if outer_perm:
        outer = [outer[i] for i in outer_perm]
    if inner_perm:
        tiles = [tiles[i] for i in inner_perm]
    return AffineMap(map_.num_dims, map_.num_symbols, tuple(outer + tiles))


def _rebuild(generic: GenericOp, operand_index: int, value: SSAValue, map_: AffineMap) -> GenericOp:
    operands = [*generic.inputs, *generic.outputs]
    operands[operand_index] = value
    maps = generic.get_indexing_maps()
    maps[operand_index] = map_
    num_inputs = len(generic.inputs)
    outputs = operands[num_inputs:]
    new = GenericOp(
        operands[:num_inputs],
        outputs,
        generic.body.clone(),
        maps,
        generic.get_iterator_types(),
        [v.type for v in outputs],
        generic.doc,
        generic.library_call,
    )
    new.attributes.update(generic.attributes)
    return new


def _erase_dead_pack(pack: PackOp) -> None:
    """Erase the replaced pack and its destination `tensor.empty` when nothing else uses them."""
    if pack.results[0].uses:
        return
    dest = pack.dest.owner
    Rewriter.erase_op(pack)
    if isinstance(dest, Operation) and dest.name == "tensor.empty" and not dest.results[0].uses:
        Rewriter.erase_op(dest)


def pack_transpose(
    target: Operation, compute: Operation, outer_perm: Sequence[int], inner_perm: Sequence[int]
) -> PackTransposeResult:
    if not outer_perm and not inner_perm:
        raise silenceable_failure("at least one of outer_perm or inner_perm must be given")
    if not isinstance(compute, GenericOp):
        raise silenceable_failure(
            f"the compute op must be a 'linalg.generic', got '{compute.name}'"
        )
    if isinstance(target, PackOp):
        return _transpose_pack(target, compute, outer_perm, inner_perm)
    if isinstance(target, UnPackOp):
        return _transpose_unpack(target, compute, outer_perm, inner_perm)
    raise silenceable_failure(
        f"the target must be a 'linalg.pack' or 'linalg.unpack', got '{target.name}'"
    )


def _transpose_pack(
    pack: PackOp, generic: GenericOp, outer_perm: Sequence[int], inner_perm: Sequence[int]
) -> PackTransposeResult:
    operands = [*generic.inputs, *generic.outputs]
    uses = [i for i, v in enumerate(operands) if v == pack.results[0]]
    if len(uses) != 1:
        raise silenceable_failure(
            f"the pack is not used exactly once by the compute op (found {len(uses)} uses)"
        )
    if uses[0] >= len(generic.inputs):
        raise silenceable_failure(
            "the pack feeds an init of the compute op: target the unpack of its result instead"
        )
    inner, tiles, perm = _permuted(pack, outer_perm, inner_perm)
    rank = len(shape_of(pack.source.type) or ())
    new_pack = build_pack(pack.source, inner, tiles, perm, InsertPoint.before(pack))
    new_map = _transposed_map(generic.get_indexing_maps()[uses[0]], rank, outer_perm, inner_perm)
    new_generic = _rebuild(generic, uses[0], new_pack.results[0], new_map)
    Rewriter.replace_op(generic, new_generic)
    _erase_dead_pack(pack)
    return PackTransposeResult(new_generic, new_pack, None)


def _transpose_unpack(
    unpack: UnPackOp, generic: GenericOp, outer_perm: Sequence[int], inner_perm: Sequence[int]
) -> PackTransposeResult:
    source = unpack.source
    if not isinstance(source, OpResult) or source.owner is not generic:
        raise silenceable_failure("the unpack does not unpack a result of the compute op")
    result_index = source.index
    operand_index = len(generic.inputs) + result_index
    init = generic.outputs[result_index]
    producer = init.owner
    inner, tiles, perm = _permuted(unpack, outer_perm, inner_perm)
    rank = len(shape_of(unpack.dest.type) or ())
    new_pack: PackOp | None = None
    if isinstance(producer, PackOp):
        if relayout_ints(producer) != relayout_ints(unpack):
            raise silenceable_failure(
                "the pack of the init and the unpack of the result use different layouts"
            )
        new_pack = build_pack(producer.source, inner, tiles, perm, InsertPoint.before(producer))
        new_init = new_pack.results[0]
    elif (
        isinstance(producer, Operation)
        and producer.name == "linalg.fill"
        and len(list(init.uses)) == 1
    ):
        # a filled packed init (what `pack` makes of pack(fill)): fill the transposed shape
        ops, empty = packed_empty(unpack.dest, inner, tiles, perm)
        fill = named_op_class("linalg.fill")([producer.operands[0]], [empty.tensor])
        Rewriter.insert_op([*ops, fill], InsertPoint.before(producer))
        new_init = fill.results[0]
    else:
        raise silenceable_failure(
            "could not find the pack (or fill) producing the init of the compute op's unpacked result"
        )
    new_map = _transposed_map(
        generic.get_indexing_maps()[operand_index], rank, outer_perm, inner_perm
    )
    new_generic = _rebuild(generic, operand_index, new_init, new_map)
    Rewriter.insert_op(new_generic, InsertPoint.before(generic))
    new_unpack = UnPackOp(new_generic.res[result_index], unpack.dest, inner, tiles, perm)
    Rewriter.insert_op(new_unpack, InsertPoint.before(unpack))
    Rewriter.replace_op(unpack, [], [new_unpack.results[0]])
    Rewriter.replace_op(generic, [], list(new_generic.res))
    if isinstance(producer, PackOp):
        _erase_dead_pack(producer)
    elif isinstance(producer, Operation):
        dest = producer.operands[1].owner
        Rewriter.erase_op(producer)
        if isinstance(dest, Operation) and dest.name == "tensor.empty" and not dest.results[0].uses:
            Rewriter.erase_op(dest)
    return PackTransposeResult(new_generic, new_pack, new_unpack)


__all__ = ["PackTransposeResult", "pack_transpose"]
