"""`vector.contract` → `vector.outerproduct` (upstream's `outerproduct` lowering strategy).

A contraction whose accumulator has rank 2 (parallel loops p0, p1) or rank 1
(p0), whose lhs indexes p0 plus reduction loops and whose rhs indexes p1 (if
any) plus reduction loops (the two inputs may come in either order) becomes,
for every point r of the reduction space,

    acc = vector.outerproduct lhs'[r], rhs'[r], acc

where lhs' (rhs') is the operand transposed to (reduction dims..., p0) with a
`vector.transpose` when needed, and `[r]` a `vector.extract`. Anything else
(e.g. batch dims, other combining kinds) is left alone and reported.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from xdsl.dialects.vector import CombiningKindFlag
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.vector import ContractionOp, OuterProductOp, TransposeOp, vector_shape
from xlinalg.errors import TransformFailure, silenceable_failure
from xlinalg.ir.walk import walk_ops
from xlinalg.transforms.vector.builders import extract


def _dims(m: AffineMap) -> list[int]:
    return [e.position for e in m.results if isinstance(e, AffineDimExpr)]


def _fail(op: Operation, why: str) -> TransformFailure:
    return silenceable_failure(f"cannot lower {op.name} to outer products: {why}")


def _oriented(
    value: SSAValue,
    dims: Sequence[int],
    reductions: Sequence[int],
    parallel: int | None,
    insert: InsertPoint,
) -> SSAValue:
    """`value` transposed so that its dims are (reductions..., parallel)."""
    order = [*reductions, *([parallel] if parallel is not None else [])]
    perm = [dims.index(d) for d in order]
    if perm == list(range(len(perm))):
        return value
    t = TransposeOp(value, perm)
    Rewriter.insert_op(t, insert)
    return t.result


def lower_contraction_to_outerproducts(op: ContractionOp) -> list[Operation]:
    """Replace `op` by outer products; return them (silenceable failure if the form is unsupported)."""
    if op.kind.data != CombiningKindFlag.ADD:
        raise _fail(op, f"combining kind {op.kind.data.value} is not supported")
    lhs_map, rhs_map, acc_map = op.get_maps()
    iters = op.get_iterator_types()
    reductions = [d for d, it in enumerate(iters) if it == "reduction"]
    acc_dims = _dims(acc_map)
    if len(acc_dims) != len(acc_map.results) or not 1 <= len(acc_dims) <= 2:
        raise _fail(op, "the accumulator must be a 1-D or 2-D vector")
    lhs, rhs = op.lhs, op.rhs
    lhs_dims, rhs_dims = _dims(lhs_map), _dims(rhs_map)
    if acc_dims[0] not in lhs_dims:
        lhs, rhs, lhs_dims, rhs_dims = rhs, lhs, rhs_dims, lhs_dims
    p0 = acc_dims[0]
    p1 = acc_dims[1] if len(acc_dims) == 2 else None
    if sorted(lhs_dims) != sorted([p0, *reductions]):
        raise _fail(op, "the lhs must index the first accumulator dim and the reduction dims")
    if sorted(rhs_dims) != sorted([*([p1] if p1 is not None else []), *reductions]):
        raise _fail(op, "the rhs must index the second accumulator dim and the reduction dims")
    if len(rhs_dims) == 0:
        raise _fail(op, "a contraction without reduction is not supported")
    if p1 is None and not reductions:
        raise _fail(op, "no reduction dims")
    at = InsertPoint.before(op)
    a = _oriented(lhs, lhs_dims, reductions, p0, at)
    b = _oriented(rhs, rhs_dims, reductions, p1, at)
    sizes = [
        vector_shape(op.lhs.type)[_dims(lhs_map).index(d)]
        if d in _dims(lhs_map)
        else vector_shape(op.rhs.type)[_dims(rhs_map).index(d)]
        for d in reductions
    ]
    acc: SSAValue = op.acc
    created: list[Operation] = []
    for point in itertools.product(*(range(s) for s in sizes)):
        ea = extract(a, point)
        eb = extract(b, point)
        outer = OuterProductOp(ea.results[0], eb.results[0], acc, op.kind)
        for new in (ea, eb, outer):
            Rewriter.insert_op(new, at)
        created.append(outer)
        acc = outer.result
    op.result.replace_all_uses_with(acc)
    op.detach()
    op.erase()
    return created


def lower_contractions(root: Operation) -> int:
    """Lower every `vector.contract` under `root`; return how many were lowered."""
    count = 0
    for op in [o for o in walk_ops(root) if isinstance(o, ContractionOp)]:
        lower_contraction_to_outerproducts(op)
        count += 1
    return count


__all__ = ["lower_contraction_to_outerproducts", "lower_contractions"]
