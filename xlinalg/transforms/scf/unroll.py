"""Unrolling an `scf.for` by a factor (upstream's `loopUnrollByFactor` for scf).

```
scf.for %i = %lb to %ub step %s iter_args(%a = %init) { body(%i, %a) }
```
unrolled by `f` becomes a main loop with step `s * f` running up to
`lb + (tripCount - tripCount mod f) * s`, whose body holds `f` copies of the
original body (copy `j` sees `%i + j * s` and the iter_args yielded by copy
`j - 1`), followed by an epilogue loop (the original body) for the remaining
iterations, chained through the iter_args. With a static trip count no
epilogue is emitted when `f` divides it, a factor larger than the trip count
is clamped to it (as `transform.loop.unroll` specifies), and a loop left with a
single iteration is replaced by its body (straight-line code).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.errors import silenceable_failure
from xlinalg.ir.affine_utils import constant_index_value


def _constant(value: int, type_: Attribute, before: Operation) -> SSAValue:
    assert isinstance(type_, IntegerType | IndexType)
    op = arith.ConstantOp(IntegerAttr(value, type_))
    op.result.name_hint = f"c{value}" if value >= 0 else f"c_{-value}"
    Rewriter.insert_op(op, InsertPoint.before(before))
    return op.result


def static_trip_count(loop: scf.ForOp) -> int | None:
    """ceil((ub - lb) / step) when lb, ub and step are constants (0 for empty loops)."""
    lb, ub, step = (constant_index_value(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


def promote_if_single_iteration(loop: scf.ForOp) -> bool:
    """Replace a loop that runs exactly once by its body (upstream's
    `promoteIfSingleIteration`). Returns True when the loop was replaced."""
    if static_trip_count(loop) != 1:
        return False
    block = loop.body.block
    terminator = block.last_op
    assert isinstance(terminator, scf.YieldOp)
    yielded = list(terminator.arguments)
    Rewriter.erase_op(terminator)
    args = [loop.lb, *loop.iter_args]
    # A yielded value that is an iter_arg of this loop resolves to its init value.
    resolved = [
        args[v.index] if isinstance(v, BlockArgument) and v.owner is block else v for v in yielded
    ]
    Rewriter.inline_block(block, InsertPoint.before(loop), args)
    Rewriter.replace_op(loop, [], resolved)
    return True


def _replicate_body(loop: scf.ForOp, factor: int, step: SSAValue) -> None:
    """Append `factor - 1` copies of the body (upstream's `generateUnrolledLoop`)."""
    block = loop.body.block
    terminator = block.last_op
    assert isinstance(terminator, scf.YieldOp)
    originals = [op for op in block.ops if op is not terminator]
    iv = block.args[0]
    iter_args = block.args[1:]
    yielded = list(terminator.arguments)
    last = list(yielded)
    step_value = constant_index_value(step)
    for copy in range(1, factor):
        mapping: dict[SSAValue, SSAValue] = dict(zip(iter_args, last))
        if iv.uses:
            if step_value is not None:
                stride = _constant(step_value * copy, iv.type, terminator)
            else:
                index = _constant(copy, iv.type, terminator)
                stride_op = arith.MuliOp(step, index)
                Rewriter.insert_op(stride_op, InsertPoint.before(terminator))
                stride = stride_op.result
            shifted = arith.AddiOp(iv, stride)
            Rewriter.insert_op(shifted, InsertPoint.before(terminator))
            mapping[iv] = shifted.result
        for op in originals:
            Rewriter.insert_op(op.clone(mapping), InsertPoint.before(terminator))
        last = [mapping.get(v, v) for v in yielded]
    terminator.operands = last


def unroll_for(loop: scf.ForOp, factor: int) -> None:
    """Unroll `loop` in place by `factor` (see the module docstring).

    Factor 1 is a no-op; factor <= 0 is a silenceable `TransformFailure`.
    """
    if factor <= 0:
        raise silenceable_failure(f"loop.unroll: the unroll factor must be positive, got {factor}")
    if not isinstance(loop, scf.ForOp):
        raise silenceable_failure(f"loop.unroll: '{loop.name}' is not an 'scf.for'")
    if factor == 1:
        return
    block = loop.body.block
    if len(block.ops) == 1:  # only the terminator: nothing to unroll
        return
    type_ = loop.lb.type
    trip_count = static_trip_count(loop)
    if trip_count is not None:
        if trip_count == 0:
            return
        factor = min(factor, trip_count)
        if factor == 1:
            promote_if_single_iteration(loop)
            return
        lb = constant_index_value(loop.lb)
        step = constant_index_value(loop.step)
        ub = constant_index_value(loop.ub)
        assert lb is not None
        assert step is not None
        assert ub is not None
        even = trip_count - trip_count % factor
        unrolled_ub_value = lb + even * step
        needs_epilogue = unrolled_ub_value < ub
        unrolled_ub = _constant(unrolled_ub_value, type_, loop) if needs_epilogue else loop.ub
        unrolled_step = _constant(step * factor, type_, loop)
    else:
        needs_epilogue = True
        ip = InsertPoint.before(loop)
        one = _constant(1, type_, loop)
        factor_value = _constant(factor, type_, loop)
        zero = _constant(0, type_, loop)
        # tripCount = ceilDiv(max(ub - lb, 0), step) (a step must be positive)
        diff = arith.SubiOp(loop.ub, loop.lb)
        clamped = arith.MaxSIOp(diff, zero)
        step_minus_one = arith.SubiOp(loop.step, one)
        numerator = arith.AddiOp(clamped, step_minus_one)
        trip = arith.DivUIOp(numerator, loop.step)
        remainder = arith.RemSIOp(trip, factor_value)
        even_trip = arith.SubiOp(trip, remainder)
        span = arith.MuliOp(even_trip, loop.step)
        ub_op = arith.AddiOp(loop.lb, span)
        step_op = arith.MuliOp(loop.step, factor_value)
        ops: list[Operation] = [
            diff,
            clamped,
            step_minus_one,
            numerator,
            trip,
            remainder,
            even_trip,
            span,
            ub_op,
            step_op,
        ]
        Rewriter.insert_op(ops, ip)
        unrolled_ub = ub_op.result
        unrolled_step = step_op.result

    original_ub, original_step = loop.ub, loop.step
    if needs_epilogue:
        epilogue = loop.clone()
        Rewriter.insert_op(epilogue, InsertPoint.after(loop))
        for old, new in zip(loop.res, epilogue.res):
            old.replace_all_uses_with(new)
        epilogue.operands = [unrolled_ub, epilogue.ub, epilogue.step, *loop.res]
        promote_if_single_iteration(epilogue)

    loop.operands = [loop.lb, unrolled_ub, unrolled_step, *loop.iter_args]
    _replicate_body(loop, factor, original_step)
    if promote_if_single_iteration(loop):
        for value in (unrolled_ub, unrolled_step):
            if value not in (original_ub, original_step) and not value.uses:
                owner = value.owner
                assert isinstance(owner, Operation)
                Rewriter.erase_op(owner)
