"""Resolve the `tensor.dim`s of a fused producer's results (upstream's
`ResolveRankedShapeTypeResultDims` and the `tensor.dim` folds of `expand_shape` /
`collapse_shape`, which upstream's canonicalization runs after fusion).

Tiling a consumer on dynamic shapes takes the loop bounds from `tensor.dim`s of its
operands; when an operand is a producer's result (or a reshape of it), that `dim` keeps
the untiled producer alive after fusion, and it would be computed twice (whole and
tile by tile). Here each such `dim` is replaced by one the producer does not define:

- a destination-style result has its init's shape: `dim(%init, k)`;
- `expand_shape`'s dimension k is its output shape's entry k;
- `collapse_shape`'s dimension k is the product of its group's source dimensions
  (which are resolved in turn);
- a static dimension is a constant.

A reshape left without uses is erased.
"""

from __future__ import annotations

from math import prod

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, fold_constant, mixed_values

_RESHAPES = (tensor.ExpandShapeOp, tensor.CollapseShapeOp)


def _size(builder: IndexBuilder, value: SSAValue, dim: int) -> OpFoldResult | None:
    """Dimension `dim` of `value` without using `value`, or None."""
    vtype = value.type
    assert isinstance(vtype, TensorType)
    static = vtype.get_shape()[dim]
    if static != DYNAMIC_INDEX:
        return static
    owner = value.owner
    if isinstance(owner, tensor.ExpandShapeOp):
        shape = mixed_values(owner.static_output_shape.get_values(), owner.dynamic_output_shape)
        return shape[dim]
    if isinstance(owner, tensor.CollapseShapeOp):
        group = [d.value.data for d in owner.reassociation.data[dim].data]
        sizes = [_size(builder, owner.src, d) for d in group]
        if any(s is None for s in sizes):
            return None
        dims = [s for s in sizes if isinstance(s, SSAValue)]
        constant = prod(s for s in sizes if isinstance(s, int))
        expr: AffineExpr = AffineExpr.constant(constant)
        for i in range(len(dims)):
            expr = expr * AffineExpr.dimension(i)
        return builder.apply(expr, dims)
    if isinstance(owner, StructuredOpInterface) and isinstance(value, OpResult):
        init = owner.get_outputs()[value.index]
        op = tensor.DimOp(init, builder.constant(dim))
        builder.insert(op)
        return op.result
    return None


def resolve_result_dims(op: Operation) -> None:
    """Replace the `tensor.dim`s of `op`'s results, and of reshapes of them, by sizes
    `op` does not define (module docstring)."""
    for result in op.results:
        if isinstance(result.type, TensorType):
            _resolve(result)


def _resolve(value: SSAValue) -> None:
    for use in list(value.uses):
        user = use.operation
        if isinstance(user, _RESHAPES):
            _resolve(user.results[0])
            if not user.results[0].uses:
                Rewriter.erase_op(user)
    for use in list(value.uses):
        user = use.operation
        if not isinstance(user, tensor.DimOp):
            continue
        index = fold_constant(user.index)
        if not isinstance(index, int):
            continue
        builder = IndexBuilder(InsertPoint.before(user))
        size = _size(builder, value, index)
        if size is not None:
            user.result.replace_all_uses_with(builder.value(size))
            Rewriter.erase_op(user)


__all__ = ["resolve_result_dims"]
