"""Casting away leading unit dims of `vector.contract` (upstream's
`CastAwayContractionLeadingOneDim`, one of the patterns of
`transform.apply_patterns.vector.cast_away_vector_leading_one_dim`).

A contraction whose accumulator's leading dim is a unit parallel loop `d`
(e.g. the batch dim of a batch matmul tiled by 1) that is the leading dim of
every operand indexing it,

    %r = vector.contract {maps (d, ...)} %lhs, %rhs, %acc : ... into vector<1x...>

becomes a contraction without `d` on `vector.extract [0]` of the operands that
index it, broadcast back to the accumulator's type:

    %r0 = vector.contract {maps without d} %lhs[0], %rhs[0], %acc[0]
    %r  = vector.broadcast %r0 : vector<...> to vector<1x...>

so the outer-product lowering (rank ≤ 2 accumulators) applies. Repeats while a
contraction has a leading unit dim; other forms are left alone, as upstream.
"""

from __future__ import annotations

from xdsl.dialects import vector
from xdsl.dialects.builtin import VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.vector import ContractionOp, vector_shape
from xlinalg.transforms.vector.builders import extract


def _without(m: AffineMap, dim: int) -> AffineMap:
    """`m` without the result `dim` and with the loop `dim` removed (later loops renumbered)."""
    results: list[AffineExpr] = []
    for e in m.results:
        assert isinstance(e, AffineDimExpr)
        if e.position != dim:
            results.append(AffineDimExpr(e.position - (e.position > dim)))
    return AffineMap(m.num_dims - 1, 0, tuple(results))


def _leading_unit_dim(op: ContractionOp) -> int | None:
    maps = op.get_maps()
    if len(vector_shape(op.acc.type)) < 2 or vector_shape(op.acc.type)[0] != 1:
        return None
    if not all(isinstance(e, AffineDimExpr) for m in maps for e in m.results):
        return None
    lead = maps[2].results[0]
    assert isinstance(lead, AffineDimExpr)
    d = lead.position
    if op.get_iterator_types()[d] != "parallel":
        return None
    for value, m in zip(op.operands, maps, strict=True):
        positions = [e.position for e in m.results if isinstance(e, AffineDimExpr)]
        if d in positions and (positions.index(d) != 0 or vector_shape(value.type)[0] != 1):
            return None
    return d


def cast_away_contraction_leading_one_dim(op: ContractionOp) -> ContractionOp | None:
    """Rewrite `op` as above; the new contraction, or None when it does not apply."""
    d = _leading_unit_dim(op)
    if d is None:
        return None
    at = InsertPoint.before(op)
    operands: list[SSAValue] = []
    for value, m in zip(op.operands, op.get_maps(), strict=True):
        if any(isinstance(e, AffineDimExpr) and e.position == d for e in m.results):
            ext = extract(value, [0])
            Rewriter.insert_op(ext, at)
            operands.append(ext.results[0])
        else:
            operands.append(value)
    maps = [_without(m, d) for m in op.get_maps()]
    iters = [it for i, it in enumerate(op.get_iterator_types()) if i != d]
    new = ContractionOp(operands[0], operands[1], operands[2], maps, iters, op.kind)
    acc_type = op.acc.type
    assert isinstance(acc_type, VectorType)
    back = vector.BroadcastOp(new.result, acc_type)
    Rewriter.insert_op([new, back], at)
    op.result.replace_all_uses_with(back.results[0])
    op.detach()
    op.erase()
    return new


def cast_away_leading_one_dims(root: Operation) -> None:
    """Apply the rewrite to every contraction under `root` until none has a leading unit dim."""
    work = [op for op in root.walk() if isinstance(op, ContractionOp)]
    while work:
        new = cast_away_contraction_leading_one_dim(work.pop())
        if new is not None:
            work.append(new)


__all__ = ["cast_away_contraction_leading_one_dim", "cast_away_leading_one_dims"]
