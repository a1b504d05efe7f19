"""Vectorization of `linalg.index` and `tensor.extract` in linalg bodies (upstream's
`vectorizeLinalgIndex` / `vectorizeTensorExtract`).

`linalg.index d` becomes the lane coordinates along loop d: `arith.constant dense<[0, 1,
..]> : vector<n x index>` (upstream's `vector.step`) broadcast to the iteration shape, through
a shape with dims d and the last swapped plus a `vector.transpose` when d is not the last loop.

`tensor.extract %t[%i, ..]` from a tensor captured from outside is classified as upstream's
`getTensorExtractMemoryAccessPattern` does:

- **scalar broadcast** (a 0-D tensor, or loop-invariant indices with a single non-unit loop,
  the last): `vector.transfer_read %t[%i, ..]` with an all-zero permutation map;
- **contiguous** (a single non-unit loop, the last; leading indices loop-invariant; the
  trailing index `linalg.index <that loop>` plus invariants by `arith.addi`):
  `vector.transfer_read %t[%i, .., %j0]` at lane 0's indices, minor-identity map;
- **gather** otherwise (several non-unit loops, dynamic loop ranges, a trailing source dim
  of 1, data-dependent or strided indices): `vector.gather %t[0, ..] [%offsets], %mask,
  %pass_thru` with the row-major linearised indices (`(i0 * n1 + i1) * n2 + ..`), an
  all-true mask (the iteration mask under masked vectorization) and zero pass-through.

Loop-invariant: defined outside the op, a constant, `linalg.index` of a loop of static size 1,
or computed from those only. Without `vectorize_nd_extract` only 0-D and 1-D extracts are
vectorized (as upstream); an n-D one is a silenceable failure. (`affine.apply` in the body is
expanded to arith before, by `vectorize`.)

Where we differ from upstream (iree-opt 3.13): a trailing index adding the loop's
`linalg.index` more than once (`j + j`, stride 2) is a gather, not a contiguous read of the
wrong elements; the masked gather takes the iteration mask as its own mask instead of being
wrapped in `vector.mask`, and the broadcast read is not wrapped in an all-true
`vector.mask` (the same lanes either way).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum

from xdsl.dialects import arith, tensor, vector
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    TensorType,
    VectorType,
)
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap

from xlinalg.dialects.linalg.generic import IndexOp
from xlinalg.dialects.vector import TransposeOp
from xlinalg.dialects.vector_gather import GatherOp
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import defined_inside
from xlinalg.transforms.linalg.vector_emitter import padding_constant
from xlinalg.transforms.vector import builders as vector_builders
from xlinalg.transforms.vector.builders import in_bounds_attr


class Access(Enum):
    SCALAR_BROADCAST = "scalar broadcast"
    CONTIGUOUS = "contiguous"
    GATHER = "gather"


def check_extract(op: tensor.ExtractOp, vectorize_nd_extract: bool) -> None:
    """Silenceable failure for an extract the vectorizer does not handle."""
    if len(op.indices) > 1 and not vectorize_nd_extract:
        raise silenceable_failure(
            f"cannot vectorize an {len(op.indices)}-D tensor.extract without vectorize_nd_extract"
        )
    if not isinstance(op.result.type, IntegerType | IndexType | AnyFloat):
        raise silenceable_failure(f"cannot vectorize a tensor.extract of {op.result.type}")


def _loop_invariant(linalg_op: Operation, ranges: Sequence[int | None], value: SSAValue) -> bool:
    if not defined_inside(value, linalg_op):
        return True
    owner = value.owner
    if not isinstance(owner, Operation):  # a block argument of the body: an operand element
        return False
    if isinstance(owner, IndexOp):
        return ranges[owner.dim.value.data] == 1
    if isinstance(owner, arith.ConstantOp):
        return True
    return all(_loop_invariant(linalg_op, ranges, o) for o in owner.operands)


def _contiguous_index(linalg_op: Operation, value: SSAValue, trailing: int) -> int | None:
    """How many times `linalg.index trailing` is added into `value`, when `value` is a sum
    (`arith.addi`) of loop invariants and `linalg.index` values; None otherwise."""
    if not defined_inside(value, linalg_op):
        return 0
    owner = value.owner
    if isinstance(owner, IndexOp):
        return 1 if owner.dim.value.data == trailing else 0
    if isinstance(owner, arith.ConstantOp):
        return 0
    if not isinstance(owner, arith.AddiOp):
        return None
    parts = [_contiguous_index(linalg_op, o, trailing) for o in owner.operands]
    return None if None in parts else sum(p for p in parts if p is not None)


def classify(linalg_op: StructuredOpInterface, op: tensor.ExtractOp) -> Access:
    """Upstream's memory access pattern of `op` in the body of `linalg_op`."""
    assert isinstance(linalg_op, Operation)
    source = op.tensor.type
    assert isinstance(source, TensorType)
    shape = source.get_shape()
    if not shape:
        return Access.SCALAR_BROADCAST
    ranges = linalg_op.get_static_loop_ranges()
    if any(r is None or r < 0 for r in ranges):
        return Access.GATHER
    if sum(1 for r in ranges if r != 1) != 1 or ranges[-1] == 1:
        return Access.GATHER
    if shape[-1] == 1:
        return Access.GATHER
    indices = list(op.indices)
    if not all(
        shape[i] == 1 or _loop_invariant(linalg_op, ranges, v) for i, v in enumerate(indices[:-1])
    ):
        return Access.GATHER
    if _loop_invariant(linalg_op, ranges, indices[-1]):
        return Access.SCALAR_BROADCAST
    # stride 1 along the one non-unit loop (a sum counting it twice has stride 2)
    found = _contiguous_index(linalg_op, indices[-1], len(ranges) - 1)
    return Access.CONTIGUOUS if found == 1 else Access.GATHER


