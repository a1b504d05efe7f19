"""`region_dce`: xDSL 0.74's region dead-code elimination with memoised memory effects.

Exactly xDSL's `xdsl.transforms.dead_code_elimination.region_dce` (its `LiveSet`
fixpoint, then the deletion), except that "would this op be trivially dead" asks
`MemoizedEffects`: xDSL recomputes a loop's effects from its whole body on every
visit of every round of the fixpoint. The propagation changes no IR, so the memo
holds until the deletion, which needs no effects.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import Operation, Region
from xdsl.transforms.dead_code_elimination import LiveSet

from xlinalg.ir.effects import MemoizedEffects


@dataclass
class _MemoizedLiveSet(LiveSet):
    effects: MemoizedEffects = field(default_factory=MemoizedEffects)

    def propagate_op_liveness(self, op: Operation) -> None:
        for region in op.regions:
            self.propagate_region_liveness(region)
        if self.is_live(op):
            return
        if not self.effects.would_be_trivially_dead(op):
            self.set_live(op)
            return
        if any(self.is_live(use.operation) for result in op.results for use in result.uses):
            self.set_live(op)


def region_dce(region: Region) -> bool:
    """Erase the ops of `region` (and nested) whose results are unused and that have no
    effect but reads and their own allocations; whether anything was erased."""
    live_set = _MemoizedLiveSet()
    while live_set.changed:
        live_set.changed = False
        live_set.propagate_region_liveness(region)
    live_set.delete_dead(region, None)
    return live_set.changed


__all__ = ["region_dce"]
