"""Memory effects of ops, memoised: xDSL's `get_effects` and the predicates built on it.

`xdsl.traits.get_effects` of an op with `RecursiveMemoryEffect` (a loop) is the union
over its whole body, recomputed on every call; the cleanup passes ask it of every op,
so a loop nest's effects are computed once per enclosing loop and per question (dead?
pure? read-only?). `MemoizedEffects` gives the same answers, computing each op's
effects once. It is valid while no op is added to or removed from a region whose
effects it has answered: one CSE run (which erases at its end), or LICM (which only
moves side-effect-free ops out of loops, so no loop's effect set changes).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from xdsl.ir import Operation, SSAValue
from xdsl.traits import (
    EffectInstance,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)

_RECURSIVE = RecursiveMemoryEffect.get_effects.__func__


def _is_recursive(trait: MemoryEffect) -> bool:
    """Whether the op's effects under `trait` are those of its nested ops
    (`RecursiveMemoryEffect`, not overridden)."""
    return getattr(type(trait).get_effects, "__func__", None) is _RECURSIVE


class MemoizedEffects:
    def __init__(self) -> None:
        self._memo: dict[Operation, AbstractSet[EffectInstance] | None] = {}

    def get_effects(self, op: Operation) -> AbstractSet[EffectInstance] | None:
        """`xdsl.traits.get_effects`, with the effects of nested ops computed once."""
        if op in self._memo:
            return self._memo[op]
        interfaces = op.get_traits_of_type(MemoryEffect)
        effects: set[EffectInstance] | None = None
        if interfaces:
            effects = set()
            for it in interfaces:
                found = self._nested_effects(op) if _is_recursive(it) else it.get_effects(op)
                if found is None:
                    effects = None
                    break
                effects.update(found)
        self._memo[op] = effects
        return effects

    def _nested_effects(self, op: Operation) -> set[EffectInstance] | None:
        """`RecursiveMemoryEffect.get_effects(op)`."""
        effects: set[EffectInstance] = set()
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    found = self.get_effects(child)
                    if found is None:
                        return None
                    effects.update(found)
        return effects

    def is_side_effect_free(self, op: Operation) -> bool:
        effects = self.get_effects(op)
        return effects is not None and len(effects) == 0

    def only_reads(self, op: Operation) -> bool:
        effects = self.get_effects(op)
        return effects is not None and all(e.kind == MemoryEffectKind.READ for e in effects)

    def is_trivially_dead(self, op: Operation) -> bool:
        """`xdsl.transforms.dead_code_elimination.is_trivially_dead`."""
        return all(r.first_use is None for r in op.results) and self.would_be_trivially_dead(op)

    def would_be_trivially_dead(self, op: Operation) -> bool:
        """`xdsl.transforms.dead_code_elimination.would_be_trivially_dead`."""
        if op.has_trait(IsTerminator, value_if_unregistered=False) or op.has_trait(
            SymbolOpInterface, value_if_unregistered=False
        ):
            return False
        effects = self.get_effects(op)
        return effects is not None and all(
            e.kind == MemoryEffectKind.READ
            or (
                e.kind == MemoryEffectKind.ALLOC
                and isinstance(v := e.value, SSAValue)
                and op.is_ancestor(v.owner)
            )
            for e in effects
        )


__all__ = ["MemoizedEffects"]
