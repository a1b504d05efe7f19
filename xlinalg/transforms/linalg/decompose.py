"""Decomposing 2-D convolutions and poolings with a unit window and output along one
spatial dim into their 1-D forms (upstream `DownscaleSizeOneWindowed2DConvolution`,
`DownscaleDepthwiseConv2DNhwcHwcOp`, the pooling variants; on memrefs and tensors).

```
linalg.conv_2d_nhwc_hwcf {strides = dense<[s0, s1]>, dilations = dense<[d0, d1]>}
  ins(%in : memref<Nx1xWxC>, %f : memref<1xKWxCxF>) outs(%out : memref<Nx1xOWxF>)
==>  (kh == 1 and oh == 1: the H dim goes)
linalg.conv_1d_nwc_wcf {strides = dense<s1>, dilations = dense<d1>}
  ins(rank-reducing subviews) outs(rank-reducing subview)
```
Otherwise the W dim goes when kw == 1 and ow == 1. Other ops, or ops with
neither unit window dim, cannot be decomposed (a silenceable failure). On tensors
the views are rank-reducing `tensor.extract_slice`s and the 1-D op's result is put
back with a `tensor.insert_slice` into the output (as upstream does).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import memref, tensor
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    MemRefType,
    StridedLayoutAttr,
    TensorType,
)
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg.named import NAMED_OP_CLASSES
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.ir.affine_utils import IndexBuilder
from xlinalg.ir.subview_type import strides_and_offset
from xlinalg.transforms.tensor.slices import extract_slice, insert_slice


@dataclass(frozen=True)
class Decomposition:
    """The 1-D op and, per operand (input, filter/window, output), the dim that
    holds H (index 0) and W (index 1)."""

    target: str
    h_dims: tuple[int, int, int]
    w_dims: tuple[int, int, int]


_NHWC = ((1, 0, 1), (2, 1, 2))
_NCHW_F = ((2, 2, 2), (3, 3, 3))
_NCHW_POOL = ((2, 0, 2), (3, 1, 3))

DECOMPOSITIONS: dict[str, Decomposition] = {
    "linalg.conv_2d_nhwc_hwcf": Decomposition("linalg.conv_1d_nwc_wcf", *_NHWC),
    "linalg.conv_2d_nchw_fchw": Decomposition("linalg.conv_1d_ncw_fcw", *_NCHW_F),
    "linalg.depthwise_conv_2d_nhwc_hwc": Decomposition("linalg.depthwise_conv_1d_nwc_wc", *_NHWC),
    "linalg.depthwise_conv_2d_nchw_chw": Decomposition(
        "linalg.depthwise_conv_1d_ncw_cw", (2, 1, 2), (3, 2, 3)
    ),
    **{
        f"linalg.pooling_nhwc_{kind}": Decomposition(f"linalg.pooling_nwc_{kind}", *_NHWC)
        for kind in ("sum", "max", "max_unsigned", "min", "min_unsigned")
    },
    **{
        f"linalg.pooling_nchw_{kind}": Decomposition(f"linalg.pooling_ncw_{kind}", *_NCHW_POOL)
        for kind in ("sum", "max")
    },
}


def _drop_unit_dim(builder: IndexBuilder, value: SSAValue, dim: int) -> SSAValue:
    typ = value.type
    assert isinstance(typ, MemRefType)
    shape = list(typ.get_shape())
    layout = strides_and_offset(typ)
    if layout is None:
        raise silenceable_failure(f"cannot take a strided view of {typ}")
    strides, offset = layout
    sizes: list[SSAValue | int] = []
    for index, extent in enumerate(shape):
        if extent >= 0:
            sizes.append(extent)
        else:
            dim_op = memref.DimOp(value, builder.constant(index))
            builder.insert(dim_op)
            sizes.append(dim_op.result)
    kept_shape = [s for i, s in enumerate(shape) if i != dim]
    kept_strides = [s for i, s in enumerate(strides) if i != dim]
    result_type = MemRefType(
        typ.element_type,
        kept_shape,
        StridedLayoutAttr(kept_strides, offset),
        typ.memory_space,
    )
    view = memref.SubviewOp.get(value, [0] * len(shape), sizes, [1] * len(shape), result_type)
    builder.insert(view)
    return view.result


def _sizes(builder: IndexBuilder, value: SSAValue) -> list[SSAValue | int]:
    """The extents of the tensor `value` (`tensor.dim` for dynamic ones)."""
    typ = value.type
    assert isinstance(typ, TensorType)
    sizes: list[SSAValue | int] = []
    for index, extent in enumerate(typ.get_shape()):
        if extent >= 0:
            sizes.append(extent)
        else:
            sizes.append(builder.insert(tensor.DimOp(value, builder.constant(index))).results[0])
    return sizes


def _drop_tensor_unit_dim(builder: IndexBuilder, value: SSAValue, dim: int) -> SSAValue:
    """A rank-reducing `tensor.extract_slice` of `value` without its unit dim `dim`."""
    typ = value.type
    assert isinstance(typ, TensorType)
    kept = TensorType(typ.element_type, [s for i, s in enumerate(typ.get_shape()) if i != dim])
    return extract_slice(builder, value, [0] * typ.get_num_dims(), _sizes(builder, value), kept)


def _ints(attr: object, default: list[int]) -> list[int]:
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return [int(v) for v in attr.get_values()]
    return default


def decompose(op: Operation) -> Operation:
    """Decompose `op` (see the module docstring); returns the new 1-D op."""
    rule = DECOMPOSITIONS.get(op.name)
    if rule is None or not isinstance(op, StructuredOpInterface):
        raise silenceable_failure(f"no decomposition for '{op.name}'")
    operands = [*op.get_inputs(), *op.get_outputs()]
    shapes = [shape_of(v.type) or () for v in operands]
    window, output = shapes[1], shapes[2]
    _, h_win, h_out = rule.h_dims
    _, w_win, w_out = rule.w_dims
    if window[h_win] == 1 and output[h_out] == 1:
        drop, keep = rule.h_dims, 1
    elif window[w_win] == 1 and output[w_out] == 1:
        drop, keep = rule.w_dims, 0
    else:
        raise silenceable_failure(
            f"neither the H nor the W window and output extents of '{op.name}' are 1"
        )
    strides = _ints(op.properties.get("strides") or op.attributes.get("strides"), [1, 1])
    dilations = _ints(op.properties.get("dilations") or op.attributes.get("dilations"), [1, 1])
    builder = IndexBuilder(InsertPoint.before(op))
    drop_dim = _drop_tensor_unit_dim if op.results else _drop_unit_dim
    new_operands = [drop_dim(builder, v, d) for v, d in zip(operands, drop)]
    cls = NAMED_OP_CLASSES[rule.target]
    new_op = cls(
        new_operands[:2],
        new_operands[2:],
        strides=[strides[keep]],
        dilations=[dilations[keep]],
    )
    if not op.results:
        Rewriter.replace_op(op, new_op, [])
        return new_op
    builder.insert(new_op)
    output = operands[2]
    result = insert_slice(
        builder, new_op.results[0], output, [0] * len(shapes[2]), _sizes(builder, output)
    )
    Rewriter.replace_op(op, [], [result])
    return new_op


__all__ = ["DECOMPOSITIONS", "decompose"]
