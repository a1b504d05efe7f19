"""Which handle operands a transform op consumes: upstream's `MemoryEffectsOpInterface` on
transform ops (`consumesHandle` / `onlyReadsHandle`), declared on the op class.

A transform op that consumes handles derives from `HandleEffects` and says which in
`consumed_handles` (`ConsumesTarget`: the common case, its `target` operand); every other
op only reads its handle operands. The interpreter invalidates the consumed handles once
the op ran; the named-sequence verifier requires `{transform.consumed}` on every argument
that an op of the body consumes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol, cast

from xdsl.ir import Operation, SSAValue


class HandleEffects:
    """A transform op consuming some of its handle operands."""

    ALLOWS_REPEATED_HANDLE_OPERANDS: ClassVar[bool] = False
    """Upstream's `allowsRepeatedHandleOperands`: when true, a consumed handle may point to
    the same payload entity more than once (no repeated-consumption check)."""

    def consumed_handles(self) -> Sequence[SSAValue]:
        """The handle operands this op consumes."""
        return ()


class _WithTarget(Protocol):
    target: SSAValue


class ConsumesTarget(HandleEffects):
    """A transform op consuming its `target` operand (and only reading the others)."""

    def consumed_handles(self) -> Sequence[SSAValue]:
        return (cast(_WithTarget, self).target,)


def consumed_handles(op: Operation) -> Sequence[SSAValue]:
    """The operands `op` consumes (none for an op that only reads its handles)."""
    return op.consumed_handles() if isinstance(op, HandleEffects) else ()


def allows_repeated_handle_operands(op: Operation) -> bool:
    return isinstance(op, HandleEffects) and op.ALLOWS_REPEATED_HANDLE_OPERANDS


def block_arg_consumed(arg: SSAValue) -> bool:
    """Whether some transform op in the arg's block (or nested) consumes `arg`."""
    return any(arg in consumed_handles(use.operation) for use in arg.uses)


__all__ = [
    "ConsumesTarget",
    "HandleEffects",
    "allows_repeated_handle_operands",
    "block_arg_consumed",
    "consumed_handles",
]
