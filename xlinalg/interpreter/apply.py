"""`apply_schedule`: run a transform script on a payload module."""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from xlinalg.dialects.transform.core import WITH_NAMED_SEQUENCE, NamedSequenceOp, SequenceOp
from xlinalg.dialects.transform.knobs import check_knob_names
from xlinalg.errors import TransformFailure
from xlinalg.interpreter.diagnostics import describe_transform, failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.parsing import location_of
from xlinalg.interpreter.state import TransformState

DEFAULT_ENTRY = "__transform_main"


def _transform_roots(root: Operation) -> list[Operation]:
    """Top-level transform ops under `root`, not descending into transform ops."""
    found: list[Operation] = []

    def visit(op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    if isinstance(child, (NamedSequenceOp, SequenceOp)):
                        found.append(child)
                    elif child.name.startswith("transform."):
                        continue
                    else:
                        visit(child)

    visit(root)
    return found


def find_entry(schedule: ModuleOp, entry: str = DEFAULT_ENTRY) -> NamedSequenceOp | SequenceOp:
    """`transform.named_sequence @entry`, else the single top-level `transform.sequence`."""
    roots = _transform_roots(schedule)
    named = [op for op in roots if isinstance(op, NamedSequenceOp) and op.sym_name.data == entry]
    if len(named) > 1:
        raise TransformFailure(f"the schedule defines @{entry} more than once", silenceable=False)
    if named:
        return named[0]
    sequences = [op for op in roots if isinstance(op, SequenceOp)]
    if len(sequences) == 1:
        return sequences[0]
    if not sequences:
        raise TransformFailure(
            f"the schedule has no entry point: expected `transform.named_sequence @{entry}` "
            "or a top-level `transform.sequence`",
            silenceable=False,
        )
    where = ", ".join(location_of(s) or "?" for s in sequences)
    raise TransformFailure(
        f"the schedule has {len(sequences)} top-level transform.sequence ops ({where}) and no "
        f"@{entry}: cannot choose an entry point",
        silenceable=False,
    )


def _erase_schedule(payload: ModuleOp, entry: Operation) -> None:
    """Remove the transform IR embedded in `payload` after applying it."""
    for op in _transform_roots(payload):
        parent = op.parent_op()
        op.detach()
        op.erase(safe_erase=False)
        if (
            isinstance(parent, ModuleOp)
            and parent is not payload
            and WITH_NAMED_SEQUENCE in parent.attributes
            and parent.body.block.first_op is None
        ):
            parent.detach()
            parent.erase()
    payload.attributes.pop(WITH_NAMED_SEQUENCE, None)


def apply_schedule(
    payload: ModuleOp,
    schedule: ModuleOp | None = None,
    knobs: Mapping[str, object] | None = None,
    entry: str = DEFAULT_ENTRY,
) -> ModuleOp:
    """Apply `schedule` to `payload` in place and return `payload`.

    The entry (`transform.named_sequence @entry`, else the single top-level
    `transform.sequence`) gets the payload module bound to its first block
    argument. `knobs` gives values to unresolved `transform.tune.knob`s and
    `transform.tune.alternatives` by name. If `schedule` is `payload` (or None),
    the transform IR embedded in the payload is applied and then erased.

    Raises `TransformFailure` (silenceable or definite) and `KnobError`.
    """
    embedded = schedule is None or schedule is payload
    script = payload if schedule is None else schedule
    knobs = dict(knobs or {})
    check_knob_names(script, knobs)
    entry_op = find_entry(script, entry)
    block = entry_op.body.block
    interp = Interpreter(TransformState(knobs=knobs))
    if isinstance(entry_op, SequenceOp) and entry_op.root is not None:
        raise failure(
            entry_op, "a top-level transform.sequence cannot have a root operand", silenceable=False
        )
    if len(block.args) > 1:
        raise failure(
            entry_op,
            f"the entry point takes {len(block.args)} arguments; only the payload root "
            "can be bound",
            silenceable=False,
        )
    if block.args:
        interp.state.bind(block.args[0], [payload])
    suppress = isinstance(entry_op, SequenceOp) and entry_op.suppresses_failures
    try:
        interp.run_block(block, suppress=suppress)
    except TransformFailure as err:
        if err.silenceable and err.location is None:
            err.location = location_of(entry_op)
        if err.silenceable:
            # A silenceable failure reaching the top level is an error.
            err.message = (
                f"{err.message} (silenceable failure reached {describe_transform(entry_op)})"
            )
            err.args = (err.message,)
        raise
    if embedded:
        _erase_schedule(payload, entry_op)
    return payload
