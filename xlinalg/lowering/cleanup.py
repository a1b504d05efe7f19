"""Cleanups run between lowering stages: canonicalize, CSE, loop-invariant code motion, DCE.

All of them are xDSL's own passes (0.74), which work on the ops we produce
(arith/index arithmetic, memref, scf, cf); they are grouped here so the
pipeline runs the same sequence at the scf level and at the cf level.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.transforms.loop_invariant_code_motion import LoopInvariantCodeMotionPass


@dataclass(frozen=True)
class LoweringCleanupPass(ModulePass):
    """canonicalize → cse → (licm when `hoist` and scf loops remain) → dce.

    `canonicalize` folds constants and trivial arithmetic (including what the
    affine expansion leaves, e.g. `x + 0`); `cse` merges the index constants and
    the repeated index computations of the unrolled/tiled bodies; `licm` hoists
    pure ops (index arithmetic, constants, `memref.dim`-free views) out of
    `scf.for` loops; `dce` drops what became unused.
    """

    name = "xlinalg-lowering-cleanup"

    canonicalize: bool = True
    hoist: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.canonicalize:
            CanonicalizePass().apply(ctx, op)
        cse(op)
        if self.hoist:
            LoopInvariantCodeMotionPass().apply(ctx, op)
            cse(op)
        region_dce(op.body)
