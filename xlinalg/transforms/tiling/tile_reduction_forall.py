"""Tiling a reduction across the iterations of an `scf.forall` with a partial-result
tensor (upstream's `linalg::tileReductionUsingForall` with linalg's
`PartialReductionOpInterface`), on tensors: the payload side of
`transform.structured.tile_reduction_using_forall` ([002], example reproduced in
`tests/transforms/tiling/test_forall_reduction.py`).

With `num_threads` `n` on the reduction loop `r` (every other entry 0):
```
%empty = tensor.empty(...) : tensor<out_shape x n x T>            // output shape + [n]
%fill = linalg.fill ins(%neutral) outs(%empty)
%part = scf.forall (%t) in (n) shared_outs(%acc = %fill) {
  %ts = ceildiv(R, n); %off = %t * %ts; %sz = max(0, min(R - %off, %ts))
  %in = tensor.extract_slice %A[.., %off] [.., %sz]                // inputs sliced along r
  %o = tensor.extract_slice %acc[.., %t] [.., 1] : to tensor<out_shape>   (rank-reduced)
  %p = linalg.generic (the original op on the slices) ins(%in) outs(%o)
  scf.forall.in_parallel { tensor.parallel_insert_slice %p into %acc[.., %t] [.., 1] }
}
%r = linalg.generic {reduce the last dim with the combiner} ins(%part) outs(%out)
```
Every thread reduces its chunk into its own column (starting from the neutral
element), the combining op folds the `n` columns into the original output.

With `tile_sizes` `ts` on the reduction loop instead (no `num_threads`), as current
upstream (IREE 3.13, checked with iree-opt): one iteration per tile,
`scf.forall (%k) = (0) to (R) step (ts)`, `ceildiv(R, ts)` partial columns, the
tile at `%k` of size `min(R - %k, ts)` reduced into column `%k floordiv ts`.

Which reading of the spec's `tile_sizes` we follow: the spec ([002]) describes
them as a cyclic distribution of tiles over `num_threads` threads (older
upstream). Current upstream ignores `tile_sizes` when `num_threads` are given
(the result is the same IR as without them) and tiles by `tile_sizes` when they
are the only sizes; we do the same so that schedules behave as in
`mlir-opt`/`iree-opt` today. Both compute the same reduction (up to the order
of the floating-point additions). On memrefs the op is a silenceable failure
(upstream: "could not tile reduction", tensor semantics required).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg import GenericOp
from xlinalg.dialects.linalg.named import NAMED_OP_CLASSES
from xlinalg.dialects.scf import ForallOp, InParallelOp
from xlinalg.dialects.tensor import ParallelInsertSliceOp
from xlinalg.errors import TransformFailure, silenceable_failure
from xlinalg.interfaces.structured import shape_of
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, map_used_dims
from xlinalg.ir.slices import domain_of
from xlinalg.transforms.linalg.generalize import as_generic
from xlinalg.transforms.linalg.split_reduction import combiner_of, neutral_element
from xlinalg.transforms.tiling.loops import (
    IndexArith,
    check_tensor_structured_op,
    needs_clamp,
    tensor_loop_ranges,
)
from xlinalg.transforms.tiling.tile_reduction import combining_generic, single_reduction_loop
from xlinalg.transforms.tiling.tile_using_forall import extract_tile


@dataclass(frozen=True)
class ForallReductionResult:
    forall_op: ForallOp
    fill_op: Operation
    split_op: Operation
    combining_op: Operation


def _fail(message: str) -> TransformFailure:
    return silenceable_failure(f"tile_reduction_using_forall: {message}")


def tile_reduction_using_forall(
    op: Operation,
    num_threads: Sequence[int],
    tile_sizes: Sequence[int] = (),
    mapping: ArrayAttr[Attribute] | None = None,
) -> ForallReductionResult:
    """See the module docstring. Silenceable failures leave the IR untouched."""
    structured = check_tensor_structured_op(op, "tile_reduction_using_forall")
    iterators = [str(t) for t in structured.get_iterator_types()]
    by_threads = any(t != 0 for t in num_threads) or not any(s != 0 for s in tile_sizes)
    given, noun = (num_threads, "num_threads") if by_threads else (tile_sizes, "tile_sizes")
    if len(given) > len(iterators) or any(n < 0 for n in given):
        raise _fail(f"invalid {noun} {list(given)} for {len(iterators)} loop(s)")
    padded = [*given, *([0] * (len(iterators) - len(given)))]
    r = single_reduction_loop(structured, padded, f"{noun} entry", f"{noun} {list(given)}", _fail)
    out_map = structured.get_indexing_maps()[-1]
    if r in map_used_dims(out_map):
        raise _fail("the tiled reduction loop indexes the output")
    generic = as_generic(structured)
    combiner = combiner_of(generic)  # silenceable when there is no single binary combiner
    output = structured.get_outputs()[0]
    out_type = output.type
    assert isinstance(out_type, TensorType)
    element = out_type.get_element_type()
    neutral = neutral_element(combiner, element)

    outer = IndexBuilder(InsertPoint.before(op))
    ranges = tensor_loop_ranges(structured, outer)
    # n partial columns; tiles of ts (at most) each
    if by_threads:
        n: OpFoldResult = padded[r]
        ts = IndexArith(outer).ceildiv(ranges[r], n)
    else:
        ts = padded[r]
        n = IndexArith(outer).ceildiv(ranges[r], ts)
    out_shape = list(out_type.get_shape())
    out_sizes = domain_of(outer, output)
    partial_type = TensorType(element, [*out_shape, n if isinstance(n, int) else DYNAMIC_INDEX])
    partial_sizes = [*out_sizes, n]
    empty = tensor.EmptyOp([s for s in partial_sizes if isinstance(s, SSAValue)], partial_type)
    outer.insert(empty)
    cst = arith.ConstantOp(neutral)
    outer.insert(cst)
    fill = NAMED_OP_CLASSES["linalg.fill"]([cst.result], [empty.tensor], [partial_type])
    outer.insert(fill)

    if by_threads:
        forall = ForallOp([0], [n], [1], [fill.results[0]], mapping)
    else:
        forall = ForallOp([0], [ranges[r]], [ts], [fill.results[0]], mapping)
    outer.insert(forall)
    inner = IndexBuilder(InsertPoint.before(forall.terminator))
    index = IndexArith(inner)
    (iv,) = forall.induction_vars
    (acc,) = forall.region_out_args
    if by_threads:
        offset, column_index = index.mul(iv, ts), iv
        extent = index.extent(iv, offset, ts, ranges[r], needs_clamp(ranges[r], n, ts))
    else:
        assert isinstance(ts, int)
        offset, column_index = iv, inner.apply(AffineExpr.dimension(0) // ts, [iv])
        extent = index.extent(iv, offset, ts, ranges[r], False)
    offsets: list[OpFoldResult] = [0] * len(iterators)
    extents = list(ranges)
    offsets[r], extents[r] = offset, extent

    new_inputs: list[SSAValue] = []
    for value, amap in zip(structured.get_inputs(), structured.get_indexing_maps()):
        if shape_of(value.type) is None or r not in map_used_dims(amap):
            new_inputs.append(value)
            continue
        new_inputs.append(extract_tile(inner, value, amap, offsets, extents)[0])
    column_offsets: list[OpFoldResult] = [*([0] * len(out_shape)), column_index]
    column_sizes: list[SSAValue | int] = [*out_sizes, 1]
    ones = [1] * (len(out_shape) + 1)
    column = tensor.ExtractSliceOp(acc, column_offsets, column_sizes, ones, out_type)
    inner.insert(column)
    split = GenericOp(
        new_inputs,
        [column.result],
        generic.body.clone(),
        structured.get_indexing_maps(),
        iterators,
        [out_type],
    )
    inner.insert(split)
    Rewriter.replace_op(
        forall.terminator,
        InParallelOp(
            [ParallelInsertSliceOp(split.results[0], acc, column_offsets, column_sizes, ones)]
        ),
    )

    accumulator = generic.body.block.args[len(structured.get_inputs())]
    combine = combining_generic(combiner, accumulator, forall.res[0], output, [out_type])
    Rewriter.insert_op(combine, InsertPoint.after(forall))
    op.results[0].replace_all_uses_with(combine.results[0])
    Rewriter.erase_op(op)
    if generic is not op:
        generic.erase(safe_erase=False)
    return ForallReductionResult(forall, fill, split, combine)


__all__ = ["ForallReductionResult", "tile_reduction_using_forall"]
