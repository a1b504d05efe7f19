"""`vector.multi_reduction` → transpose + shape_cast + 1-D reductions or elementwise
combines (upstream's multi-reduction lowering patterns).

Strategies (`lowering_strategy`, upstream's VectorMultiReductionLowering):
- `innerreduction`: transpose the reduced dims innermost, shape_cast to 2-D
  [parallel, reduced]; each row i becomes `vector.reduction <kind> row, acc[i]`
  inserted at [i]; shape_cast back to the accumulator's shape.
- `innerparallel` (upstream's default): transpose the reduced dims outermost,
  shape_cast to 2-D [reduced, parallel]; the accumulator is combined with
  every row elementwise (`arith.addf`, `arith.maxnumf`, ...).
A reduction over every dim is one `vector.reduction` of the flattened source
(both strategies, as upstream). Transposes that are the identity and casts to
the same shape are not emitted. A multi_reduction inside `vector.mask` is
left for `lower_mask` (upstream handles masked reductions separately too).
"""

from __future__ import annotations

import contextlib

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import IntegerType, VectorType
from xdsl.ir import Operation, SSAValue

from xlinalg.dialects.vector import (
    MaskOp,
    MultiDimReductionOp,
    ShapeCastOp,
    TransposeOp,
    vector_shape,
)
from xlinalg.errors import TransformFailure, silenceable_failure
from xlinalg.ir.shaped_types import element_type
from xlinalg.transforms.vector.builders import extract, insert
from xlinalg.transforms.vector.rewrite import VectorBuilder, apply_to_all, replace_op

MULTI_REDUCTION_STRATEGIES = ("innerparallel", "innerreduction")

#: Combining kind → the elementwise op combining two values of that kind.
FLOAT_COMBINE: dict[str, type[arith.FloatingPointLikeBinaryOperation]] = {
    "add": arith.AddfOp,
    "mul": arith.MulfOp,
    "maximumf": arith.MaximumfOp,
    "minimumf": arith.MinimumfOp,
    "maxnumf": arith.MaxnumfOp,
    "minnumf": arith.MinnumfOp,
}
INT_COMBINE: dict[str, type[arith.SignlessIntegerBinaryOperation]] = {
    "add": arith.AddiOp,
    "mul": arith.MuliOp,
    "maxsi": arith.MaxSIOp,
    "minsi": arith.MinSIOp,
    "maxui": arith.MaxUIOp,
    "minui": arith.MinUIOp,
    "and": arith.AndIOp,
    "or": arith.OrIOp,
    "xor": arith.XOrIOp,
}


def combine_op(kind: str, a: SSAValue, b: SSAValue) -> Operation:
    """The elementwise op computing `a <kind> b` (TransformFailure if the kind does not
    apply to the element type)."""
    table = INT_COMBINE if isinstance(element_type(a.type), IntegerType) else FLOAT_COMBINE
    if kind not in table:
        raise silenceable_failure(f"combining kind {kind} does not apply to {a.type}")
    return table[kind](a, b)


def _cast(b: VectorBuilder, v: SSAValue, shape: list[int]) -> SSAValue:
    t = v.type
    assert isinstance(t, VectorType)
    if list(vector_shape(t)) == shape:
        return v
    return b.add(ShapeCastOp(v, VectorType(t.element_type, shape)))


def _reduce_1d(b: VectorBuilder, op: MultiDimReductionOp, v: SSAValue, acc: SSAValue) -> SSAValue:
    return b.add(
        vector.ReductionOp.create(
            operands=[v, acc], result_types=[acc.type], properties={"kind": op.kind}
        )
    )


def _check(op: MultiDimReductionOp) -> tuple[VectorType, list[int], list[int]]:
    if isinstance(op.parent_op(), MaskOp):
        raise silenceable_failure("a masked multi_reduction is lowered by lower_mask")
    src_t = op.source.type
    assert isinstance(src_t, VectorType)
    kind = op.kind.data.value
    table = INT_COMBINE if isinstance(src_t.element_type, IntegerType) else FLOAT_COMBINE
    if kind not in table:
        raise silenceable_failure(f"combining kind {kind} does not apply to {src_t}")
    reduced = op.get_reduction_dims()
    kept = [d for d in range(src_t.get_num_dims()) if d not in reduced]
    return src_t, reduced, kept


def _rebuild(
    b: VectorBuilder, op: MultiDimReductionOp, source: SSAValue, acc: SSAValue, dims: list[int]
) -> MultiDimReductionOp:
    new = MultiDimReductionOp(op.kind, source, acc, dims)
    b.insert(new)
    return new


