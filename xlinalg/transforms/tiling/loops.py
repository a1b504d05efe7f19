"""The loop-nest machinery the tiling transforms share.

`tile_using_for.py` (an `scf.for` nest), `tile_using_forall.py` (one
`scf.forall`), the reduction tilings (`tile_reduction.py`,
`tile_reduction_forall.py`), fusion (`fuse.py`) and `linalg/split.py` build on:

* preconditions: the op as a linalg structured op on memrefs / on tensors, tile
  sizes and interchange vectors padded and checked;
* loop ranges: the trip count of every loop of a structured op, found on the
  first operand dimension indexed by that loop alone (upstream's
  `createLoopRanges`);
* the `scf.for` nest (`generate_tile_loops`: one loop per non-zero tile size,
  every loop's tile offset and extent), rebuilt to carry tensors through its
  `iter_args` (`carry_through_loops`);
* operand slices: the offsets and sizes of the slice of an operand covering a
  tile (upstream's `computeSliceParameters`), the `memref.subview` taking it,
  and `linalg.index` shifted by the tile offsets;
* index arithmetic on `OpFoldResult`s for `scf.forall` tiles (`IndexArith`:
  affine ops when static, `arith` ops when a factor is dynamic);
* the destinations of a destination-style `TilingInterface` op's tensor results
  and where a tile computed into a slice of one goes back.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from xdsl.dialects import arith, memref, scf, tensor
from xdsl.dialects.builtin import IndexType, MemRefType, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg import GenericOp, IndexOp
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.destination_style import DestinationStyleOpInterface
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.interfaces.tiling import Position
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, fold_constant, mixed_values
from xlinalg.ir.subview_type import static_or_none, subview_result_type


# ---- preconditions ----
def check_memref_structured_op(op: Operation, what: str) -> StructuredOpInterface:
    """The op as a structured op on memrefs, or a silenceable failure."""
    if not isinstance(op, StructuredOpInterface):
        raise silenceable_failure(f"{what}: '{op.name}' is not a linalg structured op")
    if any(isinstance(v.type, TensorType) for v in op.operands) or op.results:
        raise silenceable_failure(
            f"{what}: '{op.name}' has tensor semantics; only ops on memrefs are supported "
            "for now (bufferize first)"
        )
    return op


def check_tensor_structured_op(op: Operation, what: str) -> StructuredOpInterface:
    """The op as a structured op whose outputs are all tensors, or a silenceable failure."""
    if not isinstance(op, StructuredOpInterface):
        raise silenceable_failure(f"{what}: '{op.name}' is not a linalg structured op")
    outputs = op.get_outputs()
    if not all(isinstance(v.type, TensorType) for v in outputs) or len(op.results) != len(outputs):
        raise silenceable_failure(f"{what}: '{op.name}' mixes tensor and memref operands")
    return op


def normalize_tile_sizes(sizes: Sequence[int], num_loops: int, op_name: str) -> list[int]:
    if len(sizes) > num_loops:
        raise silenceable_failure(
            f"too many tile sizes ({len(sizes)}) for '{op_name}' with {num_loops} loop(s)"
        )
    if any(s < 0 for s in sizes):
        raise silenceable_failure(f"tile sizes must be non-negative, got {list(sizes)}")
    return [*sizes, *([0] * (num_loops - len(sizes)))]


def normalize_interchange(interchange: Sequence[int], num_loops: int) -> list[int]:
    """Upstream's `fillInterchangeVector`, then checked to be a permutation."""
    if not interchange:
        return list(range(num_loops))
    filled = [*interchange, *range(len(interchange), num_loops)][:num_loops]
    if sorted(filled) != list(range(num_loops)):
        raise silenceable_failure(
            f"invalid interchange vector {list(interchange)}: not a permutation of the "
            f"{num_loops} loop(s) of the iteration space"
        )
    return filled


# ---- loop ranges ----
def _source_size(value: SSAValue, index: int) -> OpFoldResult | None:
    """The size of dim `index` of a memref when known without emitting IR
    (static, or the size operand of the producing `memref.subview`)."""
    shape = shape_of(value.type)
    assert shape is not None
    if shape[index] >= 0:
        return shape[index]
    owner = value.owner
    if isinstance(owner, memref.SubviewOp):
        static_sizes = owner.static_sizes.get_values()
        if len(static_sizes) == len(shape):
            dynamic_position = sum(1 for s in static_sizes[:index] if s < 0)
            return fold_constant(owner.sizes[dynamic_position])
    return None


