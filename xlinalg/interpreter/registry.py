"""Registry: transform op class -> the function applying it (its semantics).

Which handle operands an op consumes is declared on the op class
(`xlinalg.dialects.transform.effects`), not here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from xdsl.ir import Operation
from xdsl.pattern_rewriter import RewritePattern

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
        # keyed by op_type: the interpreter calls `fn` with instances of op_type only
        TRANSFORM_IMPLS[op_type] = fn  # pyright: ignore[reportArgumentType]
        return fn

    return wrap


@dataclass(frozen=True)
class PatternSet:
    """What one pattern descriptor (a `transform.apply_patterns.*` op) contributes to its
    `transform.apply_patterns`: greedy rewrite patterns, applied together with the other
    descriptors' (upstream's `populatePatterns`), and/or a rewrite of the target's body
    run directly (the lowerings written as walks over the target, not as patterns)."""

    patterns: Callable[[], list[RewritePattern]] | None = None
    rewrite: Callable[[Operation, Operation], None] | None = None
    """`rewrite(descriptor, target)`: rewrite the ops nested in `target` (never `target`)."""
    loop_cleanup: bool = False
    """Also fold affine.min/max and single-iteration loops (`canonicalize_loops`)."""


PATTERN_SETS: dict[type[Operation], PatternSet] = {}


def register_patterns(op_type: type[Operation], pattern_set: PatternSet) -> None:
    """Register what the pattern descriptor `op_type` applies."""
    PATTERN_SETS[op_type] = pattern_set