def reorder_dims(op: MultiDimReductionOp, strategy: str = "innerparallel") -> MultiDimReductionOp:
    """Stage 1 (upstream's `reorder_multi_reduction_dims`): transpose the reduced dims
    innermost (`innerreduction`) or outermost (`innerparallel`)."""
    _, reduced, kept = _check(op)
    perm = kept + reduced if strategy == "innerreduction" else reduced + kept
    if perm == list(range(len(perm))) or not kept or not reduced:
        raise silenceable_failure("the reduced dims are already grouped")
    b = VectorBuilder.before(op)
    source = b.add(TransposeOp(op.source, perm))
    first = len(kept) if strategy == "innerreduction" else 0
    new = _rebuild(b, op, source, op.acc, list(range(first, first + len(reduced))))
    replace_op(op, [new.result])
    return new


def flatten(op: MultiDimReductionOp, strategy: str = "innerparallel") -> MultiDimReductionOp:
    """Stage 2 (upstream's `multi_reduction_flattening`): grouped dims → a 2-D reduction
    [parallel, reduced] or [reduced, parallel] (1-D for a full reduction)."""
    src_t, reduced, kept = _check(op)
    shape = list(vector_shape(src_t))
    inner = reduced == list(range(len(kept), len(shape)))
    outer = reduced == list(range(len(reduced)))
    if not (inner or outer):
        raise silenceable_failure("reorder the reduced dims first (reorder_multi_reduction_dims)")
    p = r = 1
    for d in kept:
        p *= shape[d]
    for d in reduced:
        r *= shape[d]
    if not kept:
        if len(shape) == 1:
            raise silenceable_failure("already 1-D")
        want, dims = [r], [0]
    elif not reduced:
        raise silenceable_failure("nothing to reduce")
    elif inner and (strategy == "innerreduction" or not outer):
        want, dims = [p, r], [1]
    else:
        want, dims = [r, p], [0]
    if want == shape:
        raise silenceable_failure("already flat")
    b = VectorBuilder.before(op)
    acc = _cast(b, op.acc, [p]) if kept else op.acc
    new = _rebuild(b, op, _cast(b, op.source, want), acc, dims)
    replace_op(op, [_cast(b, new.result, list(vector_shape(op.acc.type))) if kept else new.result])
    return new


def unroll(op: MultiDimReductionOp, strategy: str = "innerparallel") -> None:
    """Stage 3 (upstream's `multi_reduction_unrolling`): a 1-D reduction → `vector.reduction`;
    2-D reducing dim 1 → one `vector.reduction` per row; reducing dim 0 → elementwise
    combines of the rows into the accumulator; no reduced dim → one combine."""
    src_t, reduced, _ = _check(op)
    shape = list(vector_shape(src_t))
    kind = op.kind.data.value
    b = VectorBuilder.before(op)
    if not reduced:
        replace_op(op, [b.add(combine_op(kind, op.source, op.acc))])
    elif len(shape) == 1:
        replace_op(op, [_reduce_1d(b, op, op.source, op.acc)])
    elif len(shape) == 2 and reduced == [1]:
        acc_type = op.acc.type
        assert isinstance(acc_type, VectorType)
        flat = b.zeros(acc_type)
        for i in range(shape[0]):
            row = b.add(extract(op.source, [i]))
            value = _reduce_1d(b, op, row, b.add(extract(op.acc, [i])))
            flat = b.add(insert(value, flat, [i]))
        replace_op(op, [flat])
    elif len(shape) == 2 and reduced == [0]:
        flat = op.acc
        for i in range(shape[0]):
            flat = b.add(combine_op(kind, flat, b.add(extract(op.source, [i]))))
        replace_op(op, [flat])
    else:
        raise silenceable_failure("flatten the reduction to 2-D first (multi_reduction_flattening)")


def lower_multi_reduction(op: MultiDimReductionOp, strategy: str = "innerparallel") -> None:
    """All three stages on one op (the older upstream `lower_multi_reduction`)."""
    _check(op)
    for stage in (reorder_dims, flatten):
        with contextlib.suppress(TransformFailure):
            op = stage(op, strategy)
    unroll(op, strategy)


def lower_multi_reductions(root: Operation, strategy: str = "innerparallel") -> int:
    return apply_to_all(root, MultiDimReductionOp, lambda op: lower_multi_reduction(op, strategy))


def apply_stage(root: Operation, stage, strategy: str = "innerparallel") -> int:
    """Apply one stage (`reorder_dims`, `flatten`, `unroll`) to every multi_reduction."""
    return apply_to_all(root, MultiDimReductionOp, lambda op: stage(op, strategy))


__all__ = [
    "FLOAT_COMBINE",
    "INT_COMBINE",
    "MULTI_REDUCTION_STRATEGIES",
    "apply_stage",
    "combine_op",
    "element_type",
    "flatten",
    "lower_multi_reduction",
    "lower_multi_reductions",
    "reorder_dims",
    "unroll",
]