def loop_range_sources(op: StructuredOpInterface) -> list[tuple[SSAValue, int]]:
    """For every loop, the first (operand, dim) indexed by exactly that loop (upstream's
    `createLoopRanges`); a silenceable failure when a loop has none."""
    num_loops = op.get_num_loops()
    sources: list[tuple[SSAValue, int] | None] = [None] * num_loops
    for value, amap in zip(op.get_operands_in_order(), op.get_indexing_maps()):
        if shape_of(value.type) is None:
            continue
        for index, expr in enumerate(amap.results):
            if isinstance(expr, AffineDimExpr) and sources[expr.position] is None:
                sources[expr.position] = (value, index)
    found: list[tuple[SSAValue, int]] = []
    for loop, source in enumerate(sources):
        if source is None:
            assert isinstance(op, Operation)
            name = op.name
            raise silenceable_failure(
                f"cannot compute the range of loop #{loop} of '{name}': no operand "
                "dimension is indexed by it alone"
            )
        found.append(source)
    return found


def loop_ranges(op: StructuredOpInterface, builder: IndexBuilder) -> list[OpFoldResult]:
    """The trip count of every loop: a constant for a static dim, the size operand of a
    producing `memref.subview`, else a new `memref.dim`."""
    ranges: list[OpFoldResult] = []
    for value, index in loop_range_sources(op):
        known = _source_size(value, index)
        if known is None:
            dim_op = memref.DimOp(value, builder.constant(index))
            builder.insert(dim_op)
            known = dim_op.result
        ranges.append(known)
    return ranges


def tensor_loop_ranges(op: StructuredOpInterface, builder: IndexBuilder) -> list[OpFoldResult]:
    """The trip count of every loop: a static dim, else a `tensor.dim` (memrefs: `memref.dim`)."""
    ranges: list[OpFoldResult] = []
    for value, index in loop_range_sources(op):
        shape = shape_of(value.type)
        assert shape is not None
        if shape[index] >= 0:
            ranges.append(shape[index])
            continue
        dim_cls = tensor.DimOp if isinstance(value.type, TensorType) else memref.DimOp
        dim_op = dim_cls(value, builder.constant(index))
        builder.insert(dim_op)
        ranges.append(dim_op.result)
    return ranges


# ---- the scf.for nest ----
def _new_loop(lb: SSAValue, ub: SSAValue, step: SSAValue) -> scf.ForOp:
    body = Block([scf.YieldOp()], arg_types=[IndexType()])
    return scf.ForOp(lb, ub, step, [], Region(body))


def generate_tile_loops(
    outer: IndexBuilder,
    ranges: Sequence[OpFoldResult],
    sizes: Sequence[int],
    order: Sequence[int],
    op: Operation,
) -> tuple[list[scf.ForOp], InsertPoint, list[OpFoldResult], list[OpFoldResult]]:
    """The `scf.for` nest (in `order`, one loop per non-zero size) before `op`, the insertion
    point inside it, and every loop's tile offset and extent (shared with `TilingInterface`)."""
    num_loops = len(ranges)
    tiled_dims = [dim for dim in order if sizes[dim] != 0]
    zero = outer.constant(0) if tiled_dims else None
    bounds = {dim: (outer.value(ranges[dim]), outer.constant(sizes[dim])) for dim in tiled_dims}

    loops: list[scf.ForOp] = []
    ivs_by_dim: dict[int, SSAValue] = {}
    insert_point = InsertPoint.before(op)
    for dim in tiled_dims:
        assert zero is not None
        loop = _new_loop(zero, *bounds[dim])
        Rewriter.insert_op(loop, insert_point)
        loops.append(loop)
        ivs_by_dim[dim] = loop.body.block.args[0]
        terminator = loop.body.block.last_op
        assert terminator is not None
        insert_point = InsertPoint.before(terminator)

    inner = IndexBuilder(insert_point)
    iv_e, ub_e, ts_e = (AffineExpr.dimension(i) for i in range(3))
    ivs: list[OpFoldResult] = []
    extents: list[OpFoldResult] = []
    for dim in range(num_loops):
        ts = sizes[dim]
        if ts == 0:
            ivs.append(0)
            extents.append(ranges[dim])
            continue
        iv = ivs_by_dim[dim]
        ivs.append(iv)
        bound = ranges[dim]
        if ts == 1 or (isinstance(bound, int) and bound % ts == 0):
            extents.append(ts)
        else:
            # min(ub - iv, ts) over (iv, ub, ts), upstream's `getBoundedTileSize`
            extents.append(inner.min([ub_e - iv_e, ts_e], [iv, bound, ts]))

    return loops, insert_point, ivs, extents


