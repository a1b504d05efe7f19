"""Tiling a reduction with a partial-result buffer (upstream
`scf::tileReductionUsingScf` with linalg's `PartialReductionOpInterface`), on memrefs.

With tile size `t` on the reduction loop `k` (all other sizes 0):
```
%partial = memref.alloc(...) : memref<...x t x T>      // output shape + [t]
linalg.fill ins(%neutral) outs(%partial)
scf.for %k = 0 to %K step t {
  %in  = memref.subview %A[.., %k] [.., min(t, K - k)]          // operands sliced along k
  %acc = memref.subview %partial[.., 0] [.., min(t, K - k)]
  linalg.generic {k parallel now} ins(%in) outs(%acc)           // lane-wise accumulation
}
linalg.generic {reduce the last dim} ins(%partial) outs(%out)   // merge
memref.dealloc %partial
```
The partial buffer always has `t` lanes (it over-allocates when t > K, as the
spec notes). This is the spec's `tile_reduction_using_scf` example (tile sizes
[0, 5]) with its `%1` typo read as the loop-carried partial.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, MemRefType, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg import GenericOp, YieldOp
from xlinalg.dialects.linalg.named import NAMED_OP_CLASSES
from xlinalg.errors import TransformFailure, silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, map_used_dims
from xlinalg.ir.slices import domain_of
from xlinalg.transforms.linalg.generalize import as_generic
from xlinalg.transforms.linalg.split_reduction import combiner_of, neutral_element
from xlinalg.transforms.tiling.loops import (
    check_memref_structured_op,
    loop_ranges,
    tile_operand,
)


@dataclass(frozen=True)
class TileReductionResult:
    fill_op: Operation
    split_op: Operation
    combining_op: Operation
    for_op: scf.ForOp


def single_reduction_loop(
    structured: StructuredOpInterface,
    sizes: list[int],
    noun: str,
    given: str,
    fail: Callable[[str], TransformFailure],
) -> int:
    """The one loop with a non-zero entry in `sizes` (padded to the loop count), which
    must be a reduction loop of an op with a single output; `fail(message)` otherwise.
    Shared by tile_reduction_using_for and tile_reduction_using_forall."""
    iterators = [str(t) for t in structured.get_iterator_types()]
    tiled = [d for d, s in enumerate(sizes) if s != 0]
    if len(tiled) != 1 or iterators[tiled[0]] != "reduction":
        raise fail(
            f"expected exactly one non-zero {noun}, on a reduction loop "
            f"(iterators {iterators}, {given})"
        )
    if len(structured.get_outputs()) != 1:
        raise fail("expected a single output")
    return tiled[0]


def combining_generic(
    combiner: Operation,
    accumulator: SSAValue,
    partial: SSAValue,
    output: SSAValue,
    result_types: Sequence[Attribute] = (),
) -> GenericOp:
    """The `linalg.generic` that reduces the last dim of `partial` (the partial results:
    `output`'s dims and one more) into `output` with `combiner`, the binary op of the tiled
    body (`accumulator`, its output block argument, becomes the combined value's).
    Shared by tile_reduction_using_for and tile_reduction_using_forall."""
    out_type = output.type
    assert isinstance(out_type, TensorType | MemRefType)
    element = out_type.get_element_type()
    rank = out_type.get_num_dims() + 1
    ids = [AffineExpr.dimension(i) for i in range(rank)]
    combine_block = Block(arg_types=[element, element])
    in_arg, out_arg = combine_block.args
    combined = combiner.clone()
    for index, value in enumerate(combiner.operands):
        combined.operands[index] = out_arg if value is accumulator else in_arg
    combine_block.add_ops([combined, YieldOp(combined.results[0])])
    return GenericOp(
        [partial],
        [output],
        Region(combine_block),
        [AffineMap(rank, 0, tuple(ids)), AffineMap(rank, 0, tuple(ids[:-1]))],
        ["parallel"] * (rank - 1) + ["reduction"],
        result_types,
    )


def tile_reduction_using_for(op: Operation, tile_sizes: list[int]) -> TileReductionResult:
    structured = check_memref_structured_op(op, "tile_reduction")
    iterators = [str(t) for t in structured.get_iterator_types()]
    sizes = [*tile_sizes, *([0] * (len(iterators) - len(tile_sizes)))][: len(iterators)]
    r = single_reduction_loop(
        structured, sizes, "tile size", f"tile sizes {tile_sizes}", silenceable_failure
    )
    ts = sizes[r]
    generic = as_generic(structured)
    combiner = combiner_of(generic)
    output = structured.get_outputs()[0]
    out_type = output.type
    assert isinstance(out_type, MemRefType)
    element = out_type.element_type
    out_map = structured.get_indexing_maps()[-1]
    if r in map_used_dims(out_map):
        raise silenceable_failure("the tiled reduction loop indexes the output")

    builder = IndexBuilder(InsertPoint.before(op))
    ranges = loop_ranges(structured, builder)
    out_shape = shape_of(out_type)
    assert out_shape is not None
    dynamic_sizes = [s for s in domain_of(builder, output) if isinstance(s, SSAValue)]
    partial_type = MemRefType(element, [*out_shape, ts])
    alloc = memref.AllocOp(dynamic_sizes, [], partial_type)
    builder.insert(alloc)
    cst = arith.ConstantOp(neutral_element(combiner, element))
    builder.insert(cst)
    fill = NAMED_OP_CLASSES["linalg.fill"]([cst.result], [alloc.memref])
    builder.insert(fill)

    zero, step = builder.constant(0), builder.constant(ts)
    terminator = scf.YieldOp()
    body = Block([terminator], arg_types=[IndexType()])
    loop = scf.ForOp(zero, builder.value(ranges[r]), step, [], Region(body))
    builder.insert(loop)
    inner = IndexBuilder(InsertPoint.before(terminator))
    iv = body.args[0]
    bound = ranges[r]
    d0, d1, d2 = (AffineExpr.dimension(i) for i in range(3))
    extent: OpFoldResult = (
        ts
        if isinstance(bound, int) and bound % ts == 0
        else inner.min([d1 - d0, d2], [iv, bound, ts])
    )
    ivs: list[OpFoldResult] = [0] * len(iterators)
    extents = list(ranges)
    ivs[r], extents[r] = iv, extent
    new_inputs: list[SSAValue] = []
    for value, amap in zip(structured.get_inputs(), structured.get_indexing_maps()):
        if shape_of(value.type) is None or r not in map_used_dims(amap):
            new_inputs.append(value)
        else:
            new_inputs.append(tile_operand(inner, value, amap, ivs, extents))
    partial_map = AffineMap(out_map.num_dims, 0, (*out_map.results, AffineExpr.dimension(r)))
    out_ivs: list[OpFoldResult] = [0] * len(iterators)
    acc = tile_operand(inner, alloc.memref, partial_map, out_ivs, extents)
    split = GenericOp(
        new_inputs,
        [acc],
        generic.body.clone(),
        [*structured.get_indexing_maps()[:-1], partial_map],
        ["parallel" if d == r else t for d, t in enumerate(iterators)],
    )
    inner.insert(split)

    accumulator = generic.body.block.args[len(structured.get_inputs())]
    combine = combining_generic(combiner, accumulator, alloc.memref, output)
    builder.insert(combine)
    Rewriter.insert_op(memref.DeallocOp.get(alloc.memref), InsertPoint.after(op))
    Rewriter.erase_op(op)
    if generic is not op:
        generic.erase(safe_erase=False)
    return TileReductionResult(fill, split, combine, loop)


__all__ = ["TileReductionResult", "tile_reduction_using_for"]
