"""Tiling a linalg structured op on tensors into an `scf.for` nest carrying its outputs.

Upstream's `scf::tileUsingSCF` for ops with tensor semantics:

```
%r = linalg.matmul ins(%A, %B : tensor<37x23xf32>, tensor<23x29xf32>)
                   outs(%C : tensor<37x29xf32>) -> tensor<37x29xf32>
```
tiled by `[8, 0, 5]` becomes
```
%r = scf.for %i = %c0 to %c37 step %c8 iter_args(%acc = %C) -> (tensor<37x29xf32>) {
  %r1 = scf.for %k = %c0 to %c23 step %c5 iter_args(%acc1 = %acc) -> (tensor<37x29xf32>) {
    %ti = affine.min affine_map<(d0) -> (-d0 + 37, 8)>(%i)
    %tk = affine.min affine_map<(d0) -> (-d0 + 23, 5)>(%k)
    %a = tensor.extract_slice %A[%i, %k] [%ti, %tk] [1, 1] : tensor<37x23xf32> to tensor<?x?xf32>
    %b = tensor.extract_slice %B[%k, 0] [%tk, 29] [1, 1] : tensor<23x29xf32> to tensor<?x29xf32>
    %c = tensor.extract_slice %acc1[%i, 0] [%ti, 29] [1, 1] : tensor<37x29xf32> to tensor<?x29xf32>
    %t = linalg.matmul ins(%a, %b : ...) outs(%c : tensor<?x29xf32>) -> tensor<?x29xf32>
    %u = tensor.insert_slice %t into %acc1[%i, 0] [%ti, 29] [1, 1] : tensor<?x29xf32> into tensor<37x29xf32>
    scf.yield %u : tensor<37x29xf32>
  }
  scf.yield %r1 : tensor<37x29xf32>
}
```
Every loop carries all output tensors in its `iter_args` (the outermost starts
from the op's `outs`, each inner one from the enclosing loop's block argument);
inputs indexed by a tiled loop are sliced with the same offsets and sizes as on
memrefs (`tile.slice_parameters`), outputs always (a full-size slice when no
tiled loop indexes them, as upstream does). The op's results are replaced by
the outermost loop's results.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.errors import TransformFailure
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.transforms.tiling.tile import (
    TilingResult,
    _uses_tiled_loop,
    generate_tile_loops,
    loop_range_sources,
    normalize_interchange,
    normalize_tile_sizes,
    offset_indices,
    slice_parameters,
)


def _fail(message: str) -> TransformFailure:
    return TransformFailure(message, silenceable=True)


def check_tensor_structured_op(op: Operation, what: str) -> StructuredOpInterface:
    """The op as a structured op whose outputs are all tensors, or a silenceable failure."""
    if not isinstance(op, StructuredOpInterface):
        raise _fail(f"{what}: '{op.name}' is not a linalg structured op")
    outputs = op.get_outputs()
    if not all(isinstance(v.type, TensorType) for v in outputs) or len(op.results) != len(outputs):
        raise _fail(f"{what}: '{op.name}' mixes tensor and memref operands")
    return op


def tensor_loop_ranges(op: StructuredOpInterface, builder: IndexBuilder) -> list[OpFoldResult]:
    """The trip count of every loop: a static dim, else a `tensor.dim` (memrefs: `memref.dim`)."""
    from xdsl.dialects import memref

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


def _slice_type(source: Attribute, sizes: Sequence[OpFoldResult]) -> TensorType[Attribute]:
    assert isinstance(source, TensorType)
    shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    return TensorType(source.get_element_type(), shape)


def _params(sizes: Sequence[OpFoldResult]) -> tuple[list[SSAValue | int], list[SSAValue | int]]:
    return list(sizes), [1] * len(sizes)


def tile_tensor_op_using_for(
    op: Operation, tile_sizes: Sequence[int], interchange: Sequence[int] = ()
) -> TilingResult:
    """Tile `op` (a linalg structured op on tensors); see the module docstring.

    Raises a silenceable `TransformFailure` when a precondition does not hold.
    """
    structured = check_tensor_structured_op(op, "tile_using_for")
    num_loops = structured.get_num_loops()
    sizes = normalize_tile_sizes(tile_sizes, num_loops, op.name)
    order = normalize_interchange(interchange, num_loops)
    loop_range_sources(structured)  # fails before the IR is touched

    outer = IndexBuilder(InsertPoint.before(op))
    ranges = tensor_loop_ranges(structured, outer)
    plain_loops, insert_point, ivs, extents = generate_tile_loops(outer, ranges, sizes, order, op)

    loops, carried, insert_point = carry_through_loops(
        plain_loops, list(structured.get_outputs()), insert_point
    )
    inner = IndexBuilder(insert_point)

    num_inputs = len(structured.get_inputs())
    maps = structured.get_indexing_maps()
    new_operands: list[SSAValue] = []
    out_slices: list[tuple[list[OpFoldResult], list[OpFoldResult]] | None] = []
    sources = [*structured.get_inputs(), *carried]
    for position, (value, amap) in enumerate(zip(sources, maps)):
        is_output = position >= num_inputs
        # As upstream, every output is sliced inside a loop nest (full size when no tiled
        # loop indexes it); an input only when a tiled loop does.
        if shape_of(value.type) is None or not (
            _uses_tiled_loop(amap, sizes) or (is_output and loops)
        ):
            new_operands.append(value)
            if position >= num_inputs:
                out_slices.append(None)
            continue
        offsets, slice_sizes = slice_parameters(inner, amap, ivs, extents)
        if not isinstance(value.type, TensorType):
            raise _fail(f"tile_using_for: cannot slice an operand of type {value.type} on tensors")
        static_sizes, ones = _params(slice_sizes)
        extract = tensor.ExtractSliceOp(
            value, list(offsets), static_sizes, ones, _slice_type(value.type, slice_sizes)
        )
        inner.insert(extract)
        new_operands.append(extract.result)
        if position >= num_inputs:
            out_slices.append((offsets, slice_sizes))

    tiled: Operation = structured.clone_with_operands(
        new_operands[:num_inputs],
        new_operands[num_inputs:],
        [v.type for v in new_operands[num_inputs:]],
    )
    inner.insert(tiled)
    offset_indices(tiled, ivs)

    if loops:
        yielded: list[SSAValue] = []
        for result, dest, where in zip(tiled.results, carried, out_slices):
            if where is None:
                yielded.append(result)
                continue
            offsets, slice_sizes = where
            static_sizes, ones = _params(slice_sizes)
            insert = tensor.InsertSliceOp.build(
                operands=[result, dest, *_split(offsets), *_split(static_sizes), *_split(ones)],
                properties=_static_props(offsets, static_sizes, ones),
                result_types=[dest.type],
            )
            inner.insert(insert)
            yielded.append(insert.results[0])
        Rewriter.replace_op(loops[-1].body.block.last_op, scf.YieldOp(*yielded))  # type: ignore[arg-type]
        replacements = list(loops[0].results)
    else:
        replacements = list(tiled.results)
    for old, new in zip(op.results, replacements, strict=True):
        old.replace_all_uses_with(new)
    Rewriter.erase_op(op)
    return TilingResult(tiled, list(loops))


def _split(values: Sequence[OpFoldResult]) -> list[list[SSAValue]]:
    return [[v for v in values if isinstance(v, SSAValue)]]


def _static_props(*lists: Sequence[OpFoldResult]) -> dict[str, Attribute]:
    from xdsl.dialects.builtin import DenseArrayBase, i64

    names = ("static_offsets", "static_sizes", "static_strides")
    return {
        name: DenseArrayBase.from_list(
            i64, [v if isinstance(v, int) else DYNAMIC_INDEX for v in values]
        )
        for name, values in zip(names, lists)
    }
