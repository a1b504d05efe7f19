"""Error messages naming the transform op, its schedule location and the payload op."""

from __future__ import annotations

from xdsl.ir import Operation, OpResult, SSAValue

from xlinalg.errors import TransformFailure
from xlinalg.interpreter.parsing import location_of


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


def failure(op: Operation, message: str, *, silenceable: bool) -> TransformFailure:
    """A TransformFailure located at the transform op `op`."""
    return TransformFailure(f"{op.name}: {message}", location_of(op), silenceable=silenceable)
