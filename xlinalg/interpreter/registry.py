"""Registry: transform op class -> the function applying it (its semantics).

Which handle operands an op consumes is declared on the op class
(`xlinalg.dialects.transform.effects`), not here."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from xdsl.ir import Operation

if TYPE_CHECKING:
    from xlinalg.interpreter.interpreter import Interpreter

OpT = TypeVar("OpT", bound=Operation)

Impl = Callable[[Operation, "Interpreter"], None]
"""Apply one transform op: read operands from `interp.state`, bind every result.

Raise `TransformFailure(silenceable=True)` for a precondition failure (payload
untouched), `TransformFailure(silenceable=False)` otherwise."""

TRANSFORM_IMPLS: dict[type[Operation], Impl] = {}


def register(
    op_type: type[OpT],
) -> Callable[[Callable[[OpT, Interpreter], None]], Callable[[OpT, Interpreter], None]]:
    """Decorator registering the implementation of `op_type`."""

    def wrap(fn: Callable[[OpT, Interpreter], None]) -> Callable[[OpT, Interpreter], None]:
        TRANSFORM_IMPLS[op_type] = fn  # type: ignore[assignment]
        return fn

    return wrap
