"""A small builder shared by the vector lowering rewrites (`vector_lower_*`, `vector_transfer_*`).

Each rewrite replaces one op by finer-grained vector ops inserted before it;
`VectorBuilder` inserts at a point and hands back the first result.
`apply_to_all` runs a rewrite on every matching op under a root as a pattern
would: an op the rewrite rejects (`TransformFailure`) stays as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.errors import TransformFailure
from xlinalg.ir.walk import walk_ops
from xlinalg.transforms.vector.builders import splat_attr

T = TypeVar("T", bound=Operation)


class VectorBuilder:
    """Inserts ops at `at` (before an op, or at a block end) and returns their first result."""

    def __init__(self, at: InsertPoint) -> None:
        self.at = at

    @staticmethod
    def before(op: Operation) -> VectorBuilder:
        return VectorBuilder(InsertPoint.before(op))

    def insert(self, op: Operation) -> None:
        """Insert `op` (whose results, if any, are not needed here)."""
        Rewriter.insert_op(op, self.at)

    def add(self, op: Operation) -> SSAValue:
        """Insert `op` and return its first result (an op without results: `insert`)."""
        self.insert(op)
        return op.results[0]

    def index(self, value: int) -> SSAValue:
        return self.add(arith.ConstantOp(IntegerAttr(value, IndexType())))

    def zeros(self, t: VectorType) -> SSAValue:
        """An all-zero constant of vector type `t` (the starting value of insert chains)."""
        return self.add(arith.ConstantOp(splat_attr(t, 0)))

    def scalar(self, value: float, t: Attribute) -> SSAValue:
        if isinstance(t, IntegerType | IndexType):
            return self.add(arith.ConstantOp(IntegerAttr(int(value), t)))
        assert isinstance(t, AnyFloat), t
        return self.add(arith.ConstantOp(FloatAttr(float(value), t)))


def replace_op(op: Operation, values: Sequence[SSAValue]) -> None:
    """Replace the results of `op` by `values` and erase it."""
    for old, new in zip(op.results, values, strict=True):
        old.replace_all_uses_with(new)
    op.detach()
    op.erase()


def apply_to_all(
    root: Operation, op_type: type[T] | tuple[type[T], ...], rewrite: Callable[[T], object]
) -> int:
    """Apply `rewrite` to every `op_type` op nested in `root` (ops created by the rewrite are
    visited too, until none is left that it accepts); return how many were rewritten.
    `root` itself is not rewritten (upstream's patterns apply to the body of the target)."""
    count = 0
    rejected: dict[int, Operation] = {}  # kept alive so that ids are not reused
    while True:
        todo = [o for o in walk_ops(root)[1:] if isinstance(o, op_type) and id(o) not in rejected]
        if not todo:
            return count
        for o in todo:
            if o.parent is None:  # erased by an earlier rewrite (e.g. a fold)
                continue
            try:
                rewrite(o)
                count += 1
            except TransformFailure:
                rejected[id(o)] = o


__all__ = ["VectorBuilder", "apply_to_all", "replace_op"]
