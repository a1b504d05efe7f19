"""`vector.outerproduct` → per-row `vector.broadcast` + `vector.fma` (upstream's lower_outerproduct).

2-D: row i of the result is `fma(broadcast(lhs[i]), rhs, acc[i])` (`mulf` without
an accumulator); 1-D (scalar rhs, "axpy"): `fma(lhs, broadcast(rhs), acc)`.
Integer element types use `muli` + `addi`.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, VectorType
from xdsl.dialects.vector import CombiningKindFlag
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.vector import OuterProductOp, vector_shape
from xlinalg.errors import silenceable_failure
from xlinalg.ir.walk import walk_ops
from xlinalg.transforms.vector.builders import broadcast, extract, fma, insert, splat_attr


def _zero(t: VectorType) -> Operation:
    return arith.ConstantOp(splat_attr(t, 0))


def _multiply_add(a: SSAValue, b: SSAValue, acc: SSAValue | None, at: InsertPoint) -> SSAValue:
    assert isinstance(a.type, VectorType)
    if isinstance(a.type.element_type, IntegerType):
        ops: list[Operation] = [arith.MuliOp(a, b)]
        if acc is not None:
            ops.append(arith.AddiOp(ops[0].results[0], acc))
    elif acc is None:
        ops = [arith.MulfOp(a, b)]
    else:
        ops = [fma(a, b, acc)]
    for o in ops:
        Rewriter.insert_op(o, at)
    return ops[-1].results[0]


def lower_outerproduct(op: OuterProductOp) -> SSAValue:
    """Replace `op` by broadcasts and FMAs; return the value standing for its result."""
    if op.kind.data != CombiningKindFlag.ADD:
        raise silenceable_failure(
            f"cannot lower vector.outerproduct with kind {op.kind.data.value}"
        )
    at = InsertPoint.before(op)
    t = op.result.type
    assert isinstance(t, VectorType)
    shape = vector_shape(t)

    def add(new: Operation) -> SSAValue:
        Rewriter.insert_op(new, at)
        return new.results[0]

    if len(shape) == 1:
        b = add(broadcast(op.rhs, t))
        result = _multiply_add(op.lhs, b, op.acc, at)
    else:
        m, n = shape
        row_t = VectorType(t.element_type, [n])
        result = op.acc if op.acc is not None else add(_zero(t))
        for i in range(m):
            s = add(extract(op.lhs, [i]))
            bs = add(broadcast(s, row_t))
            row = add(extract(op.acc, [i])) if op.acc is not None else None
            r = _multiply_add(bs, op.rhs, row, at)
            result = add(insert(r, result, [i]))
    op.result.replace_all_uses_with(result)
    op.detach()
    op.erase()
    return result


def lower_outerproducts(root: Operation) -> int:
    """Lower every `vector.outerproduct` under `root`; return how many were lowered."""
    ops = [o for o in walk_ops(root) if isinstance(o, OuterProductOp)]
    for o in ops:
        lower_outerproduct(o)
    return len(ops)


__all__ = ["lower_outerproduct", "lower_outerproducts"]
