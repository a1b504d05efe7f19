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

from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import IntegerType, VectorType
from xdsl.ir import Attribute, Operation, SSAValue

from xlinalg.dialects.vector import (
    MaskOp,
    MultiDimReductionOp,
    ShapeCastOp,
    TransposeOp,
    vector_shape,
)
from xlinalg.transforms.vector_builders import extract, insert
from xlinalg.transforms.vector_rewrite import VectorBuilder, apply_to_all, fail, replace_op

MULTI_REDUCTION_STRATEGIES = ("innerparallel", "innerreduction")

#: Combining kind → the elementwise op combining two values of that kind.
FLOAT_COMBINE: dict[str, type[Operation]] = {
    "add": arith.AddfOp, "mul": arith.MulfOp, "maximumf": arith.MaximumfOp,
    "minimumf": arith.MinimumfOp, "maxnumf": arith.MaxnumfOp, "minnumf": arith.MinnumfOp,
}
INT_COMBINE: dict[str, type[Operation]] = {
    "add": arith.AddiOp, "mul": arith.MuliOp, "maxsi": arith.MaxSIOp, "minsi": arith.MinSIOp,
    "maxui": arith.MaxUIOp, "minui": arith.MinUIOp, "and": arith.AndIOp, "or": arith.OrIOp,
    "xor": arith.XOrIOp,
}


def element_type(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def combine_op(kind: str, a: SSAValue, b: SSAValue) -> Operation:
    """The elementwise op computing `a <kind> b` (TransformFailure if the kind does not
    apply to the element type)."""
    table = INT_COMBINE if isinstance(element_type(a.type), IntegerType) else FLOAT_COMBINE
    if kind not in table:
        raise fail(f"combining kind {kind} does not apply to {a.type}")
    return table[kind](a, b)  # type: ignore[call-arg]


def _cast(b: VectorBuilder, v: SSAValue, shape: list[int]) -> SSAValue:
    t = v.type
    assert isinstance(t, VectorType)
    if list(vector_shape(t)) == shape:
        return v
    return b.add(ShapeCastOp(v, VectorType(t.element_type, shape)))


def _reduce_1d(b: VectorBuilder, op: MultiDimReductionOp, v: SSAValue, acc: SSAValue) -> SSAValue:
    return b.add(vector.ReductionOp.create(
        operands=[v, acc], result_types=[acc.type], properties={"kind": op.kind}))


def lower_multi_reduction(op: MultiDimReductionOp, strategy: str = "innerparallel") -> None:
    if isinstance(op.parent_op(), MaskOp):
        raise fail("a masked multi_reduction is lowered by lower_mask")
    src_t = op.source.type
    assert isinstance(src_t, VectorType)
    shape = list(vector_shape(src_t))
    reduced = op.get_reduction_dims()
    kept = [d for d in range(len(shape)) if d not in reduced]
    kind = op.kind.data.value
    table = INT_COMBINE if isinstance(src_t.element_type, IntegerType) else FLOAT_COMBINE
    if kind not in table:
        raise fail(f"combining kind {kind} does not apply to {src_t}")
    b = VectorBuilder.before(op)
    p = 1
    for d in kept:
        p *= shape[d]
    r = 1
    for d in reduced:
        r *= shape[d]
    if not kept:
        replace_op(op, [_reduce_1d(b, op, _cast(b, op.source, [r]), op.acc)])
        return
    if not reduced:
        replace_op(op, [b.add(combine_op(kind, op.source, op.acc))])
        return
    inner = strategy == "innerreduction"
    perm = kept + reduced if inner else reduced + kept
    src = op.source
    if perm != list(range(len(shape))):
        src = b.add(TransposeOp(src, perm))
    two_d = _cast(b, src, [p, r] if inner else [r, p])
    acc = _cast(b, op.acc, [p])
    if inner:
        flat = b.zeros(acc.type)  # type: ignore[arg-type]
        for i in range(p):
            row = b.add(extract(two_d, [i]))
            value = _reduce_1d(b, op, row, b.add(extract(acc, [i])))
            flat = b.add(insert(value, flat, [i]))
    else:
        flat = acc
        for i in range(r):
            flat = b.add(combine_op(kind, flat, b.add(extract(two_d, [i]))))
    replace_op(op, [_cast(b, flat, list(vector_shape(op.acc.type)))])


def lower_multi_reductions(root: Operation, strategy: str = "innerparallel") -> int:
    return apply_to_all(root, MultiDimReductionOp,
                        lambda op: lower_multi_reduction(op, strategy))


__all__ = [
    "FLOAT_COMBINE",
    "INT_COMBINE",
    "MULTI_REDUCTION_STRATEGIES",
    "combine_op",
    "element_type",
    "lower_multi_reduction",
    "lower_multi_reductions",
]
