"""Vectorization of 1-D convolutions on memrefs (upstream `vectorizeConvolution`,
the `Conv1DGenerator` of Vectorization.cpp).

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

`linalg.depthwise_conv_1d_nwc_wc` is vectorized the same way with the channel
dim as lanes: `acc[n][w] = fma(I[n, w*s + kw*d], K[kw], acc[n][w])`.

With `vector_sizes` (one per loop of the op: n, w, f, kw, c for
`conv_1d_nwc_wcf`; n, w, c, kw for the depthwise op) dims whose extent is
dynamic or smaller are read with out-of-bounds transfers: the padding lanes are
zeros (no contribution) and the output write skips them, as upstream's masked
vectorization computes. Upstream rejects dynamic shapes in conv vectorization;
accepting them with explicit vector sizes is an extension.

Preconditions (else `TransformFailure(silenceable=True)`, payload untouched):
memref operands with one element type (no tensors: bufferize first), a static
shape or vector sizes, a multiply-accumulate body.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, MemRefType, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap

from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.transforms import vector_builders as vb
from xlinalg.transforms.decompose import _ints
from xlinalg.transforms.vectorize import _body, _contraction_body, _Emitter, _fail, vector_sizes_for

CONV_1D_OPS = ("linalg.conv_1d_nwc_wcf", "linalg.depthwise_conv_1d_nwc_wc")


def _int_attr(op: Operation, name: str) -> int:
    """The single stride or dilation of a 1-D convolution (1 when absent)."""
    return _ints(op.properties.get(name) or op.attributes.get(name), [1])[0]


def check_conv_vectorizable(
    op: Operation, vector_sizes: Sequence[int] | None = None
) -> StructuredOpInterface:
    """The op as a structured op if `vectorize_conv` applies; silenceable failure otherwise."""
    if op.name not in CONV_1D_OPS or not isinstance(op, StructuredOpInterface):
        raise _fail(f"'{op.name}' is not a vectorizable 1-D convolution ({', '.join(CONV_1D_OPS)})")
    operands = op.get_operands_in_order()
    if not all(isinstance(v.type, MemRefType) for v in operands):
        raise _fail("only convolutions on memrefs are vectorized (bufferize tensors first)")
    elements = {v.type.element_type for v in operands}  # type: ignore[attr-defined]
    if len(elements) != 1:
        raise _fail("convolutions with mixed element types are not vectorized")
    if not _contraction_body(_body(op)):
        raise _fail("the convolution body is not a multiply-accumulate")
    sizes, _ = vector_sizes_for(op, vector_sizes)
    if any(s == 0 for s in sizes):
        raise _fail("cannot vectorize a convolution with an empty loop range")
    return op


def _in_bounds(memref: SSAValue, extents: Sequence[int], exact: Sequence[bool]) -> list[bool]:
    """A dim is in bounds when its loop is covered exactly and the static extent holds the read."""
    shape = memref.type.get_shape()  # type: ignore[attr-defined]
    return [e and 0 <= extent <= s for s, extent, e in zip(shape, extents, exact, strict=True)]


def _mul_add(em: _Emitter, a: SSAValue, b: SSAValue, acc: SSAValue) -> SSAValue:
    assert isinstance(acc.type, VectorType)
    if isinstance(acc.type.element_type, IntegerType):
        prod = em.add(arith.MuliOp(a, b)).results[0]
        return em.add(arith.AddiOp(prod, acc)).results[0]
    return em.add(vb.fma(a, b, acc)).results[0]


def vectorize_conv(op: Operation, vector_sizes: Sequence[int] | None = None) -> list[Operation]:
    """Replace a 1-D convolution by register-blocked FMA vector code; return the new ops."""
    structured = check_conv_vectorizable(op, vector_sizes)
    sizes, exact = vector_sizes_for(structured, vector_sizes)
    stride, dilation = _int_attr(op, "strides"), _int_attr(op, "dilations")
    src, filt = structured.get_inputs()
    (out,) = structured.get_outputs()
    element = out.type.element_type  # type: ignore[attr-defined]
    em = _Emitter(op)
    before = op.prev_op
    depthwise = op.name == "linalg.depthwise_conv_1d_nwc_wc"
    if depthwise:
        n, w, c, kw = sizes
        en, ew, ec, ekw = exact
        f, ef = c, ec
    else:
        n, w, f, kw, c = sizes
        en, ew, ef, ekw, ec = exact
    win = (w - 1) * stride + (kw - 1) * dilation + 1
    ewin = ew and ekw

    def read(memref: SSAValue, shape: list[int], flags: list[bool]) -> SSAValue:
        rank = len(shape)
        bounds = _in_bounds(memref, shape, flags)
        return em.read(memref, VectorType(element, shape), AffineMap.identity(rank), bounds)

    if depthwise:
        in_v = read(src, [n, win, c], [en, ewin, ec])
        filt_v = read(filt, [kw, c], [ekw, ec])
    else:
        in_v = read(src, [n, win, c], [en, ewin, ec])
        filt_v = read(filt, [kw, c, f], [ekw, ec, ef])
    out_shape, out_flags = [n, w, f], [en, ew, ef]
    out_bounds = _in_bounds(out, out_shape, out_flags)
    out_v = em.read(out, VectorType(element, out_shape), AffineMap.identity(3), out_bounds)
    row_type = VectorType(element, [f])
    acc = {(i, j): em.add(vb.extract(out_v, [i, j])).results[0] for i in range(n) for j in range(w)}
    for k in range(kw):
        if depthwise:
            row = em.add(vb.extract(filt_v, [k])).results[0]
            for (i, j), a in acc.items():
                x = em.add(vb.extract(in_v, [i, j * stride + k * dilation])).results[0]
                acc[i, j] = _mul_add(em, x, row, a)
            continue
        for ch in range(c):
            row = em.add(vb.extract(filt_v, [k, ch])).results[0]
            for (i, j), a in acc.items():
                x = em.add(vb.extract(in_v, [i, j * stride + k * dilation, ch])).results[0]
                b = em.broadcast(x, row_type)
                acc[i, j] = _mul_add(em, b, row, a)
    result = out_v
    for (i, j), a in acc.items():
        result = em.add(vb.insert(a, result, [i, j])).results[0]
    em.write(result, out, AffineMap.identity(3), out_bounds)
    created: list[Operation] = []
    cursor = before.next_op if before is not None else op.parent_block().first_op  # type: ignore[union-attr]
    while cursor is not None and cursor is not op:
        created.append(cursor)
        cursor = cursor.next_op
    op.detach()
    op.erase()
    return created


__all__ = ["CONV_1D_OPS", "check_conv_vectorizable", "vectorize_conv"]
