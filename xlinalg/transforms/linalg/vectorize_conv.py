"""Vectorization of 1-D (and NHWC/HWCF 2-D) convolutions on memrefs or tensors (upstream
`vectorizeConvolution`, the `Conv1DGenerator` of Vectorization.cpp).

Upstream vectorizes only 1-D convolutions; 2-D ones are first decomposed
(`transform.structured.decompose`, after tiling KH and OH to 1). As upstream,
every operand is read whole with one `vector.transfer_read`:

```
linalg.conv_1d_nwc_wcf {strides = s, dilations = d}
    ins(%in : memref<N x Win x C>, %f : memref<KW x C x F>) outs(%out : memref<N x W x F>)
==>
%I = vector.transfer_read %in  : vector<N x ((W-1)*s + (KW-1)*d + 1) x C>
%K = vector.transfer_read %f   : vector<KW x C x F>
%O = vector.transfer_read %out : vector<N x W x F>
acc[n][w] = O[n, w]                                   (W x N accumulators, F lanes each)
for kw, c:   row = K[kw, c]                           (a filter row: F lanes)
  for n, w:  acc[n][w] = fma(broadcast(I[n, w*s + kw*d, c]), row, acc[n][w])
vector.transfer_write (O with every acc[n][w] inserted) to %out
```

This is upstream's unrolled W × KW sequence of contractions over C, with the
contractions already lowered to outer products and those to broadcast + FMA
(what `lower_contraction lowering_strategy = outerproduct` and
`lower_outerproduct` give upstream), built directly: the F dim is the vector
lane dim and a W × N block of accumulators lives in registers, i.e. a
register-blocked micro-kernel. Tile F to a multiple of the SIMD width and W
so that W × F / lanes accumulators fit in the register file before
vectorizing.

`linalg.conv_2d_nhwc_hwcf` (loops n, oh, ow, f, kh, kw, c) is vectorized the
same way without decomposing it first, an extension: an N x OH x OW block of
accumulators, `acc[n][h][w] += broadcast(I[n, h*s0 + kh*d0, w*s1 + kw*d1, c]) *
K[kh, kw, c]`, so a register block can span several output rows (tile OH, OW
and F to the block, KH and KW to 1). A subview whose size operand is a constant
(the full blocks of a peeled loop) counts as that size: its transfers are in
bounds, as upstream's canonicalization makes them by folding the size into
the type.

`linalg.depthwise_conv_1d_nwc_wc` is vectorized the same way with the channel
dim as lanes: `acc[n][w] = fma(I[n, w*s + kw*d], K[kw], acc[n][w])`.

With `vector_sizes` (one per loop of the op: n, w, f, kw, c for
`conv_1d_nwc_wcf`; n, w, c, kw for the depthwise op) dims whose extent is
dynamic or smaller are read with out-of-bounds transfers: the padding lanes are
zeros (no contribution) and the output write skips them, as upstream's masked
vectorization computes. Upstream rejects dynamic shapes in conv vectorization;
accepting them with explicit vector sizes is an extension.

Preconditions (else `TransformFailure(silenceable=True)`, payload untouched):
memref (or, all of them, ranked tensor) operands with one element type, a static
shape or vector sizes, a multiply-accumulate body.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerType, MemRefType, TensorType, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap

from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import constant_index_value
from xlinalg.transforms.linalg.decompose import _ints
from xlinalg.transforms.linalg.vector_emitter import (
    VectorEmitter,
    check_operand_kinds,
    is_contraction_body,
    payload_block,
    replace_vectorized,
    vector_sizes_for,
)
from xlinalg.transforms.vector import builders as vb

CONV_1D_OPS = ("linalg.conv_1d_nwc_wcf", "linalg.depthwise_conv_1d_nwc_wc")
#: Convolutions this module vectorizes directly: upstream's 1-D ones and, as an
#: extension, the 2-D NHWC/HWCF one (a register block over several output rows).
CONV_OPS = (*CONV_1D_OPS, "linalg.conv_2d_nhwc_hwcf")


def _spatial_rank(op: Operation) -> int:
    return 2 if op.name == "linalg.conv_2d_nhwc_hwcf" else 1


def _int_attrs(op: Operation, name: str) -> list[int]:
    """The strides or dilations of a convolution, one per spatial dim (1 when absent)."""
    rank = _spatial_rank(op)
    return _ints(op.properties.get(name) or op.attributes.get(name), [1] * rank)


def check_conv_vectorizable(
    op: Operation, vector_sizes: Sequence[int] | None = None
) -> StructuredOpInterface:
    """The op as a structured op if `vectorize_conv` applies; silenceable failure otherwise."""
    if op.name not in CONV_OPS or not isinstance(op, StructuredOpInterface):
        raise silenceable_failure(
            f"'{op.name}' is not a vectorizable convolution ({', '.join(CONV_OPS)})"
        )
    operands = op.get_operands_in_order()
    types = [v.type for v in operands if isinstance(v.type, MemRefType | TensorType)]
    if len(types) != len(operands):
        raise silenceable_failure("only convolutions on memrefs or ranked tensors are vectorized")
    check_operand_kinds(op, operands)
    elements = {t.element_type for t in types}
    if len(elements) != 1:
        raise silenceable_failure("convolutions with mixed element types are not vectorized")
    if not is_contraction_body(payload_block(op)):
        raise silenceable_failure("the convolution body is not a multiply-accumulate")
    sizes, _ = vector_sizes_for(op, vector_sizes)
    if any(s == 0 for s in sizes):
        raise silenceable_failure("cannot vectorize a convolution with an empty loop range")
    return op


def known_shape(value: SSAValue) -> list[int]:
    """The memref's shape, with the dynamic sizes of a `memref.subview` whose size operand
    is a constant filled in (what canonicalization folds into the type upstream, e.g.
    the full blocks of a peeled loop: `[1, %c2, 7, 16]` is 2 rows); negative if unknown."""
    value_type = value.type
    assert isinstance(value_type, MemRefType | TensorType)
    shape = list(value_type.get_shape())
    owner = value.owner
    if all(s >= 0 for s in shape) or not isinstance(owner, memref.SubviewOp):
        return shape
    static = owner.static_sizes.get_values()
    if len(static) != len(shape):  # rank-reducing
        return shape
    dynamic = iter(owner.sizes)
    sizes = [constant_index_value(next(dynamic)) if s == DYNAMIC_INDEX else s for s in static]
    return [s if s >= 0 or k is None else k for s, k in zip(shape, sizes, strict=True)]


def _known_loop_ranges(op: StructuredOpInterface, depthwise: bool) -> list[int]:
    """Loop ranges n, *ws, f, *ks(, c) from the output's and the filter's known shapes."""
    _, filt = op.get_inputs()
    (out,) = op.get_outputs()
    out_shape, filt_shape = known_shape(out), known_shape(filt)
    rank = len(out_shape) - 2
    if depthwise:
        return [*out_shape, *filt_shape[:rank]]
    return [*out_shape, *filt_shape[: rank + 1]]


def _in_bounds(memref: SSAValue, extents: Sequence[int], exact: Sequence[bool]) -> list[bool]:
    """A dim is in bounds when its loop is covered exactly and the known extent holds the read."""
    shape = known_shape(memref)
    return [e and 0 <= extent <= s for s, extent, e in zip(shape, extents, exact, strict=True)]


def _mul_add(em: VectorEmitter, a: SSAValue, b: SSAValue, acc: SSAValue) -> SSAValue:
    assert isinstance(acc.type, VectorType)
    if isinstance(acc.type.element_type, IntegerType):
        prod = em.add(arith.MuliOp(a, b)).results[0]
        return em.add(arith.AddiOp(prod, acc)).results[0]
    return em.add(vb.fma(a, b, acc)).results[0]


def vectorize_conv(op: Operation, vector_sizes: Sequence[int] | None = None) -> list[Operation]:
    """Replace a convolution by register-blocked FMA vector code; return the new ops."""
    structured = check_conv_vectorizable(op, vector_sizes)
    sizes, exact = vector_sizes_for(structured, vector_sizes)
    depthwise = op.name == "linalg.depthwise_conv_1d_nwc_wc"
    known = _known_loop_ranges(structured, depthwise)
    exact = [e or k == v for e, k, v in zip(exact, known, sizes, strict=True)]
    strides, dilations = _int_attrs(op, "strides"), _int_attrs(op, "dilations")
    rank = len(strides)
    src, filt = structured.get_inputs()
    (out,) = structured.get_outputs()
    out_type = out.type
    assert isinstance(out_type, MemRefType | TensorType)
    element = out_type.element_type
    em = VectorEmitter(op)
    before = op.prev_op
    # loops: n, *ws, f, *ks, c (depthwise: n, w, c, kw with c as the lane dim f)
    n, en = sizes[0], exact[0]
    ws, ews = sizes[1 : 1 + rank], exact[1 : 1 + rank]
    f, ef = sizes[1 + rank], exact[1 + rank]
    ks, eks = sizes[2 + rank : 2 + 2 * rank], exact[2 + rank : 2 + 2 * rank]
    c, ec = (f, ef) if depthwise else (sizes[-1], exact[-1])
    wins = [(w - 1) * s + (k - 1) * d + 1 for w, k, s, d in zip(ws, ks, strides, dilations)]
    ewins = [a and b for a, b in zip(ews, eks)]

    def read(memref: SSAValue, shape: list[int], flags: list[bool]) -> SSAValue:
        bounds = _in_bounds(memref, shape, flags)
        return em.read(memref, VectorType(element, shape), AffineMap.identity(len(shape)), bounds)

    in_v = read(src, [n, *wins, c], [en, *ewins, ec])
    filt_v = (
        read(filt, [*ks, c], [*eks, ec]) if depthwise else read(filt, [*ks, c, f], [*eks, ec, ef])
    )
    out_shape, out_flags = [n, *ws, f], [en, *ews, ef]
    out_bounds = _in_bounds(out, out_shape, out_flags)
    out_v = em.read(
        out, VectorType(element, out_shape), AffineMap.identity(len(out_shape)), out_bounds
    )
    row_type = VectorType(element, [f])
    points = [(i, *p) for i in range(n) for p in product(*(range(w) for w in ws))]
    acc: dict[tuple[int, ...], SSAValue] = {
        pt: em.add(vb.extract(out_v, list(pt))).results[0] for pt in points
    }

    def pixel(pt: tuple[int, ...], kpos: tuple[int, ...]) -> list[int]:
        """The input position of output point `pt` under filter position `kpos`."""
        i, *p = pt
        return [i, *(w * s + k * d for w, k, s, d in zip(p, kpos, strides, dilations))]

    for kpos in product(*(range(k) for k in ks)):
        if depthwise:
            row = em.add(vb.extract(filt_v, list(kpos))).results[0]
            for pt, a in acc.items():
                x = em.add(vb.extract(in_v, pixel(pt, kpos))).results[0]
                acc[pt] = _mul_add(em, x, row, a)
            continue
        for ch in range(c):
            row = em.add(vb.extract(filt_v, [*kpos, ch])).results[0]
            for pt, a in acc.items():
                x = em.add(vb.extract(in_v, [*pixel(pt, kpos), ch])).results[0]
                b = em.broadcast(x, row_type)
                acc[pt] = _mul_add(em, b, row, a)
    result = out_v
    for pt, a in acc.items():
        result = em.add(vb.insert(a, result, list(pt))).results[0]
    em.write(result, out, AffineMap.identity(len(out_shape)), out_bounds)
    return replace_vectorized(op, before, em)


__all__ = ["CONV_1D_OPS", "CONV_OPS", "check_conv_vectorizable", "vectorize_conv"]
