"""`apply_schedule`: run a transform script on a payload module."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue

from xlinalg.dialects.transform.control import AlternativesOp, WithPDLPatternsOp
from xlinalg.dialects.transform.core import WITH_NAMED_SEQUENCE, SequenceOp
from xlinalg.dialects.transform.named_sequences import NamedSequenceOp
from xlinalg.errors import TransformFailure
from xlinalg.interpreter.diagnostics import describe_transform, failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.state import TransformState
from xlinalg.ir.diagnostics import location_of
from xlinalg.transforms.transform.knobs import check_knob_names

DEFAULT_ENTRY = "__transform_main"

TOP_LEVEL_OPS = (NamedSequenceOp, SequenceOp, AlternativesOp, WithPDLPatternsOp)
"""Ops with upstream's PossibleTopLevelTransformOpTrait (+ named sequences)."""


def _transform_roots(root: Operation) -> list[Operation]:
    """Top-level transform ops under `root`, not descending into transform ops."""
    found: list[Operation] = []

    def visit(op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    if isinstance(child, TOP_LEVEL_OPS):
                        found.append(child)
                    elif child.name.startswith("transform."):
                        continue
                    else:
                        visit(child)

    visit(root)
    return found


def find_entry(schedule: ModuleOp, entry: str = DEFAULT_ENTRY) -> Operation:
    """`transform.named_sequence @entry`, else the single top-level `transform.sequence`
    (or `transform.alternatives` / `transform.with_pdl_patterns`)."""
    roots = _transform_roots(schedule)
    named = [op for op in roots if isinstance(op, NamedSequenceOp) and op.sym_name.data == entry]
    if len(named) > 1:
        raise TransformFailure(f"the schedule defines @{entry} more than once", silenceable=False)
    if named:
        return named[0]
    sequences = [op for op in roots if not isinstance(op, NamedSequenceOp)]
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
    *,
    extra_bindings: Sequence[Sequence[Operation | SSAValue | Attribute]] = (),
    expensive_checks: bool = True,
) -> ModuleOp:
    """Apply `schedule` to `payload` in place and return `payload`.

    The entry (`transform.named_sequence @entry`, else the single top-level
    `transform.sequence` / `transform.alternatives` / `transform.with_pdl_patterns`)
    gets the payload module bound to its first block argument and
    `extra_bindings` (payload ops, values or param attributes; the spec's
    `extraMappings`) to the following ones; a count mismatch is an error.
    `knobs` gives values to unresolved `transform.tune.knob`s and
    `transform.tune.alternatives` by name. `expensive_checks` turns on the full
    handle-invalidation tracking (spec: opt-in; on by default here). If
    `schedule` is `payload` (or None), the transform IR embedded in the payload
    is applied and then erased.

    Raises `TransformFailure` (silenceable or definite) and `KnobError`.
    """
    embedded = schedule is None or schedule is payload
    script = payload if schedule is None else schedule
    knobs = dict(knobs or {})
    check_knob_names(script, knobs)
    entry_op = find_entry(script, entry)
    interp = Interpreter(
        TransformState(knobs=knobs, expensive_checks=expensive_checks), root=payload
    )
    try:
        if isinstance(entry_op, NamedSequenceOp | SequenceOp):
            _run_entry_block(entry_op, interp, payload, extra_bindings)
        else:
            if extra_bindings:
                raise failure(
                    entry_op,
                    f"{entry_op.name} takes no extra bindings, {len(extra_bindings)} given",
                    silenceable=False,
                )
            interp.apply_op(entry_op)
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


def _run_entry_block(
    entry_op: NamedSequenceOp | SequenceOp,
    interp: Interpreter,
    payload: ModuleOp,
    extra_bindings: Sequence[Sequence[Operation | SSAValue | Attribute]],
) -> None:
    block = entry_op.body.block
    if isinstance(entry_op, SequenceOp) and entry_op.root is not None:
        raise failure(
            entry_op, "a top-level transform.sequence cannot have a root operand", silenceable=False
        )
    if block.args and len(block.args) != 1 + len(extra_bindings):
        raise failure(
            entry_op,
            f"the entry point takes {len(block.args)} arguments: the payload root and "
            f"{len(block.args) - 1} extra binding(s), but {len(extra_bindings)} extra "
            "binding(s) were given",
            silenceable=False,
        )
    if not block.args and extra_bindings:
        raise failure(entry_op, "the entry point takes no arguments", silenceable=False)
    if block.args:
        interp.state.bind(block.args[0], [payload])
        for arg, bound in zip(block.args[1:], extra_bindings):
            interp.state.bind(arg, list(bound))
    suppress = isinstance(entry_op, SequenceOp) and entry_op.suppresses_failures
    interp.run_block(block, suppress=suppress)
