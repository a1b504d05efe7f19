"""Lower the ops that implement the interfaces of `xlinalg.interfaces.loop_lowering`."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from xlinalg.interfaces.loop_lowering import DecomposableOpInterface, LoopLoweringInterface
from xlinalg.ir.passes import register_pass
from xlinalg.ir.walk import walk_ops


@register_pass
@dataclass(frozen=True)
class DecomposeAggregatedOpsPass(ModulePass):
    """Decompose every `DecomposableOpInterface` op until none is left."""

    name = "decompose-aggregated-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        while True:
            pending = [
                inner for inner in walk_ops(op) if isinstance(inner, DecomposableOpInterface)
            ]
            if not pending:
                return
            for inner in pending:
                if inner.parent is not None:
                    inner.decompose(Rewriter())


@register_pass
@dataclass(frozen=True)
class LowerInterfaceOpsToLoopsPass(ModulePass):
    """Call `lower_to_loops` on every `LoopLoweringInterface` op."""

    name = "lower-interface-ops-to-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in [o for o in walk_ops(op) if isinstance(o, LoopLoweringInterface)]:
            if inner.parent is not None:
                inner.lower_to_loops(Rewriter())
