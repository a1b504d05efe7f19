"""Loop peeling (upstream `scf::peelForLoopAndSimplifyBounds` / `peelForLoopFirstIteration`).

Peeling the back of
```
scf.for %iv = %lb to %ub step %s { body }
```
gives a main loop whose trip count the step divides and a remainder loop:
```
%split = %ub - (%ub - %lb) mod %s
scf.for %iv = %lb to %split step %s { body }     // main
scf.for %iv = %split to %ub step %s { body }     // remainder: at most one iteration
```
Peeling the front peels the first iteration instead (`%split = min(%lb + %s, %ub)`).
Loop-carried values flow from the first loop into the second; users of the
original results read the second loop's. In each part, `affine.min`/`affine.max`
ops whose value the part's iteration range decides are folded (upstream's
`rewritePeeledMinMaxOp`), e.g. the partial-tile size `min(8, %ub - %iv)` is
`8` in the main loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.errors import silenceable_failure
from xlinalg.ir.affine_utils import IndexBuilder, constant_index_value
from xlinalg.transforms.affine.simplify_bounds import (
    simplify_min_max_in,
    simplify_min_max_of_difference,
)

# an upper bound of `ub - iv` when nothing bounds `ub`: larger than any index
_UNBOUNDED = 2**62


@dataclass(frozen=True)
class PeelResult:
    """`main` covers the part the step divides (back peeling) or the first
    iteration (front peeling); `remainder` the rest, None if nothing was peeled."""

    main: scf.ForOp
    remainder: scf.ForOp | None


def peel_for(
    loop: scf.ForOp, *, peel_front: bool = False, fail_if_already_divisible: bool = False
) -> PeelResult:
    """Peel `loop` in place; raises a silenceable `TransformFailure` when there is
    nothing to peel and `fail_if_already_divisible` is set."""
    if not isinstance(loop.lb.type, IndexType):
        raise silenceable_failure("loop peeling supports index-typed loops only")
    lb, ub, step = (constant_index_value(v) for v in (loop.lb, loop.ub, loop.step))
    builder = IndexBuilder(InsertPoint.before(loop))
    if peel_front:
        if lb is not None and ub is not None and step is not None and ub - lb <= step:
            return _nothing(loop, fail_if_already_divisible, "the loop has a single iteration")
        split = _split_front(builder, loop, lb, step, ub)
    else:
        if lb is not None and ub is not None and step is not None and (ub - lb) % step == 0:
            return _nothing(loop, fail_if_already_divisible, "the step already divides the range")
        split = _split_back(builder, loop, lb, ub, step)

    second = loop.clone()
    Rewriter.insert_op(second, InsertPoint.after(loop))
    for result, new in zip(loop.results, second.results):
        result.replace_uses_with_if(new, lambda use: use.operation is not second)
    second.operands[0] = split
    for index, result in enumerate(loop.results):
        second.operands[3 + index] = result
    loop.operands[1] = split

    # One walk of each loop: static bounds give both parts' ranges of the induction
    # variable, dynamic ones (every range None) at most the difference below.
    first_lo, first_hi, second_lo, second_hi = _iteration_ranges(lb, ub, step, peel_front)
    if first_lo is not None:
        simplify_min_max_in(loop, loop.body.block.args[0], first_lo, first_hi)
        simplify_min_max_in(second, second.body.block.args[0], second_lo, second_hi)
    elif not peel_front and step is not None:
        # dynamic bounds: in the main loop `iv + step <= split <= ub`, in the remainder
        # `0 < ub - iv < step` (upstream's rewritePeeledMinMaxOp), e.g. the size
        # `min(step, ub - iv)` of a tile of a dynamically sized range is `step` in the main loop
        simplify_min_max_of_difference(loop, loop.body.block.args[0], second.ub, (step, _UNBOUNDED))
        simplify_min_max_of_difference(second, second.body.block.args[0], second.ub, (1, step - 1))
    return PeelResult(loop, second)


def _nothing(loop: scf.ForOp, fail: bool, why: str) -> PeelResult:
    if fail:
        raise silenceable_failure(f"nothing to peel: {why}")
    return PeelResult(loop, None)


def _split_back(
    builder: IndexBuilder, loop: scf.ForOp, lb: int | None, ub: int | None, step: int | None
) -> SSAValue:
    if lb is not None and ub is not None and step is not None:
        return builder.constant(ub - (ub - lb) % step)
    diff = arith.SubiOp(loop.ub, loop.lb)
    rem = arith.RemSIOp(diff.result, loop.step)
    split = arith.SubiOp(loop.ub, rem.result)
    for op in (diff, rem, split):
        builder.insert(op)
    return split.result


def _split_front(
    builder: IndexBuilder, loop: scf.ForOp, lb: int | None, step: int | None, ub: int | None
) -> SSAValue:
    if lb is not None and step is not None and ub is not None:
        return builder.constant(min(lb + step, ub))
    first_end = arith.AddiOp(loop.lb, loop.step)
    split = arith.MinSIOp(first_end.result, loop.ub)
    builder.insert(first_end)
    builder.insert(split)
    return split.result


def _iteration_ranges(
    lb: int | None, ub: int | None, step: int | None, peel_front: bool
) -> tuple[int | None, int | None, int | None, int | None]:
    """Bounds of the induction variable in each part (None = unknown)."""
    if lb is None or ub is None or step is None:
        return None, None, None, None
    if peel_front:
        return lb, lb, lb + step, ub - 1 - (ub - 1 - lb) % step
    split = ub - (ub - lb) % step
    return lb, split - step, split, split


__all__ = ["PeelResult", "peel_for"]
