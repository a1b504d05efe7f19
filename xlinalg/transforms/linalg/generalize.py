"""`generalize`: a named linalg op becomes the equivalent `linalg.generic` (maps, iterators, payload)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from xlinalg.dialects.linalg.generic import GenericOp
from xlinalg.dialects.linalg.map_reduce import MapOp, ReduceOp
from xlinalg.dialects.linalg.named import NamedStructuredOp
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.passes import register_pass
from xlinalg.ir.walk import walk_ops


def generalize(op: Operation) -> GenericOp:
    """Replace the named op `op` by an equivalent `linalg.generic` and return the latter.

    A `linalg.generic` is returned unchanged; any other op is a silenceable failure.
    """
    if isinstance(op, GenericOp):
        return op
    if isinstance(op, (MapOp, ReduceOp)):  # region-carrying structured ops
        generic = op.to_generic()
        Rewriter.replace_op(op, generic)
        return generic
    if not isinstance(op, NamedStructuredOp):
        raise silenceable_failure(
            f"cannot generalize '{op.name}': not a named linalg structured op"
        )
    generic = op.to_generic()
    Rewriter.replace_op(op, generic)
    return generic


def as_generic(op: StructuredOpInterface) -> GenericOp:
    """`op` itself when a `linalg.generic`, else its equivalent `linalg.generic` (new, not
    inserted, `op` left in place)."""
    if isinstance(op, GenericOp):
        return op
    assert isinstance(op, NamedStructuredOp | MapOp | ReduceOp)
    return op.to_generic()


@register_pass
@dataclass(frozen=True)
class LinalgGeneralizeNamedOpsPass(ModulePass):
    """Generalize every named linalg op of the module to `linalg.generic`."""

    name = "linalg-generalize-named-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        named = [
            inner
            for inner in walk_ops(op)
            if isinstance(inner, (NamedStructuredOp, MapOp, ReduceOp))
        ]
        for inner in named:
            generalize(inner)
