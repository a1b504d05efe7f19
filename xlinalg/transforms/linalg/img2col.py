"""`convert_conv2d_to_img2col`: a 2-D convolution on tensors as an im2col copy
plus a matmul-like contraction (upstream `linalg::rewriteInIm2Col`,
ConvertConv2DToImg2Col.cpp; the IR below is what `iree-opt
--transform-interpreter` produces for the same op, checked by the tests).

For `linalg.conv_2d_nhwc_hwcf` (N, H, W, C) * (KH, KW, C, F) -> (N, OH, OW, F)
with strides (sh, sw) and dilations (dh, dw), M = OH·OW and K = KH·KW·C:

```
%filter2 = tensor.collapse_shape %filter [[0, 1, 2], [3]] : KxF
%out2    = tensor.collapse_shape %out [[0], [1, 2], [3]]  : NxMxF
%empty   = tensor.empty() : NxMxK
%col = linalg.generic (n, m, k) -> input[n, (m floordiv OW)·sh + (k floordiv (KW·C))·dh,
                                          (m mod OW)·sw + ((k mod (KW·C)) floordiv C)·dw,
                                          k mod C]            (img2col: yields the input)
%mm  = linalg.generic (n, m, f, k): out2[n, m, f] += col[n, m, k] · filter2[k, f]
%res = tensor.expand_shape %mm [[0], [1, 2], [3]] : NxOHxOWxF
```
`conv_2d_nhwc_fhwc` is the same with the filter collapsed to FxK (`[[0], [1, 2, 3]]`)
and indexed (f, k). `conv_2d_nchw_fchw` puts K first: col is NxKxM with
K = C·KH·KW, (n, k, m) -> input[n, k floordiv (KH·KW),
(m floordiv OW)·sh + ((k mod (KH·KW)) floordiv KW)·dh, (m mod OW)·sw + (k mod KW)·dw],
and `out2[n, f, m] += filter2[f, k] · col[n, k, m]`.

Returns (the im2col generic, the expand_shape that replaces the convolution),
the two handles of the transform op. Preconditions as upstream (otherwise a
silenceable `TransformFailure`, payload untouched): one of the three ops, tensor
semantics, static shapes, one element type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg.generic import GenericOp, YieldOp
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.reassociation import reassociation_attr
from xlinalg.transforms.linalg.decompose import _ints

Exprs = tuple[AffineExpr, ...]


@dataclass(frozen=True)
class _Geometry:
    """Static sizes of one convolution (input spatial extents are not needed)."""

    n: int
    c: int
    f: int
    oh: int
    ow: int
    kh: int
    kw: int
    sh: int
    sw: int
    dh: int
    dw: int


@dataclass(frozen=True)
class _Layout:
    """How one convolution op becomes im2col + contraction."""

    geometry: Callable[[Sequence[Sequence[int]], Sequence[int], Sequence[int]], _Geometry]
    filter_reassociation: tuple[tuple[int, ...], ...]
    output_reassociation: tuple[tuple[int, ...], ...]
    col_shape: Callable[[_Geometry], list[int]]
    # (n, d1, d2) of the im2col generic -> input indices
    col_map: Callable[[_Geometry, AffineExpr, AffineExpr, AffineExpr], Exprs]
    # maps (as dim tuples over d0..d3) of the contraction: inputs in order, then output
    operand_order: tuple[str, str]  # which of "col" / "filter" is the first input
    matmul_maps: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def _nhwc(
    shapes: Sequence[Sequence[int]], s: Sequence[int], d: Sequence[int], *, filter_hwcf: bool
) -> _Geometry:
    _, filt, out = shapes
    n, oh, ow, f = out
    kh, kw, c = (filt[0], filt[1], filt[2]) if filter_hwcf else (filt[1], filt[2], filt[3])
    return _Geometry(n, c, f, oh, ow, kh, kw, s[0], s[1], d[0], d[1])


def _nchw(shapes: Sequence[Sequence[int]], s: Sequence[int], d: Sequence[int]) -> _Geometry:
    _, filt, out = shapes
    n, f, oh, ow = out
    _, c, kh, kw = filt
    return _Geometry(n, c, f, oh, ow, kh, kw, s[0], s[1], d[0], d[1])


def _nhwc_col(g: _Geometry, n: AffineExpr, m: AffineExpr, k: AffineExpr) -> Exprs:
    kwc = g.kw * g.c
    h = (m // g.ow) * g.sh + (k // kwc) * g.dh
    w = (m % g.ow) * g.sw + ((k % kwc) // g.c) * g.dw
    return (n, h, w, k % g.c)


def _nchw_col(g: _Geometry, n: AffineExpr, k: AffineExpr, m: AffineExpr) -> Exprs:
    khw = g.kh * g.kw
    h = (m // g.ow) * g.sh + ((k % khw) // g.kw) * g.dh
    w = (m % g.ow) * g.sw + (k % g.kw) * g.dw
    return (n, k // khw, h, w)


_NHWC_OUT = ((0,), (1, 2), (3,))
LAYOUTS: dict[str, _Layout] = {
    "linalg.conv_2d_nhwc_hwcf": _Layout(
        lambda sh, s, d: _nhwc(sh, s, d, filter_hwcf=True),
        ((0, 1, 2), (3,)),
        _NHWC_OUT,
        lambda g: [g.n, g.oh * g.ow, g.kh * g.kw * g.c],
        _nhwc_col,
        ("col", "filter"),
        ((0, 1, 3), (3, 2), (0, 1, 2)),
    ),
    "linalg.conv_2d_nhwc_fhwc": _Layout(
        lambda sh, s, d: _nhwc(sh, s, d, filter_hwcf=False),
        ((0,), (1, 2, 3)),
        _NHWC_OUT,
        lambda g: [g.n, g.oh * g.ow, g.kh * g.kw * g.c],
        _nhwc_col,
        ("col", "filter"),
        ((0, 1, 3), (2, 3), (0, 1, 2)),
    ),
    "linalg.conv_2d_nchw_fchw": _Layout(
        _nchw,
        ((0,), (1, 2, 3)),
        ((0,), (1,), (2, 3)),
        lambda g: [g.n, g.c * g.kh * g.kw, g.oh * g.ow],
        _nchw_col,
        ("filter", "col"),
        ((1, 3), (0, 3, 2), (0, 1, 2)),
    ),
}


def _attr_ints(op: Operation, name: str) -> list[int]:
    """The op's strides or dilations (1, 1 when absent)."""
    return _ints(op.properties.get(name) or op.attributes.get(name), [1, 1])


