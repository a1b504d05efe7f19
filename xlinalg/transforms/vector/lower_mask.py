"""Mask lowering: `vector.create_mask`/`vector.constant_mask` of rank ≥ 2 → 1-D masks
(upstream's `lower_masks`), and `vector.mask` regions → masked ops (upstream's
`lower_masked_transfers` and the MaskOp lowering).

- n-D `create_mask %b0, %b1, ...`: the (n-1)-D mask of the trailing bounds,
  inserted at every leading index i, selected against all-false by
  `i < %b0` (`arith.select`); `constant_mask [s0, ...]`: the trailing
  constant mask at indices < s0; a 1-D `constant_mask` becomes a dense
  `arith.constant` of i1. 1-D `create_mask` is the primitive.
- `vector.mask %m { transfer_read }` → the read with `%m` as its mask operand;
  `{ transfer_write }` → the write with `%m` as its mask;
  `{ elementwise op }` → the op unmasked (masked-off lanes are undefined
  without a passthru); an empty region folds;
- masked reductions (`{ vector.multi_reduction }`, `{ vector.reduction }`):
  the masked-off source lanes become the combining kind's neutral element,
  `reduce(select(%m, %src, neutral), %acc)` (upstream's lowering of masked
  reductions without vector-predication intrinsics);
- a passthru (`vector.mask %m, %pt { op }`, result of the mask's shape) →
  `arith.select %m, <lowered op>, %pt` (our `arith.select` with a vector
  condition, `xlinalg.dialects.arith`); a transfer_read keeps its padding
  for the masked-off lanes, which the select then replaces. (Upstream's
  `lower_masked_transfers` leaves a read with a passthru alone; the select
  form is the op's definition: masked-off lanes are the passthru's.)
"""

from __future__ import annotations

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType, VectorType
from xdsl.ir import Operation, SSAValue

from xlinalg.dialects.arith import SelectOp
from xlinalg.dialects.vector import (
    ConstantMaskOp,
    MaskOp,
    MaskYieldOp,
    MultiDimReductionOp,
    vector_shape,
)
from xlinalg.errors import silenceable_failure
from xlinalg.transforms.linalg.split_reduction import neutral_element
from xlinalg.transforms.vector.builders import insert, splat_attr
from xlinalg.transforms.vector.lower_multi_reduction import FLOAT_COMBINE, INT_COMBINE
from xlinalg.transforms.vector.rewrite import VectorBuilder, apply_to_all, replace_op

I1 = IntegerType(1)


def lower_create_mask(op: vector.CreateMaskOp | ConstantMaskOp) -> None:
    t = op.results[0].type
    assert isinstance(t, VectorType)
    shape = vector_shape(t)
    b = VectorBuilder.before(op)
    if isinstance(op, ConstantMaskOp) and len(shape) == 1:
        (n,) = shape
        (size,) = op.get_sizes()
        values = [1] * size + [0] * (n - size)
        replace_op(op, [b.add(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, values)))])
        return
    if len(shape) < 2:
        raise silenceable_failure("a 1-D vector.create_mask is the primitive")
    row_t = VectorType(I1, shape[1:])
    result = b.zeros(t)
    if isinstance(op, ConstantMaskOp):
        sizes = op.get_sizes()
        row = b.add(ConstantMaskOp(sizes[1:], row_t))
        for i in range(min(sizes[0], shape[0])):
            result = b.add(insert(row, result, [i]))
    else:
        # (the operand list type xDSL's CreateMaskOp takes)
        bounds: list[SSAValue | Operation] = list(op.mask_dim_sizes)
        row = b.add(vector.CreateMaskOp(bounds[1:], row_t))
        none = b.zeros(row_t)
        for i in range(shape[0]):
            inside = b.add(arith.CmpiOp(b.index(i), bounds[0], "slt"))
            result = b.add(insert(b.add(arith.SelectOp(inside, row, none)), result, [i]))
    replace_op(op, [result])


def lower_create_masks(root: Operation) -> int:
    return apply_to_all(root, (vector.CreateMaskOp, ConstantMaskOp), lower_create_mask)


