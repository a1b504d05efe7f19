"""`TilingInterface` for ops that are not linalg structured ops (LinalgExt, and the
hand-written linalg ops softmax, pack/unpack and the winograd transforms).

As upstream's `TilingInterface`: an op exposes its iteration domain (loop
ranges and iterator types) and builds the op computing one tile from the tile's
offsets and sizes (`get_tiled_implementation`). `tile_using_interface` is the
driver `transform.structured.tile_using_for` calls for such ops (via
`xlinalg.transforms.tiling.tile.tile_using_for`); it creates the same `scf.for` nest
as for linalg ops (`generate_tile_loops`) and asks the op for its tile.

The same implementation serves memrefs and tensors: operands are sliced with
`slice_of` (`memref.subview` or `tensor.extract_slice`). On tensors the loops
carry the op's destinations (`tile_tensor.carry_through_loops`); the op is asked
for its tile with its destinations replaced by the loop-carried values, and
each tile result goes back with a `tensor.insert_slice` at the position of the
slice it was computed into (upstream's `getResultTilePosition`, which for these
destination-style ops is that slice), or at the position the tile names
(`TiledImplementation.positions`, e.g. an unpack tile computed into a fresh
tensor and cut out of it).

An op may rewrite itself before tiling (`prepare_for_tiling`): attention, asked
to tile its key/value (reduction) loop, first becomes its online-softmax form
(running max and sum) so that the key/value tiles can be processed one after
another (FlashAttention-2).

For fusion into a loop (`fuse_into_containing_op`) and for other loop
generators (`tile_using_forall`): `get_iteration_domain_tile_from_result_tile`
maps a tile of one result to the iteration-domain tile computing it, and
`generate_result_tile_value` builds that tile and returns the result's tile
value (upstream's `generateResultTileValue`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.dialects import memref, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, MemRefType, ShapedType, TensorType
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.errors import TransformFailure
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, fold_constant
from xlinalg.ir.subview_type import strides_and_offset, subview_result_type

if TYPE_CHECKING:
    from xlinalg.transforms.tiling.tile import TilingResult
    from xlinalg.transforms.tiling.tile_forall import ForallTilingResult

Position = tuple[list[OpFoldResult], list[OpFoldResult]]


@dataclass
class TiledImplementation:
    """A tile built by more than one op: `op` is the op computing it (what a transform
    handle receives), `results` the tile of each tensor result, `positions` where each goes
    in its destination (None: derived from the destination slice the op writes)."""

    op: Operation
    results: list[SSAValue] = field(default_factory=list)
    positions: list[Position | None] | None = None


class TilingInterface(ABC):
    @abstractmethod
    def get_loop_iterator_types(self) -> list[IteratorType]:
        """One iterator type per loop of the iteration domain."""

    @abstractmethod
    def get_iteration_domain(self, builder: IndexBuilder) -> list[OpFoldResult]:
        """The trip count of every loop (emitting `memref.dim`/`tensor.dim` where needed)."""

    @abstractmethod
    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation | TiledImplementation:
        """Insert (at `builder`) and return the op computing the tile at `offsets` of `sizes`."""

    def untileable_loops(self) -> set[int]:
        """Loops that cannot be tiled (e.g. the sorted dimension); default none."""
        return set()

    def prepare_for_tiling(self, tile_sizes: Sequence[int]) -> Operation:
        """The op to tile with `tile_sizes` (may rewrite this op first); default: itself."""
        assert isinstance(self, Operation)
        return self

    def get_iteration_domain_tile_from_result_tile(
        self, builder: IndexBuilder, result_index: int, offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> Position:
        """The iteration-domain tile (offsets, sizes) computing the tile of result
        `result_index` at `offsets` of `sizes`; default: not supported."""
        assert isinstance(self, Operation)
        raise tile_failure(f"'{self.name}' cannot compute a tile of its result #{result_index}")

    def generate_result_tile_value(
        self, builder: IndexBuilder, result_index: int, offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> SSAValue:
        """Build (at `builder`) the tile of result `result_index` at `offsets` of `sizes` and
        return it (what fusing this op into a consumer's loop needs)."""
        assert isinstance(self, Operation)
        if not self.results:
            raise tile_failure(f"'{self.name}' has no tensor result to compute a tile of")
        domain_offsets, domain_sizes = self.get_iteration_domain_tile_from_result_tile(
            builder, result_index, offsets, sizes
        )
        tile = as_tiled_implementation(
            self.get_tiled_implementation(builder, domain_offsets, domain_sizes)
        )
        return tile.results[result_index]


def parallel_except(rank: int, reductions: set[int]) -> list[IteratorType]:
    return [IteratorType.REDUCTION if i in reductions else IteratorType.PARALLEL for i in range(rank)]


def tile_failure(message: str) -> TransformFailure:
    return TransformFailure(message, silenceable=True)


def as_tiled_implementation(tile: Operation | TiledImplementation) -> TiledImplementation:
    if isinstance(tile, TiledImplementation):
        return tile
    return TiledImplementation(tile, list(tile.results))


# ---- building blocks for implementations ----
def dim_of(builder: IndexBuilder, value: SSAValue, index: int) -> OpFoldResult:
    """A static size as an int, else a new `memref.dim` / `tensor.dim`."""
    type_ = value.type
    assert isinstance(type_, ShapedType)
    size = type_.get_shape()[index]
    if size >= 0:
        return size
    dim_cls = tensor.DimOp if isinstance(type_, TensorType) else memref.DimOp
    op = dim_cls(value, builder.constant(index))
    builder.insert(op)
    return op.result


def domain_of(builder: IndexBuilder, value: SSAValue) -> list[OpFoldResult]:
    type_ = value.type
    assert isinstance(type_, ShapedType)
    return [dim_of(builder, value, i) for i in range(type_.get_num_dims())]


def slice_of(builder: IndexBuilder, value: SSAValue, offsets: Sequence[OpFoldResult],
             sizes: Sequence[OpFoldResult]) -> SSAValue:
    """`memref.subview %value[offsets] [sizes] [1, ...]` with the inferred strided type, or
    `tensor.extract_slice` of the same window on a tensor."""
    source_type = value.type
    static_sizes = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    if isinstance(source_type, TensorType):
        result = TensorType(source_type.get_element_type(), static_sizes)
        op: Operation = tensor.ExtractSliceOp(value, list(offsets), list(sizes), [1] * len(sizes), result)
        builder.insert(op)
        return op.results[0]
    if not isinstance(source_type, MemRefType) or strides_and_offset(source_type) is None:  # type: ignore[arg-type]
        raise tile_failure(f"cannot take a strided subview of {source_type}")
    result_type = subview_result_type(
        source_type,  # type: ignore[arg-type]
        [o if isinstance(o, int) else None for o in offsets],
        [s if isinstance(s, int) else None for s in sizes],
    )
    assert result_type is not None
    op = memref.SubviewOp.get(value, list(offsets), list(sizes), [1] * len(offsets), result_type)
    builder.insert(op)
    return op.results[0]


def empty_like(builder: IndexBuilder, like: SSAValue, sizes: Sequence[OpFoldResult]) -> SSAValue:
    """A fresh `tensor.empty` / `memref.alloc` of `like`'s element type and `sizes`."""
    type_ = like.type
    assert isinstance(type_, ShapedType)
    static = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    dynamic = [builder.value(s) for s in sizes if not isinstance(s, int)]
    if isinstance(type_, TensorType):
        op: Operation = tensor.EmptyOp(dynamic, TensorType(type_.get_element_type(), static))
    else:
        op = memref.AllocOp.get(type_.get_element_type(), shape=static, dynamic_sizes=dynamic)
    builder.insert(op)
    return op.results[0]


def _slice_position(value: SSAValue, dest: SSAValue) -> Position | None:
    """Where `value` (a tiled op's destination) sits in `dest`: the window of the
    `tensor.extract_slice` of `dest` producing it; None when it is `dest` itself."""
    if value is dest:
        return None
    owner = value.owner
    if not isinstance(owner, tensor.ExtractSliceOp) or owner.source is not dest:
        raise tile_failure("the tile of a tensor result is not computed into a slice of its destination")
    return _mixed(owner.static_offsets.get_values(), owner.offsets), _mixed(
        owner.static_sizes.get_values(), owner.sizes
    )


def _mixed(static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[OpFoldResult]:
    values = iter(dynamic)
    return [next(values) if s == DYNAMIC_INDEX else s for s in static]


def insert_tile_result(builder: IndexBuilder, tile: SSAValue, dest: SSAValue,
                       position: Position | None) -> SSAValue:
    """`tensor.insert_slice %tile into %dest` at `position` (the whole dest: `tile`)."""
    if position is None:
        return tile
    offsets, sizes = position
    statics = [[v if isinstance(v, int) else DYNAMIC_INDEX for v in vs] for vs in (offsets, sizes)]
    dynamics = [[v for v in vs if isinstance(v, SSAValue)] for vs in (offsets, sizes)]
    from xdsl.dialects.builtin import DenseArrayBase, i64

    op = tensor.InsertSliceOp.build(
        operands=[tile, dest, dynamics[0], dynamics[1], []],
        properties={
            "static_offsets": DenseArrayBase.from_list(i64, statics[0]),
            "static_sizes": DenseArrayBase.from_list(i64, statics[1]),
            "static_strides": DenseArrayBase.from_list(i64, [1] * len(offsets)),
        },
        result_types=[dest.type],
    )
    builder.insert(op)
    return op.results[0]


def destination_operand_indices(op: Operation, inits: Sequence[SSAValue]) -> list[int]:
    """The operand index of each destination (matched from the end: inits follow inputs)."""
    taken: set[int] = set()
    indices: list[int] = []
    for init in reversed(list(inits)):
        index = next(i for i in reversed(range(len(op.operands)))
                     if op.operands[i] is init and i not in taken)
        taken.add(index)
        indices.append(index)
    return indices[::-1]


def tensor_destinations(op: Operation) -> list[SSAValue]:
    """The destinations of `op`'s tensor results, in result order."""
    from xlinalg.interfaces.destination_style import DestinationStyleOpInterface

    if not isinstance(op, DestinationStyleOpInterface):
        raise tile_failure(f"'{op.name}' has tensor results but is not destination-style")
    inits = [v for v in op.get_dps_inits() if isinstance(v.type, TensorType)]
    if [v.type for v in inits] != [r.type for r in op.results]:
        raise tile_failure(f"'{op.name}' mixes tensor and memref destinations")
    return inits


def tile_using_interface(
    op: Operation, tile_sizes: Sequence[int], interchange: Sequence[int] = ()
) -> TilingResult:
    """Tile a `TilingInterface` op with one `scf.for` per non-zero tile size (see the
    module docstring for tensors)."""
    from xlinalg.transforms.tiling.tile import (
        TilingResult,
        generate_tile_loops,
        normalize_interchange,
        normalize_tile_sizes,
    )
    from xlinalg.transforms.tiling.tile_tensor import carry_through_loops

    assert isinstance(op, TilingInterface)
    num_loops = len(op.get_loop_iterator_types())
    sizes = normalize_tile_sizes(tile_sizes, num_loops, op.name)
    order = normalize_interchange(interchange, num_loops)
    blocked = sorted(d for d in op.untileable_loops() if sizes[d] != 0)
    if blocked:
        raise tile_failure(f"tile_using_for: loop(s) {blocked} of '{op.name}' cannot be tiled")
    if op.results:
        tensor_destinations(op)  # fails before the IR is touched
    target = op.prepare_for_tiling(sizes)
    assert isinstance(target, TilingInterface)
    outer = IndexBuilder(InsertPoint.before(target))
    ranges = target.get_iteration_domain(outer)
    loops, insert_point, ivs, extents = generate_tile_loops(outer, ranges, sizes, order, target)
    if not target.results:
        tiled = target.get_tiled_implementation(IndexBuilder(insert_point), ivs, extents)
        Rewriter.erase_op(target)
        return TilingResult(as_tiled_implementation(tiled).op, loops)

    dests = tensor_destinations(target)
    loops, carried, insert_point = carry_through_loops(loops, dests, insert_point)
    # The op with its destinations replaced by the loop-carried values, asked for its tile.
    proxy = target.clone()
    for index, value in zip(destination_operand_indices(target, dests), carried):
        proxy.operands[index] = value
    Rewriter.insert_op(proxy, insert_point)
    assert isinstance(proxy, TilingInterface)
    inner = IndexBuilder(InsertPoint.before(proxy))
    tile = as_tiled_implementation(proxy.get_tiled_implementation(inner, ivs, extents))
    inner = IndexBuilder(InsertPoint.after(proxy))
    Rewriter.erase_op(proxy)
    if len(tile.results) != len(dests):
        raise tile_failure(f"'{op.name}': the tile has {len(tile.results)} results, expected {len(dests)}")
    positions = tile.positions or [None] * len(dests)
    tiled_inits = tensor_destinations(tile.op) if tile.positions is None else []
    yielded: list[SSAValue] = []
    for i, (value, dest) in enumerate(zip(tile.results, carried)):
        position = positions[i] if tile.positions is not None else _slice_position(tiled_inits[i], dest)
        yielded.append(insert_tile_result(inner, value, dest, position) if loops else value)
    if loops:
        from xdsl.dialects import scf

        Rewriter.replace_op(loops[-1].body.block.last_op, scf.YieldOp(*yielded))  # type: ignore[arg-type]
        replacements = list(loops[0].results)
    else:
        replacements = yielded
    for old, new in zip(target.results, replacements, strict=True):
        old.replace_all_uses_with(new)
    Rewriter.erase_op(target)
    return TilingResult(tile.op, loops)


def tile_interface_using_forall(
    op: Operation,
    *,
    tile_sizes: Sequence[int | SSAValue] | None = None,
    num_threads: Sequence[int | SSAValue] | None = None,
    mapping: ArrayAttr[Attribute] | None = None,
) -> ForallTilingResult:
    """Tile a `TilingInterface` op into one `scf.forall` (`tile_forall.tile_using_forall`
    for these ops: same trip counts, offsets and extents). Reduction loops are not tiled
    by a forall (the tiles would race on the destination): a silenceable failure. On
    tensors the destinations become `shared_outs` and every tile result goes back with a
    `tensor.parallel_insert_slice` at its position."""
    from xlinalg.dialects.scf import ForallOp, InParallelOp
    from xlinalg.dialects.tensor import ParallelInsertSliceOp
    from xlinalg.transforms.tiling.tile_forall import (
        ForallTilingResult,
        _Index,
        _is_tiled,
        _needs_clamp,
        _normalize,
    )

    if (tile_sizes is None) == (num_threads is None):
        raise TransformFailure(
            "tile_using_forall: exactly one of tile_sizes and num_threads must be given",
            silenceable=False,
        )
    assert isinstance(op, TilingInterface)
    iterators = op.get_loop_iterator_types()
    by_threads = num_threads is not None
    given = _normalize(num_threads if by_threads else tile_sizes,  # type: ignore[arg-type]
                       len(iterators), "num_threads" if by_threads else "tile sizes", op.name)
    tiled_dims = [d for d in range(len(iterators)) if _is_tiled(given[d])]
    if mapping is not None and len(mapping.data) != len(tiled_dims):
        raise TransformFailure(
            f"tile_using_forall: mapping has {len(mapping.data)} attributes for "
            f"{len(tiled_dims)} tiled loop(s)", silenceable=False)
    blocked = sorted(d for d in op.untileable_loops() if d in tiled_dims)
    if blocked:
        raise tile_failure(f"tile_using_forall: loop(s) {blocked} of '{op.name}' cannot be tiled")
    reductions = [d for d in tiled_dims if iterators[d] != IteratorType.PARALLEL]
    if reductions:
        raise tile_failure(
            f"tile_using_forall: loop(s) {reductions} of '{op.name}' are reductions; "
            "a forall over them would race (use tile_using_for)")
    if op.results:
        tensor_destinations(op)  # fails before the IR is touched
    target = op.prepare_for_tiling([1 if d in tiled_dims else 0 for d in range(len(iterators))])
    assert isinstance(target, TilingInterface)
    outer = IndexBuilder(InsertPoint.before(target))
    ranges = target.get_iteration_domain(outer)
    index = _Index(outer)
    tile: dict[int, OpFoldResult] = {}
    trips: list[OpFoldResult] = []
    for d in tiled_dims:
        if by_threads:
            trips.append(fold_constant(given[d]))
            tile[d] = index.ceildiv(ranges[d], given[d])
        else:
            tile[d] = fold_constant(given[d])
            trips.append(index.ceildiv(ranges[d], given[d]))

    dests = tensor_destinations(target) if target.results else []
    forall = ForallOp([0] * len(trips), trips, [1] * len(trips), dests, mapping)  # type: ignore[arg-type]
    Rewriter.insert_op(forall, InsertPoint.before(target))
    inner = IndexBuilder(InsertPoint.before(forall.terminator))
    index = _Index(inner)
    offsets: list[OpFoldResult] = []
    extents: list[OpFoldResult] = []
    for d in range(len(iterators)):
        if d not in tile:
            offsets.append(0)
            extents.append(ranges[d])
            continue
        iv = forall.induction_vars[tiled_dims.index(d)]
        offset = index.mul(iv, tile[d])
        offsets.append(offset)
        clamp = by_threads and _needs_clamp(ranges[d], given[d], tile[d])
        extents.append(index.extent(iv, offset, tile[d], ranges[d], clamp))

    if not dests:
        tiled = as_tiled_implementation(target.get_tiled_implementation(inner, offsets, extents))
        Rewriter.erase_op(target)
        return ForallTilingResult(tiled.op, forall)

    shared = list(forall.region_out_args)
    proxy = target.clone()
    for operand_index, value in zip(destination_operand_indices(target, dests), shared):
        proxy.operands[operand_index] = value
    inner.insert(proxy)
    assert isinstance(proxy, TilingInterface)
    tile_impl = as_tiled_implementation(
        proxy.get_tiled_implementation(IndexBuilder(InsertPoint.before(proxy)), offsets, extents))
    after = IndexBuilder(InsertPoint.after(proxy))
    Rewriter.erase_op(proxy)
    tiled_inits = tensor_destinations(tile_impl.op) if tile_impl.positions is None else []
    inserts: list[Operation] = []
    for i, (value, dest) in enumerate(zip(tile_impl.results, shared, strict=True)):
        position = (tile_impl.positions[i] if tile_impl.positions is not None
                    else _slice_position(tiled_inits[i], dest))
        if position is None:
            position = ([0] * len(domain_of(after, dest)), domain_of(after, dest))
        where, sizes = position
        inserts.append(ParallelInsertSliceOp(value, dest, where, sizes, [1] * len(sizes)))  # type: ignore[arg-type]
    Rewriter.replace_op(forall.terminator, InParallelOp(inserts))
    for old, new in zip(target.results, forall.res, strict=True):
        old.replace_all_uses_with(new)
    Rewriter.erase_op(target)
    return ForallTilingResult(tile_impl.op, forall)
