"""Padding a linalg op on tensors to static shapes: the payload side of `transform.structured.pad`.

Upstream's `rewriteAsPaddedOp`: every shaped operand whose dims are indexed by
a loop in `padding_dimensions` is padded (high, with its `padding_values`
entry) to a static size -- the constant upper bound of the dim (a static dim,
or the constant result of the `affine.min` that sizes the `extract_slice` /
`tensor.empty` producing it), rounded up to `pad_to_multiple_of[loop]`:

```
%a = tensor.extract_slice %A[%i, %k] [4, %tk] [1, 1] : tensor<24x12xf32> to tensor<4x?xf32>
%r = linalg.matmul ins(%a, %b : tensor<4x?xf32>, ...) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>
```
with `%tk = affine.min (-d0 + 12, 7)` becomes
```
%pa = tensor.pad %a nofold low[0, 0] high[0, %h] { tensor.yield %zero } : tensor<4x?xf32> to tensor<4x7xf32>
%pr = linalg.matmul ins(%pa, %pb : tensor<4x7xf32>, tensor<7x5xf32>) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>
%s = tensor.extract_slice %pr[0, 0] [4, 5] [1, 1] : tensor<4x5xf32> to tensor<4x5xf32>
%r = bufferization.materialize_in_destination %s in %c : (...) -> tensor<4x5xf32>
```
An operand already of the padded static shape is used as is unless its
`nofold_flags` (the spec's `pack_paddings`) entry is set, which keeps a
`nofold` pad (upstream's "pack" of the operand for hoisting). Results are
sliced back to the original sizes and copied into the original destination
by `copy_back_op`: `bufferization.materialize_in_destination` (default),
`linalg.copy`, or `none` (the slice itself replaces the result). The spec's
`transpose_paddings` transposes a padded operand and transposes it back (a
`linalg.transpose` pair) for `hoist_pad` to hoist the transposed form.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ContainerType,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.bufferization import MaterializeInDestinationOp
from xlinalg.dialects.linalg import CopyOp, TransposeOp
from xlinalg.dialects.tensor_pad import PadOp
from xlinalg.errors import TransformFailure, silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, constant_upper_bound
from xlinalg.transforms.tensor.slices import extract_slice, is_unit_stride_full_rank, mixed_sizes
from xlinalg.transforms.tiling.loops import check_tensor_structured_op

COPY_BACK_OPS = ("bufferization.materialize_in_destination", "linalg.copy", "none")


@dataclass(frozen=True)
class PadResult:
    """The padded op, the `tensor.pad` ops made, and the copy-back ops."""

    padded_op: Operation
    pads: list[Operation]
    copies: list[Operation]


def dim_size(value: SSAValue, index: int) -> OpFoldResult | None:
    """Dim `index` of a tensor: static, the size operand of the full-rank `extract_slice`
    or the dynamic size of the `tensor.empty` that produced it; None otherwise."""
    shape = shape_of(value.type)
    assert shape is not None
    if shape[index] >= 0:
        return shape[index]
    owner = value.owner
    if isinstance(owner, tensor.ExtractSliceOp) and is_unit_stride_full_rank(owner):
        return mixed_sizes(owner)[index]
    if isinstance(owner, tensor.EmptyOp):
        position = sum(1 for s in shape[:index] if s == DYNAMIC_INDEX)
        return owner.dynamic_sizes[position]
    return None


def check_padding_value(
    value: Attribute, element_type: Attribute, operand: int
) -> FloatAttr | IntegerAttr:
    """The padding attribute for an operand, checked against its element type (a
    mismatch is a definite failure, as upstream)."""
    if isinstance(value, FloatAttr | IntegerAttr) and value.type == element_type:
        return value
    raise TransformFailure(
        f"expects a padding value of type '{element_type}' for operand #{operand}, got {value}",
        silenceable=False,
    )


def _zero(element_type: Attribute) -> FloatAttr | IntegerAttr:
    if isinstance(element_type, IntegerType | IndexType):
        return IntegerAttr(0, element_type)
    assert isinstance(element_type, AnyFloat), element_type
    return FloatAttr(0.0, element_type)


def make_pad(
    builder: IndexBuilder,
    source: SSAValue,
    padded_shape: Sequence[int],
    value: FloatAttr | IntegerAttr,
    nofold: bool,
) -> tensor.PadOp:
    """`tensor.pad %source [nofold] low[0..] high[padded - size]` yielding constant `value`."""
    source_type = source.type
    assert isinstance(source_type, TensorType)
    constant = arith.ConstantOp(value)
    builder.insert(constant)
    d0 = AffineExpr.dimension(0)
    high: list[OpFoldResult] = []
    for index, (size, padded) in enumerate(zip(source_type.get_shape(), padded_shape)):
        if size >= 0:
            high.append(padded - size)
            continue
        dim = tensor.DimOp(source, builder.constant(index))
        builder.insert(dim)
        high.append(builder.apply(AffineExpr.constant(padded) - d0, [dim.result]))
    rank = len(padded_shape)
    body = Block([tensor.YieldOp(constant.result)], arg_types=[IndexType()] * rank)
    pad = PadOp(
        source,
        [],
        [h for h in high if isinstance(h, SSAValue)],
        Region(body),
        [0] * rank,
        [h if isinstance(h, int) else DYNAMIC_INDEX for h in high],
        TensorType(source_type.get_element_type(), list(padded_shape)),
        UnitAttr() if nofold else None,
    )
    builder.insert(pad)
    return pad


def transpose_tensor(
    builder: IndexBuilder, value: SSAValue, permutation: Sequence[int]
) -> SSAValue:
    """`linalg.transpose` of `value` by `permutation` into a new `tensor.empty`."""
    value_type = value.type
    assert isinstance(value_type, TensorType)
    shape = value_type.get_shape()
    result_type = TensorType(value_type.get_element_type(), [shape[p] for p in permutation])
    empty = tensor.EmptyOp([], result_type)
    builder.insert(empty)
    transpose = TransposeOp([value], [empty.tensor], [result_type], permutation=list(permutation))
    builder.insert(transpose)
    return transpose.results[0]


def _padded_shape(
    op: StructuredOpInterface,
    value: SSAValue,
    amap_results: Sequence[AffineExpr],
    padding_dimensions: Sequence[int],
    multiples: dict[int, int],
    operand: int,
) -> list[int] | None:
    shape = shape_of(value.type)
    assert shape is not None
    padded: list[int] = []
    for index, expr in enumerate(amap_results):
        dims = [d for d in expr.used_dims() if d in padding_dimensions]
        if not dims:
            padded.append(shape[index])
            continue
        size = dim_size(value, index)
        bound = constant_upper_bound(size) if size is not None else None
        if bound is None:
            raise silenceable_failure(
                f"failed to pad op: no constant upper bound for dim #{index} of operand "
                f"#{operand} ({value.type})"
            )
        multiple = max((multiples.get(d, 1) for d in dims), default=1)
        padded.append(-(-bound // multiple) * multiple)
    return padded


def pad_op(
    op: Operation,
    padding_values: Sequence[Attribute],
    padding_dimensions: Sequence[int],
    pad_to_multiple_of: Sequence[int] = (),
    nofold_flags: Sequence[int] = (),
    copy_back_op: str = COPY_BACK_OPS[0],
    transpose_paddings: Sequence[Sequence[int]] = (),
) -> PadResult:
    """Pad `op` (see the module docstring). A silenceable failure when a padded dim has no
    constant upper bound; a definite one for a padding value of the wrong type."""
    structured = check_tensor_structured_op(op, "pad")
    if copy_back_op not in COPY_BACK_OPS:
        raise TransformFailure(
            f"unsupported copy_back_op '{copy_back_op}' (expected one of "
            f"{', '.join(COPY_BACK_OPS)})",
            silenceable=False,
        )
    num_loops = structured.get_num_loops()
    if any(not 0 <= d < num_loops for d in padding_dimensions):
        raise TransformFailure(
            f"padding_dimensions {list(padding_dimensions)} out of range for '{op.name}' with "
            f"{num_loops} loops",
            silenceable=False,
        )
    if pad_to_multiple_of and len(pad_to_multiple_of) != len(padding_dimensions):
        raise TransformFailure(
            "pad_to_multiple_of must have one entry per padding dimension", silenceable=False
        )
    for index, perm in enumerate(transpose_paddings):
        rank = (
            len(shape_of(structured.get_operands_in_order()[index].type) or ())
            if index < len(structured.get_operands_in_order())
            else -1
        )
        if perm and (sorted(perm) != list(range(rank))):
            raise TransformFailure(
                f"transpose_paddings entry #{index} {list(perm)} is not a permutation of the "
                f"operand's {rank} dims",
                silenceable=False,
            )
    if any(m < 1 for m in pad_to_multiple_of):
        raise TransformFailure("pad_to_multiple_of entries must be >= 1", silenceable=False)
    multiples = dict(zip(padding_dimensions, pad_to_multiple_of))
    operands = structured.get_operands_in_order()
    maps = structured.get_indexing_maps()

    # Check everything before touching the IR.
    plans: list[tuple[list[int] | None, FloatAttr | IntegerAttr | None]] = []
    for index, (value, amap) in enumerate(zip(operands, maps)):
        value_type = value.type
        if shape_of(value_type) is None:
            plans.append((None, None))
            continue
        assert isinstance(value_type, ContainerType)
        element = value_type.get_element_type()
        pad_value = (
            check_padding_value(padding_values[index], element, index)
            if index < len(padding_values)
            else _zero(element)
        )
        shape = _padded_shape(structured, value, amap.results, padding_dimensions, multiples, index)
        plans.append((shape, pad_value))

    builder = IndexBuilder(InsertPoint.before(op))
    pads: list[Operation] = []
    new_operands: list[SSAValue] = []
    for index, (value, (shape, pad_value)) in enumerate(zip(operands, plans)):
        nofold = index < len(nofold_flags) and bool(nofold_flags[index])
        if shape is None or (list(shape_of(value.type) or ()) == shape and not nofold):
            new_operands.append(value)
            continue
        assert pad_value is not None
        pad = make_pad(builder, value, shape, pad_value, nofold)
        pads.append(pad)
        padded_operand: SSAValue = pad.result
        perm = list(transpose_paddings[index]) if index < len(transpose_paddings) else []
        if perm and perm != sorted(perm):
            # the spec's transpose_paddings: the padded operand is transposed and
            # transposed back, so that hoist_pad can hoist (and pack) the transposed tile
            inverse = [perm.index(i) for i in range(len(perm))]
            transposed = transpose_tensor(builder, padded_operand, perm)
            padded_operand = transpose_tensor(builder, transposed, inverse)
        new_operands.append(padded_operand)
    num_inputs = len(structured.get_inputs())
    outs = new_operands[num_inputs:]
    padded = structured.clone_with_operands(new_operands[:num_inputs], outs, [v.type for v in outs])
    builder.insert(padded)

    copies: list[Operation] = []
    for result, new, original in zip(op.results, padded.results, structured.get_outputs()):
        replacement = new
        if new.type != result.type or new is not result:
            sizes: list[OpFoldResult] = []
            for index, size in enumerate(shape_of(result.type) or ()):
                if size >= 0:
                    sizes.append(size)
                    continue
                dim = tensor.DimOp(original, builder.constant(index))
                builder.insert(dim)
                sizes.append(dim.result)
            if new.type != result.type:
                replacement = extract_slice(builder, new, [0] * len(sizes), sizes, result.type)
        if copy_back_op == "bufferization.materialize_in_destination":
            copy = MaterializeInDestinationOp(replacement, original)
            builder.insert(copy)
            copies.append(copy)
            replacement = copy.results[0]
        elif copy_back_op == "linalg.copy":
            copy = CopyOp([replacement], [original], [original.type])
            builder.insert(copy)
            copies.append(copy)
            replacement = copy.results[0]
        result.replace_all_uses_with(replacement)
    Rewriter.erase_op(op)
    return PadResult(padded, pads, copies)


__all__ = [
    "COPY_BACK_OPS",
    "PadResult",
    "check_padding_value",
    "dim_size",
    "make_pad",
    "pad_op",
    "transpose_tensor",
]
