"""`lower-affine`: `affine.apply/min/max` → `arith` on `index`; `affine.for/load/store` → scf/memref.

xDSL's own `lower-affine` (0.74) drops symbols in some paths, lowers `mod` to a
plain `remsi` (wrong for negative operands) and does not know `affine.min` /
`affine.max`; this pass follows upstream MLIR's expansion instead (see
`affine_expansion.py`). Any expression, dims and symbols, multi-result min/max.

`affine.max` is not an xDSL op in 0.74: it is matched by name (`affine.max`,
also as an unregistered op) and read through its `map` property and operands,
so it works with whatever op class registers that name (the upstream op has
the same operands and `map`).

`affine.for` becomes an `scf.for` from the max of its lower-bound map results
to the min of its upper-bound map results (xDSL's lowering ignores the bound
operands and multi-result bounds); `affine.load`/`affine.store` become memref
ops at the expanded indices. `affine.if` and `affine.parallel` are not lowered
(the cf-level check reports them).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import affine, memref, scf
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.errors import LoweringError
from xlinalg.ir.diagnostics import lowering_error, op_name
from xlinalg.ir.passes import register_pass
from xlinalg.ir.walk import walk_ops
from xlinalg.transforms.affine.expansion import AffineExpander

_VALUE_OPS = ("affine.apply", "affine.min", "affine.max")
_LOWERED = (*_VALUE_OPS, "affine.load", "affine.store", "affine.for")


def _map_of(op: Operation, key: str = "map") -> AffineMapAttr:
    amap = op.properties.get(key, op.attributes.get(key))
    if not isinstance(amap, AffineMapAttr):
        raise lowering_error(op, "has no affine map")
    return amap


def _lower_value_op(op: Operation, expander: AffineExpander) -> SSAValue:
    amap = _map_of(op).data
    values = expander.expand_map(amap, list(op.operands))
    name = op_name(op)
    if name == "affine.apply":
        if len(values) != 1:
            raise LoweringError(f"affine.apply expects a single-result map, got {amap}")
        return values[0]
    return expander.reduce(values, "slt" if name == "affine.min" else "sgt")


def _lower_for(op: affine.ForOp, expander: AffineExpander) -> None:
    """`affine.for` → `scf.for` from the max of the lower bounds to the min of the upper bounds."""
    step = op.step.value.data
    if step <= 0:
        raise lowering_error(op, f"step must be positive, got {step}")
    lower = expander.expand_map(op.lowerBoundMap.data, list(op.lowerBoundOperands))
    upper = expander.expand_map(op.upperBoundMap.data, list(op.upperBoundOperands))
    lb = expander.reduce(lower, "sgt")
    ub = expander.reduce(upper, "slt")
    body = Rewriter.move_region_contents_to_new_regions(op.body)
    block = body.block
    terminator = block.last_op
    if isinstance(terminator, affine.YieldOp):
        Rewriter.replace_op(terminator, scf.YieldOp(*terminator.arguments))
    elif terminator is None or not isinstance(terminator, scf.YieldOp):
        block.add_op(scf.YieldOp())
    loop = scf.ForOp(lb, ub, expander.constant(step), list(op.inits), body)
    Rewriter.replace_op(op, loop)


def lower_affine_op(op: Operation) -> None:
    """Replace one affine op by arith/memref/scf ops inserted right before it."""
    expander = AffineExpander(Builder(InsertPoint.before(op)))
    try:
        if isinstance(op, affine.ForOp):
            _lower_for(op, expander)
        elif isinstance(op, affine.LoadOp):
            indices = expander.expand_map(op.map.data, list(op.indices))
            Rewriter.replace_op(op, memref.LoadOp.get(op.memref, indices))
        elif isinstance(op, affine.StoreOp):
            indices = expander.expand_map(op.map.data, list(op.indices))
            Rewriter.replace_op(op, memref.StoreOp.get(op.value, op.memref, indices))
        else:
            Rewriter.replace_op(op, [], [_lower_value_op(op, expander)])
    except LoweringError as err:
        if err.location is not None or err.message.startswith("'"):
            raise
        raise lowering_error(op, err.message) from None


@register_pass
@dataclass(frozen=True)
class LowerAffinePass(ModulePass):
    """Lower affine.apply/min/max to arith (index arithmetic), affine.for/load/store to scf/memref."""

    name = "lower-affine"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Innermost-first is not needed: each op only reads its operands, which
        # stay valid SSA values whether or not they were produced by affine ops.
        todo = [inner for inner in walk_ops(op) if op_name(inner) in _LOWERED]
        for inner in todo:
            lower_affine_op(inner)


__all__ = ["LowerAffinePass", "lower_affine_op"]
