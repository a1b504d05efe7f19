"""`lower-affine`: `affine.apply`, `affine.min`, `affine.max` → `arith` on `index`.

xDSL's own `lower-affine` (0.74) drops symbols in some paths, lowers `mod` to a
plain `remsi` (wrong for negative operands) and does not know `affine.min` /
`affine.max`; this pass follows upstream MLIR's expansion instead (see
`affine_expansion.py`). Any expression, dims and symbols, multi-result min/max.

`affine.max` is not an xDSL op in 0.74: it is matched by name (`affine.max`,
also as an unregistered op) and read through its `map` property and operands,
so it works with whatever op class registers that name (the upstream op has
the same operands and `map`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.errors import LoweringError
from xlinalg.lowering.affine_expansion import AffineExpander
from xlinalg.lowering.diagnostics import describe_op, op_name

_LOWERED = ("affine.apply", "affine.min", "affine.max")


def _map_of(op: Operation) -> AffineMapAttr:
    amap = op.properties.get("map", op.attributes.get("map"))
    if not isinstance(amap, AffineMapAttr):
        raise LoweringError(f"{describe_op(op)} has no affine map", None)
    return amap


def lower_affine_op(op: Operation) -> None:
    """Replace one affine.apply/min/max by arith ops inserted right before it."""
    amap = _map_of(op).data
    expander = AffineExpander(Builder(InsertPoint.before(op)))
    try:
        values = expander.expand_map(amap, list(op.operands))
        name = op_name(op)
        if name == "affine.apply":
            if len(values) != 1:
                raise LoweringError(f"affine.apply expects a single-result map, got {amap}")
            result = values[0]
        elif name == "affine.min":
            result = expander.reduce(values, "slt")
        else:
            result = expander.reduce(values, "sgt")
    except LoweringError as err:
        raise LoweringError(f"{describe_op(op)}: {err.message}", err.location) from None
    Rewriter.replace_op(op, [], [result])


@dataclass(frozen=True)
class LowerAffinePass(ModulePass):
    """Lower affine.apply/min/max to arith (index arithmetic)."""

    name = "lower-affine"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Innermost-first is not needed: each op only reads its operands, which
        # stay valid SSA values whether or not they were produced by affine ops.
        todo = [inner for inner in op.walk() if op_name(inner) in _LOWERED]
        for inner in todo:
            lower_affine_op(inner)


__all__ = ["LowerAffinePass", "lower_affine_op"]