def _reshaped(shape: Sequence[int], groups: Sequence[Sequence[int]]) -> list[int]:
    sizes: list[int] = []
    for group in groups:
        size = 1
        for i in group:
            size *= shape[i]
        sizes.append(size)
    return sizes


def _collapse(value: SSAValue, groups: Sequence[Sequence[int]], element: Attribute) -> Operation:
    value_type = value.type
    assert isinstance(value_type, TensorType)
    shape = value_type.get_shape()
    return tensor.CollapseShapeOp.build(
        operands=[value],
        result_types=[TensorType(element, _reshaped(shape, groups))],
        properties={"reassociation": reassociation_attr(groups)},
    )


def _maps(rank: int, exprs: Sequence[Sequence[AffineExpr]]) -> list[AffineMap]:
    return [AffineMap(rank, 0, tuple(e)) for e in exprs]


def _copy_body(element: Attribute) -> Region:
    block = Block(arg_types=[element, element])
    block.add_op(YieldOp(block.args[0]))
    return Region(block)


def _mac_body(element: Attribute) -> Region:
    block = Block(arg_types=[element, element, element])
    a, b, acc = block.args
    if isinstance(element, IntegerType):
        mul: Operation = arith.MuliOp(a, b)
        add: Operation = arith.AddiOp(mul.results[0], acc)
    else:
        mul = arith.MulfOp(a, b)
        add = arith.AddfOp(mul.results[0], acc)
    block.add_ops([mul, add, YieldOp(add.results[0])])
    return Region(block)


def _check(op: Operation) -> tuple[_Layout, _Geometry, Attribute]:
    layout = LAYOUTS.get(op.name)
    if layout is None or not isinstance(op, StructuredOpInterface):
        raise silenceable_failure(
            f"'{op.name}' is not a supported 2-D convolution ({', '.join(sorted(LAYOUTS))})"
        )
    operands = [*op.get_inputs(), *op.get_outputs()]
    types = [v.type for v in operands if isinstance(v.type, TensorType)]
    if len(operands) != 3 or len(types) != len(operands):
        raise silenceable_failure(
            "expected a convolution on tensors (img2col needs tensor semantics)"
        )
    shapes = [t.get_shape() for t in types]
    if any(s < 0 for shape in shapes for s in shape):
        raise silenceable_failure("expected static shapes")
    elements = {t.element_type for t in types}
    if len(elements) != 1:
        raise silenceable_failure("convolutions with mixed element types are not converted")
    geometry = layout.geometry(shapes, _attr_ints(op, "strides"), _attr_ints(op, "dilations"))
    return layout, geometry, elements.pop()


def convert_conv2d_to_img2col(op: Operation) -> tuple[Operation, Operation]:
    """Rewrite `op` (see the module docstring); returns (im2col op, replacing reshape op)."""
    layout, g, element = _check(op)
    assert isinstance(op, StructuredOpInterface)
    src, filt = op.get_inputs()
    (out,) = op.get_outputs()
    new: list[Operation] = []
    filt2 = _collapse(filt, layout.filter_reassociation, element)
    out2 = _collapse(out, layout.output_reassociation, element)
    empty = tensor.EmptyOp([], TensorType(element, layout.col_shape(g)))
    d = [AffineExpr.dimension(i) for i in range(4)]
    col_maps = _maps(3, [layout.col_map(g, d[0], d[1], d[2]), d[:3]])
    col = GenericOp(
        [src],
        [empty.results[0]],
        _copy_body(element),
        col_maps,
        ["parallel"] * 3,
        result_types=[empty.results[0].type],
    )
    by_name = {"col": col.results[0], "filter": filt2.results[0]}
    inputs = [by_name[name] for name in layout.operand_order]
    mm_maps = _maps(4, [[d[i] for i in dims] for dims in layout.matmul_maps])
    mm = GenericOp(
        inputs,
        [out2.results[0]],
        _mac_body(element),
        mm_maps,
        ["parallel", "parallel", "parallel", "reduction"],
        result_types=[out2.results[0].type],
    )
    out_type = out.type
    assert isinstance(out_type, TensorType)
    expanded = tensor.ExpandShapeOp(
        mm.results[0],
        [],
        reassociation_attr(layout.output_reassociation),
        list(out_type.get_shape()),
        out_type,
    )
    new = [filt2, out2, empty, col, mm, expanded]
    Rewriter.insert_op(new, InsertPoint.before(op))
    Rewriter.replace_op(op, [], [expanded.results[0]])
    return col, expanded


__all__ = ["LAYOUTS", "convert_conv2d_to_img2col"]
