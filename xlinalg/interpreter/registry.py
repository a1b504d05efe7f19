"""Registry: transform op class -> implementation function (+ which operands it consumes,
and whether a consumed handle may point to the same payload entity more than once)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from xdsl.ir import Operation, SSAValue

if TYPE_CHECKING:
    from xlinalg.interpreter.interpreter import Interpreter

OpT = TypeVar("OpT", bound=Operation)

Impl = Callable[[Operation, "Interpreter"], None]
"""Apply one transform op: read operands from `interp.state`, bind every result.

Raise `TransformFailure(silenceable=True)` for a precondition failure (payload
untouched), `TransformFailure(silenceable=False)` otherwise."""


@dataclass(frozen=True)
class TransformImpl:
    apply: Impl
    consumed: Callable[[Operation], list[SSAValue]]
    allows_repeated: bool
    """Upstream's `allowsRepeatedHandleOperands`: when true, the interpreter does not
    check that each consumed handle points to distinct payload entities."""


TRANSFORM_IMPLS: dict[type[Operation], TransformImpl] = {}


def _reads_only(op: Operation) -> list[SSAValue]:
    return []


def register(
    op_type: type[OpT],
    *,
    consumes: Callable[[OpT], list[SSAValue]] | None = None,
    allows_repeated: bool = False,
) -> Callable[[Callable[[OpT, Interpreter], None]], Callable[[OpT, Interpreter], None]]:
    """Decorator registering the implementation of `op_type`."""

    def wrap(fn: Callable[[OpT, Interpreter], None]) -> Callable[[OpT, Interpreter], None]:
        TRANSFORM_IMPLS[op_type] = TransformImpl(
            fn,  # type: ignore[arg-type]
            consumes or _reads_only,  # type: ignore[arg-type]
            allows_repeated,
        )
        return fn

    return wrap