def _carry_outputs(loop: scf.ForOp, inits: Sequence[SSAValue]) -> scf.ForOp:
    """`loop` rebuilt with `iter_args` initialised to `inits` (block arguments appended)."""
    new = scf.ForOp(loop.lb, loop.ub, loop.step, list(inits), Region())
    body = loop.body.block
    loop.body.detach_block(body)
    new.body.add_block(body)
    for value in inits:
        body.insert_arg(value.type, len(body.args))
    Rewriter.replace_op(loop, new, new_results=[])
    return new


def carry_through_loops(
    plain_loops: Sequence[scf.ForOp], outputs: Sequence[SSAValue], insert_point: InsertPoint
) -> tuple[list[scf.ForOp], list[SSAValue], InsertPoint]:
    """The loops of `generate_tile_loops` rebuilt to carry `outputs` (outermost from the
    values, each inner one from its parent's block arguments, each parent yielding its
    child's results); returns them, the innermost carried values and the insertion point
    before the innermost yield (`insert_point` when there is no loop)."""
    loops: list[scf.ForOp] = []
    carried: list[SSAValue] = list(outputs)
    for plain in plain_loops:
        loop = _carry_outputs(plain, carried)
        loops.append(loop)
        carried = list(loop.body.block.args[1:])
    for parent, child in itertools.pairwise(loops):
        terminator = parent.body.block.last_op
        assert terminator is not None
        Rewriter.replace_op(terminator, scf.YieldOp(*child.results))
    if loops:
        innermost_yield = loops[-1].body.block.last_op
        assert innermost_yield is not None
        insert_point = InsertPoint.before(innermost_yield)
    return loops, carried, insert_point


# ---- operand slices ----
def slice_parameters(
    builder: IndexBuilder,
    amap: AffineMap,
    ivs: Sequence[OpFoldResult],
    extents: Sequence[OpFoldResult],
) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
    """Offsets and sizes of the slice of an operand indexed by `amap` covering the tile at
    `ivs` with `extents` (upstream's `computeSliceParameters`, partial-tile check omitted)."""
    n = amap.num_dims
    dims = [AffineExpr.dimension(i) for i in range(n)]
    offsets: list[OpFoldResult] = []
    sizes: list[OpFoldResult] = []
    for expr in amap.results:
        at_zero = expr.eval([0] * n, [])
        offsets.append(builder.apply(expr - AffineExpr.constant(at_zero), ivs))
        closed = expr.replace_dims_and_symbols([d - AffineExpr.constant(1) for d in dims], ())
        sizes.append(builder.apply(closed + AffineExpr.constant(1), extents))
    return offsets, sizes


def tile_operand(
    builder: IndexBuilder,
    value: SSAValue,
    amap: AffineMap,
    ivs: Sequence[OpFoldResult],
    extents: Sequence[OpFoldResult],
) -> SSAValue:
    """`memref.subview` of `value` covering the tile at `ivs` with `extents`."""
    offsets, sizes = slice_parameters(builder, amap, ivs, extents)
    source_type = value.type
    assert isinstance(source_type, MemRefType)
    result_type = subview_result_type(
        source_type,
        static_or_none(offsets),
        static_or_none(sizes),
    )
    if result_type is None:
        raise silenceable_failure(f"cannot tile an operand of non-strided type {source_type}")
    ones: list[SSAValue | int] = [1] * len(offsets)
    subview = memref.SubviewOp.get(value, list(offsets), list(sizes), ones, result_type)
    builder.insert(subview)
    return subview.result


def offset_indices(op: Operation, offsets: Sequence[OpFoldResult]) -> None:
    """Upstream's `offsetIndices`: `linalg.index d` becomes `linalg.index d + offsets[d]`."""
    if not isinstance(op, GenericOp):
        return
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    for index_op in [o for o in op.body.walk() if isinstance(o, IndexOp)]:
        offset = offsets[index_op.dim.value.data]
        if isinstance(offset, int) and offset == 0:
            continue
        builder = IndexBuilder(InsertPoint.after(index_op))
        shifted = builder.value(builder.apply(d0 + d1, [index_op.result, offset]))
        index_op.result.replace_uses_with_if(
            shifted, lambda use, new=shifted.owner: use.operation is not new
        )


