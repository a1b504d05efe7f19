"""Drop the unit loops of `linalg.generic` ops on memrefs through rank-reducing subviews
(upstream `populateFoldUnitExtentDimsPatterns` with the slice strategy,
`transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices`).

A loop whose static range is 1 always has index 0: it is removed from the
iteration space, every operand dim indexed by such a loop alone (size 1) is
dropped with a rank-reducing `memref.subview`, the remaining index
expressions get 0 for the removed loops, and `linalg.index` of a removed loop
becomes the constant 0. After tiling a packed op by 1 on its outer dims this
turns e.g. the 5-D tile `(1, 1, k, m0, n0)` of a packed matmul into the 3-D
`(k, m0, n0)` contraction that vectorization lowers to outer products.

Ops on tensors or without static unit loops are left alone
(patterns apply where they match). Returns the number of ops rewritten.
"""

from __future__ import annotations

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, StridedLayoutAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg.generic import GenericOp, IndexOp
from xlinalg.ir.subview_type import static_or_none, subview_result_type
from xlinalg.ir.walk import walk_ops


def _rank_reduced(value: SSAValue, drop: list[int], before: Operation) -> SSAValue:
    """A rank-reducing `memref.subview` of the whole of `value` without the dims `drop`."""
    type_ = value.type
    assert isinstance(type_, MemRefType)
    shape = list(type_.get_shape())
    full = subview_result_type(type_, [0] * len(shape), static_or_none(shape))
    assert full is not None
    assert isinstance(full.layout, StridedLayoutAttr)
    strides, offset = full.layout.get_strides(), full.layout.get_offset()
    keep = [i for i in range(len(shape)) if i not in drop]
    result_type = MemRefType(
        type_.element_type,
        [shape[i] for i in keep],
        StridedLayoutAttr([strides[i] for i in keep], offset),
        type_.memory_space,
    )
    ops: list[Operation] = []
    sizes: list[SSAValue | int] = []
    for dim, size in enumerate(shape):
        if size >= 0:
            sizes.append(size)
            continue
        index = arith.ConstantOp(IntegerAttr(dim, IndexType()))
        dim_op = memref.DimOp(value, index.result)
        ops += [index, dim_op]
        sizes.append(dim_op.result)
    subview = memref.SubviewOp.get(value, [0] * len(shape), sizes, [1] * len(shape), result_type)
    Rewriter.insert_op([*ops, subview], InsertPoint.before(before))
    return subview.result


def fold_unit_dims(op: GenericOp) -> GenericOp | None:
    """Rewrite `op` without its unit loops; None (untouched) when it does not apply."""
    operands = [*op.inputs, *op.outputs]
    if op.res or not all(
        isinstance(v.type, MemRefType) for v in operands if hasattr(v.type, "get_shape")
    ):
        return None
    ranges = op.get_static_loop_ranges()
    unit = [d for d, r in enumerate(ranges) if r == 1]
    if not unit:
        return None
    renumber = {}
    for d in range(len(ranges)):
        if d not in unit:
            renumber[d] = len(renumber)
    zero: AffineExpr = AffineConstantExpr(0)
    replacements = [
        zero if d in unit else AffineExpr.dimension(renumber[d]) for d in range(len(ranges))
    ]
    new_operands: list[SSAValue] = []
    new_maps: list[AffineMap] = []
    for value, map_ in zip(operands, op.get_indexing_maps(), strict=True):
        type_: Attribute = value.type
        if not isinstance(type_, MemRefType):  # a scalar operand
            new_maps.append(AffineMap(len(renumber), 0, ()))
            new_operands.append(value)
            continue
        shape = type_.get_shape()
        drop = [
            p
            for p, e in enumerate(map_.results)
            if shape[p] == 1
            and (
                (isinstance(e, AffineDimExpr) and e.position in unit)
                or (isinstance(e, AffineConstantExpr) and e.value == 0)
            )
        ]
        if len(drop) == len(shape) and shape:
            drop = drop[1:]  # keep a rank-1 view of a single element (no 0-D transfers needed)
        results = [
            e.replace_dims_and_symbols(replacements, [])
            for p, e in enumerate(map_.results)
            if p not in drop
        ]
        new_maps.append(AffineMap(len(renumber), 0, tuple(results)))
        new_operands.append(_rank_reduced(value, drop, op) if drop else value)
    iterators = [it for d, it in enumerate(op.get_iterator_types()) if d not in unit]
    num_inputs = len(op.inputs)
    new = GenericOp(
        new_operands[:num_inputs],
        new_operands[num_inputs:],
        op.body.clone(),
        new_maps,
        iterators,
        [],
        op.doc,
        op.library_call,
    )
    new.attributes.update(op.attributes)
    for index_op in [o for o in new.body.walk() if isinstance(o, IndexOp)]:
        dim = index_op.dim.value.data
        if dim in unit:
            Rewriter.replace_op(index_op, arith.ConstantOp(IntegerAttr(0, IndexType())))
        else:
            Rewriter.replace_op(index_op, IndexOp(renumber[dim]))
    Rewriter.replace_op(op, new)
    return new


def fold_unit_dims_in(root: Operation) -> int:
    """Apply `fold_unit_dims` to every `linalg.generic` nested in `root` (not `root`)."""
    count = 0
    for op in [o for o in walk_ops(root)[1:] if isinstance(o, GenericOp)]:
        if fold_unit_dims(op) is not None:
            count += 1
    return count


__all__ = ["fold_unit_dims", "fold_unit_dims_in"]