Add = Callable[[Operation], Operation]


def vectorize_index(add: Add, dim: int, sizes: Sequence[int]) -> SSAValue:
    """`linalg.index dim` as a vector of the iteration shape `sizes`."""
    n = len(sizes)
    step_t = VectorType(IndexType(), [sizes[dim]])
    step = add(
        arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(step_t, list(range(sizes[dim]))))
    ).results[0]
    if dim == n - 1:
        return add(vector_builders.broadcast(step, VectorType(IndexType(), sizes))).results[0]
    perm = list(range(n))
    perm[dim], perm[-1] = perm[-1], perm[dim]
    swapped = add(
        vector_builders.broadcast(step, VectorType(IndexType(), [sizes[p] for p in perm]))
    ).results[0]
    return add(TransposeOp(swapped, perm)).results[0]


def vectorize_extract(
    add: Add,
    linalg_op: StructuredOpInterface,
    op: tensor.ExtractOp,
    vector_of: Callable[[SSAValue], SSAValue],
    sizes: Sequence[int],
    exact: Sequence[bool],
    iteration_mask: Callable[[], SSAValue],
) -> SSAValue:
    """The vector of `op`'s values over the iteration space (of shape `sizes`)."""
    assert isinstance(linalg_op, Operation)
    source = op.tensor
    stype = source.type
    assert isinstance(stype, TensorType)
    rtype = VectorType(stype.element_type, sizes)
    kind = classify(linalg_op, op)
    n, rank = len(sizes), stype.get_num_dims()

    def scalar_of(index: SSAValue) -> SSAValue:
        if not defined_inside(index, linalg_op):
            return index
        lanes = vector_of(index)
        splat = lanes.owner
        if isinstance(splat, vector.BroadcastOp) and not isinstance(splat.source.type, VectorType):
            return splat.source  # a broadcast scalar (a constant of the body)
        return add(vector_builders.extract(lanes, [0] * n)).results[0]

    if kind is not Access.GATHER:
        indices = [scalar_of(i) for i in op.indices]
        results: list[AffineExpr]
        if kind is Access.SCALAR_BROADCAST:
            results = [AffineConstantExpr(0)] * n
        else:
            results = [AffineConstantExpr(0)] * max(n - rank, 0)
            results += [AffineDimExpr(d) for d in range(max(rank - n, 0), rank)]
        flags = [isinstance(e, AffineConstantExpr) or exact[d] for d, e in enumerate(results)]
        pad = add(padding_constant(stype.element_type)).results[0]
        read = vector.TransferReadOp(
            source,
            indices,
            pad,
            rtype,
            in_bounds_attr(flags),
            AffineMapAttr(AffineMap(rank, 0, tuple(results))),
        )
        return add(read).results[0]

    index_t = VectorType(IndexType(), sizes)
    zero = add(arith.ConstantOp.from_int_and_width(0, IndexType())).results[0]
    offsets: SSAValue | None = None
    for d, index in enumerate(op.indices):
        value = vector_of(index)
        if offsets is not None:
            if stype.get_shape()[d] >= 0:
                extent = add(
                    arith.ConstantOp.from_int_and_width(stype.get_shape()[d], IndexType())
                ).results[0]
            else:
                dim = add(arith.ConstantOp.from_int_and_width(d, IndexType())).results[0]
                extent = add(tensor.DimOp(source, dim)).results[0]
            scaled = add(
                arith.MuliOp(offsets, add(vector_builders.broadcast(extent, index_t)).results[0])
            ).results[0]
            value = add(arith.AddiOp(value, scaled)).results[0]
        offsets = value
    if offsets is None:  # unreachable: 0-D extracts are scalar broadcasts
        raise AssertionError("gather of a 0-D tensor")
    mask_t = VectorType(IntegerType(1), sizes)
    if all(exact):
        mask = add(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(mask_t, [1]))).results[0]
    else:  # upstream masks the gather with the iteration mask (vector.mask, folded here)
        mask = iteration_mask()
    zero_element = 0 if isinstance(stype.element_type, IntegerType | IndexType) else 0.0
    pass_thru = add(
        arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(rtype, [zero_element]))
    ).results[0]
    return add(GatherOp(source, [zero] * rank, offsets, mask, pass_thru)).results[0]


__all__ = ["Access", "check_extract", "classify", "vectorize_extract", "vectorize_index"]