# ---- scf.forall tiles ----
class IndexArith:
    """Index arithmetic on OpFoldResults: affine ops when every leaf is static or an
    iv times a constant, `arith` ops when a factor is dynamic."""

    def __init__(self, builder: IndexBuilder) -> None:
        self.b = builder

    def ceildiv(self, a: OpFoldResult, b: OpFoldResult) -> OpFoldResult:
        a, b = fold_constant(a), fold_constant(b)
        if isinstance(a, int) and isinstance(b, int):
            return -(-a // b)
        if isinstance(b, int):
            return self.b.apply(AffineExpr.dimension(0).ceil_div(b), [a])
        return self.b.binary(arith.CeilDivSIOp, a, b)

    def mul(self, a: OpFoldResult, b: OpFoldResult) -> OpFoldResult:
        a, b = fold_constant(a), fold_constant(b)
        if isinstance(b, int):
            return self.b.apply(AffineExpr.dimension(0) * b, [a])
        if isinstance(a, int):
            return self.b.apply(AffineExpr.dimension(0) * a, [b])
        return self.b.binary(arith.MuliOp, a, b)

    def extent(
        self, iv: SSAValue, offset: OpFoldResult, ts: OpFoldResult, bound: OpFoldResult,
        clamp_at_zero: bool,
    ) -> OpFoldResult:  # fmt: skip
        """min(bound - offset, ts), and max(0, .) when `clamp_at_zero`."""
        ts, bound = fold_constant(ts), fold_constant(bound)
        if (
            isinstance(ts, int)
            and isinstance(bound, int)
            and not clamp_at_zero
            and (ts == 1 or bound % ts == 0)
        ):
            return ts
        if isinstance(ts, int):
            d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
            size = self.b.min([d1 - d0, AffineExpr.constant(ts)], [offset, bound])
        else:
            rest = self.b.binary(arith.SubiOp, bound, offset)
            size = self.b.binary(arith.MinSIOp, rest, ts)
        if not clamp_at_zero:
            return size
        return self.b.binary(arith.MaxSIOp, size, 0)


def needs_clamp(bound: OpFoldResult, nt: OpFoldResult, ts: OpFoldResult) -> bool:
    """Whether the last of `nt` threads can get an empty (negative-sized) tile."""
    bound, nt, ts = fold_constant(bound), fold_constant(nt), fold_constant(ts)
    if isinstance(bound, int) and isinstance(nt, int) and isinstance(ts, int):
        return (nt - 1) * ts >= bound
    return True


# ---- destinations of TilingInterface ops ----
def tensor_destinations(op: Operation) -> list[SSAValue]:
    """The destinations of `op`'s tensor results, in result order."""
    if not isinstance(op, DestinationStyleOpInterface):
        raise silenceable_failure(f"'{op.name}' has tensor results but is not destination-style")
    inits = [v for v in op.get_dps_inits() if isinstance(v.type, TensorType)]
    if [v.type for v in inits] != [r.type for r in op.results]:
        raise silenceable_failure(f"'{op.name}' mixes tensor and memref destinations")
    return inits


def destination_operand_indices(op: Operation, inits: Sequence[SSAValue]) -> list[int]:
    """The operand index of each destination (matched from the end: inits follow inputs)."""
    taken: set[int] = set()
    indices: list[int] = []
    for init in reversed(list(inits)):
        index = next(
            i
            for i in reversed(range(len(op.operands)))
            if op.operands[i] is init and i not in taken
        )
        taken.add(index)
        indices.append(index)
    return indices[::-1]


def slice_position(value: SSAValue, dest: SSAValue) -> Position | None:
    """Where `value` (a tiled op's destination) sits in `dest`: the window of the
    `tensor.extract_slice` of `dest` producing it; None when it is `dest` itself."""
    if value is dest:
        return None
    owner = value.owner
    if not isinstance(owner, tensor.ExtractSliceOp) or owner.source is not dest:
        raise silenceable_failure(
            "the tile of a tensor result is not computed into a slice of its destination"
        )
    return mixed_values(owner.static_offsets.get_values(), owner.offsets), mixed_values(
        owner.static_sizes.get_values(), owner.sizes
    )
