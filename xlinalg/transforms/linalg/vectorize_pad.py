"""Vectorization of `tensor.pad` (upstream's `vectorizeAsTensorPadOp`).

```
%p = tensor.pad %src low[0, 0] high[%h0, 3] { tensor.yield %cst } : tensor<?x13xf32> to tensor<?x16xf32>
==> (vector sizes [8, 16])
%e = tensor.empty(%d0) : tensor<?x16xf32>            // %d0 = dim %src, 0 + %h0
%m = vector.create_mask %s0, %c13 : vector<8x16xi1>  // the source's sizes
%v = vector.mask %m { vector.transfer_read %src[%c0, %c0], %cst {in_bounds = [true, true]}
       : tensor<?x13xf32>, vector<8x16xf32> } : vector<8x16xi1> -> vector<8x16xf32>
%p = vector.transfer_write %v, %e[%c0, %c0] ...      // masked by the result's sizes unless
                                                     // the vector covers it exactly
```
The masked-off lanes of the read are the padding value: the read is the padded tile.

Preconditions (else a silenceable failure, payload untouched): zero low padding (as
upstream), a padding value that does not depend on the indices (the region yields a
value defined outside it or a constant), vector sizes (one per dim, at least the static
result sizes) or a static result shape.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap

from xlinalg.errors import silenceable_failure
from xlinalg.transforms.linalg.vector_emitter import VectorEmitter, dim_value, replace_vectorized


def _padding_value(op: tensor.PadOp) -> SSAValue:
    block = op.region.block
    term = block.last_op
    assert term is not None
    value = term.operands[0]
    owner = value.owner
    if isinstance(owner, Operation) and owner.parent_block() is block:
        if isinstance(owner, arith.ConstantOp):
            return value
        raise silenceable_failure(
            "the padding value depends on the indices (only a constant or a value "
            "defined outside the region is vectorized)"
        )
    if value in block.args:
        raise silenceable_failure("the padding value depends on the indices")
    return value


def _sizes(op: tensor.PadOp, vector_sizes: Sequence[int] | None) -> list[int]:
    shape = op.result.type.get_shape()
    if vector_sizes is None:
        if any(s < 0 for s in shape):
            raise silenceable_failure(
                "cannot vectorize a tensor.pad of dynamic shape without vector sizes"
            )
        return list(shape)
    if len(vector_sizes) != len(shape):
        raise silenceable_failure(
            f"expected {len(shape)} vector sizes (one per dim), got {len(vector_sizes)}"
        )
    for d, (s, v) in enumerate(zip(shape, vector_sizes)):
        if v <= 0 or (s >= 0 and v < s):
            raise silenceable_failure(
                f"vector size {v} of dim {d} is not positive or smaller than the static size {s}"
            )
    return list(vector_sizes)


def check_pad_vectorizable(op: tensor.PadOp, vector_sizes: Sequence[int] | None) -> list[int]:
    """The vector sizes if `vectorize_pad` applies; silenceable failure otherwise."""
    if any(v != 0 for v in op.static_low.get_values()):
        raise silenceable_failure(
            "only tensor.pad with zero low padding is vectorized (as upstream)"
        )
    _padding_value(op)
    return _sizes(op, vector_sizes)


def vectorize_pad(op: tensor.PadOp, vector_sizes: Sequence[int] | None = None) -> list[Operation]:
    """Replace `op` by a (masked) read of its source with the padding value as padding and
    a write into a new tensor; return the new ops."""
    sizes = check_pad_vectorizable(op, vector_sizes)
    pad = _padding_value(op)
    em = VectorEmitter(op)
    before = op.prev_op
    source, result_type = op.source, op.result.type
    assert isinstance(source.type, TensorType)
    assert isinstance(result_type, TensorType)
    if isinstance(pad.owner, arith.ConstantOp) and pad.owner.parent_op() is op:
        pad = em.add(pad.owner.clone()).results[0]
    highs = iter(op.high)
    dynamic: list[SSAValue] = []
    for d, (s, h) in enumerate(zip(result_type.get_shape(), op.static_high.get_values())):
        high = next(highs) if h == DYNAMIC_INDEX else None
        if s >= 0:
            continue
        size = dim_value(em, source, d)
        extra = (
            high
            if high is not None
            else em.add(arith.ConstantOp(IntegerAttr(h, IndexType()))).results[0]
        )
        dynamic.append(em.add(arith.AddiOp(size, extra)).results[0])
    empty = em.add(tensor.EmptyOp(dynamic, result_type)).results[0]
    rank = len(sizes)
    identity = AffineMap.identity(rank)
    vtype = VectorType(source.type.element_type, sizes)
    exact_source = [s == v for s, v in zip(source.type.get_shape(), sizes)]
    value = em.read(source, vtype, identity, exact_source, padding=pad)
    exact_result = [s == v for s, v in zip(result_type.get_shape(), sizes)]
    em.write(value, empty, identity, exact_result)
    return replace_vectorized(op, before, em)


__all__ = ["check_pad_vectorizable", "vectorize_pad"]
