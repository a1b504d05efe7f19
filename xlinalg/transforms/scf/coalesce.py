"""Coalescing a perfect `scf.for` nest into one loop (upstream `coalesceLoops`).

```
scf.for %i = %l0 to %u0 step %s0 {            %n0 = ceildiv(%u0 - %l0, %s0)
  scf.for %j = %l1 to %u1 step %s1 {   ==>    %n1 = ceildiv(%u1 - %l1, %s1)
    body(%i, %j)                              scf.for %k = 0 to %n0 * %n1 step 1 {
  }                                             %i = %l0 + (%k floordiv %n1) * %s0
}                                               %j = %l1 + (%k mod %n1) * %s1
                                                body(%i, %j) }
```
The nest is the chain of loops, starting at the outermost, whose bodies hold
exactly one loop (and the terminator), carry no values and whose bounds are
defined outside the nest.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.ir.affine_utils import (
    IndexBuilder,
    OpFoldResult,
    constant_index_value,
    defined_inside,
)


def perfect_nest(outer: scf.ForOp) -> list[scf.ForOp]:
    """The loops of the perfect nest rooted at `outer` that can be coalesced."""
    nest = [outer]
    if outer.iter_args:
        return nest
    while True:
        ops = list(nest[-1].body.block.ops)
        if len(ops) != 2 or not isinstance(ops[0], scf.ForOp):
            return nest
        inner = ops[0]
        if inner.iter_args or any(
            defined_inside(v, outer) for v in (inner.lb, inner.ub, inner.step)
        ):
            return nest
        nest.append(inner)


class _Arith:
    """Folding index arithmetic: ints stay ints, values emit arith ops (only arith: unlike
    `xlinalg.transforms.tiling.loops.IndexArith`, which emits `affine.apply`)."""

    def __init__(self, builder: IndexBuilder):
        self.b = builder

    def sub(self, a: OpFoldResult, b: OpFoldResult) -> OpFoldResult:
        if isinstance(a, int) and isinstance(b, int):
            return a - b
        return a if b == 0 else self.b.binary(arith.SubiOp, a, b)

    def add(self, a: OpFoldResult, b: OpFoldResult) -> OpFoldResult:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if a == 0:
            return b
        return a if b == 0 else self.b.binary(arith.AddiOp, a, b)

    def mul(self, a: OpFoldResult, b: OpFoldResult) -> OpFoldResult:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if a == 1:
            return b
        return a if b == 1 else self.b.binary(arith.MuliOp, a, b)

    def div(self, a: OpFoldResult, b: OpFoldResult) -> OpFoldResult:
        if isinstance(a, int) and isinstance(b, int):
            return a // b
        return a if b == 1 else self.b.binary(arith.DivUIOp, a, b)

    def rem(self, a: OpFoldResult, b: OpFoldResult) -> OpFoldResult:
        if isinstance(a, int) and isinstance(b, int):
            return a % b
        return 0 if b == 1 else self.b.binary(arith.RemUIOp, a, b)

    def ceildiv(self, a: OpFoldResult, b: OpFoldResult) -> OpFoldResult:
        if isinstance(a, int) and isinstance(b, int):
            return -(-a // b)
        return self.div(self.sub(self.add(a, b), 1), b)


def _fold(value: SSAValue) -> OpFoldResult:
    constant = constant_index_value(value)
    return value if constant is None else constant


def coalesce_loops(outer: scf.ForOp) -> scf.ForOp:
    """Coalesce the perfect nest under `outer`; returns the new loop, or `outer`
    itself when the nest has a single loop (nothing to do)."""
    nest = perfect_nest(outer)
    if len(nest) < 2:
        return outer
    builder = IndexBuilder(InsertPoint.before(outer))
    math = _Arith(builder)
    counts = [
        math.ceildiv(math.sub(_fold(loop.ub), _fold(loop.lb)), _fold(loop.step)) for loop in nest
    ]
    total: OpFoldResult = 1
    for count in counts:
        total = math.mul(total, count)
    zero, one = builder.constant(0), builder.constant(1)
    body = Block(arg_types=[outer.lb.type])
    new_loop = scf.ForOp(zero, builder.value(total), one, [], Region(body))
    Rewriter.insert_op(new_loop, InsertPoint.before(outer))

    inner_builder = IndexBuilder(InsertPoint.at_start(body))
    inner_math = _Arith(inner_builder)
    remaining: OpFoldResult = body.args[0]
    ivs: list[OpFoldResult] = [0] * len(nest)
    for index in range(len(nest) - 1, -1, -1):
        count = counts[index]
        normalized = inner_math.rem(remaining, count) if index > 0 else remaining
        if index > 0:
            remaining = inner_math.div(remaining, count)
        ivs[index] = inner_math.add(
            _fold(nest[index].lb), inner_math.mul(normalized, _fold(nest[index].step))
        )
    innermost = nest[-1].body.block
    for loop, iv in zip(nest, ivs):
        loop.body.block.args[0].replace_all_uses_with(inner_builder.value(iv))
    for op in list(innermost.ops):
        op.detach()
        body.add_op(op)
    Rewriter.erase_op(outer, safe_erase=False)
    return new_loop


__all__ = ["coalesce_loops", "perfect_nest"]