def lower_mask_op(op: MaskOp) -> None:
    """Replace one `vector.mask` region by the masked form of its op."""
    inner = op.masked_op()
    b = VectorBuilder.before(op)
    if inner is None:
        term = op.body.block.last_op
        assert isinstance(term, MaskYieldOp)
        replace_op(op, list(term.values))
        return
    mask = op.mask
    if op.passthru is not None and (
        not isinstance(mask.type, VectorType)
        or vector_shape(mask.type) != vector_shape(op.passthru.type)
    ):
        raise silenceable_failure(
            "a vector.mask passthru is lowered when the result has the mask's shape"
        )
    if isinstance(inner, vector.TransferReadOp | vector.TransferWriteOp):
        if inner.mask is not None:
            raise silenceable_failure("a transfer inside vector.mask already has a mask")
        masked = with_mask(inner, mask)
        b.insert(masked)
        values = list(masked.results)
    elif isinstance(inner, MultiDimReductionOp | vector.ReductionOp):
        values = [masked_reduction(b, inner, mask)]
    elif inner.name.startswith(("arith.", "math.")) or isinstance(inner, vector.FMAOp):
        new = inner.clone()
        b.insert(new)
        values = list(new.results)
    else:
        raise silenceable_failure(f"cannot lower '{inner.name}' inside vector.mask")
    if op.passthru is not None:
        values = [b.add(SelectOp(mask, values[0], op.passthru))]
    replace_op(op, values)


def neutral_vector(b: VectorBuilder, kind: str, t: VectorType) -> SSAValue:
    """A splat of the neutral element of combining `kind` (0 for add, 1 for mul, -inf for
    max, the largest value for min, all ones for and, ...)."""
    element = t.element_type
    table = INT_COMBINE if isinstance(element, IntegerType) else FLOAT_COMBINE
    if kind not in table:
        raise silenceable_failure(f"combining kind {kind} does not apply to {t}")
    value = neutral_element(table[kind], element).value.data
    return b.add(arith.ConstantOp(splat_attr(t, value)))


def masked_reduction(
    b: VectorBuilder, op: MultiDimReductionOp | vector.ReductionOp, mask: SSAValue
) -> SSAValue:
    """`op` reducing `select(mask, source, neutral)`: masked-off lanes do not contribute."""
    source = op.operands[0]
    t = source.type
    assert isinstance(t, VectorType)
    if not isinstance(mask.type, VectorType) or vector_shape(mask.type) != vector_shape(t):
        raise silenceable_failure(
            f"the mask {mask.type} of a masked reduction must have the shape of its source {t}"
        )
    kind = op.kind.data.value
    selected = b.add(SelectOp(mask, source, neutral_vector(b, kind, t)))
    new = op.clone()
    new.operands = [selected, *op.operands[1:]]
    b.insert(new)
    return new.results[0]


def with_mask(
    op: vector.TransferReadOp | vector.TransferWriteOp, mask: SSAValue | None, in_bounds=None
) -> Operation:
    """A copy of transfer `op` with `mask` as its mask operand (and `in_bounds` if given)."""
    flags = in_bounds if in_bounds is not None else op.in_bounds
    if isinstance(op, vector.TransferReadOp):
        return vector.TransferReadOp(
            op.source, list(op.indices), op.padding, op.result.type, flags, op.permutation_map, mask
        )
    return vector.TransferWriteOp(
        op.vector, op.source, list(op.indices), flags, mask, permutation_map=op.permutation_map
    )


def lower_mask_ops(root: Operation) -> int:
    return apply_to_all(root, MaskOp, lower_mask_op)


def lower_masks(root: Operation) -> int:
    """`transform.vector.lower_mask`: vector.mask regions, then n-D mask constructors."""
    return lower_mask_ops(root) + lower_create_masks(root)


__all__ = [
    "lower_create_mask",
    "lower_create_masks",
    "lower_mask_op",
    "lower_mask_ops",
    "lower_masks",
    "masked_reduction",
    "neutral_vector",
    "with_mask",
]
