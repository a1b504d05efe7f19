"""Error messages naming the transform op, its schedule location and the payload op."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from xdsl.ir import Operation, OpResult, SSAValue

from xlinalg.errors import TransformFailure
from xlinalg.ir.diagnostics import location_of


def describe_transform(op: Operation) -> str:
    loc = location_of(op)
    return f"'{op.name}'" + (f" at {loc}" if loc else "")


def describe_payload(op: Operation) -> str:
    loc = location_of(op)
    if loc:
        return f"payload op '{op.name}' at {loc}"
    text = str(op).split("\n", 1)[0].strip()
    if len(text) > 120:
        text = text[:117] + "..."
    return f"payload op '{op.name}' ({text})"


def describe_handle(value: SSAValue) -> str:
    """`%name`, or `%name#k` for the k-th of several results sharing a name (`%l:2`)."""
    if not value.name_hint:
        return "a handle"
    if isinstance(value, OpResult):
        same = [r for r in value.op.results if r.name_hint == value.name_hint]
        if len(same) > 1:
            return f"%{value.name_hint}#{same.index(value)}"
    return f"%{value.name_hint}"


class Lazy:
    """Text built only when a failure is reported: `template.format(*args)`, each payload
    op in `args` described by `describe_payload` (which prints the op when it has no
    location: kept off the success path, which the tuner runs for every trial)."""

    def __init__(self, template: str, *args: object) -> None:
        self.template = template
        self.args = args

    def __str__(self) -> str:
        return self.template.format(
            *(describe_payload(a) if isinstance(a, Operation) else a for a in self.args)
        )


def failure(op: Operation, message: str, *, silenceable: bool) -> TransformFailure:
    """A TransformFailure located at the transform op `op`."""
    return TransformFailure(f"{op.name}: {message}", location_of(op), silenceable=silenceable)


@contextmanager
def failure_of(
    op: Operation,
    prefix: str | Lazy = "",
    suffix: str | Lazy = "",
    *,
    silenceable: bool | None = None,
    before: Callable[[], None] | None = None,
) -> Iterator[None]:
    """Report a `TransformFailure` raised inside the block (applying `op` to one payload
    target) as a failure of the transform op `op`: message `prefix + message + suffix`,
    silenceable as raised unless `silenceable` says otherwise; `before` runs first (e.g.
    binds the results of the targets done so far). `prefix` and `suffix` may be `Lazy`."""
    try:
        yield
    except TransformFailure as err:
        if before is not None:
            before()
        kind = err.silenceable if silenceable is None else silenceable
        raise failure(op, f"{prefix}{err.message}{suffix}", silenceable=kind) from err


@dataclass
class ApplyToEach:
    """Upstream's `applyTransformToEach` (ops with `TransformEachOpTrait`): the op is applied
    to every target; a definite failure stops at once, a silenceable one is recorded and the
    next target is tried. `finish` then reports the recorded failures, in target order, as
    one silenceable failure. The results of a failed target are not bound (upstream's
    `setApplyToOneResults` gets only the successful targets' results), so the block under
    `target` must record its results itself, after the call that may fail."""

    op: Operation
    failures: list[TransformFailure] = field(default_factory=list[TransformFailure])

    @contextmanager
    def target(
        self, prefix: str | Lazy = "", suffix: str | Lazy = "", *, silenceable: bool | None = None
    ) -> Iterator[None]:
        """Apply to one target: as `failure_of`, but a silenceable failure is recorded and
        swallowed (the rest of the block is skipped)."""
        try:
            with failure_of(self.op, prefix, suffix, silenceable=silenceable):
                yield
        except TransformFailure as err:
            if not err.silenceable:
                raise
            self.failures.append(err)

    def fail(self, message: str) -> None:
        """Record a silenceable failure of one target (e.g. a target of the wrong kind)."""
        self.failures.append(failure(self.op, message, silenceable=True))

    def finish(self) -> None:
        """Raise the recorded failures (after the caller bound the results)."""
        if not self.failures:
            return
        head = f"{self.op.name}: "
        messages = [f.message.removeprefix(head) for f in self.failures]
        combined = failure(self.op, "; ".join(messages), silenceable=True)
        raise combined from self.failures[0]
