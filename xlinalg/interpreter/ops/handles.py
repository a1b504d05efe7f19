"""Core handle ops: cast, foreach, get_* navigation, include, merge_handles,
print, replicate, split_handle, annotate."""

from __future__ import annotations

import sys

from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import IsolatedFromAbove

from xlinalg.dialects.transform.handles import (
    AnnotateOp,
    CastOp,
    ForeachOp,
    GetClosestIsolatedParentOp,
    GetConsumersOfResultOp,
    GetDefiningOp,
    GetParentOp,
    GetProducerOfOperandOp,
    GetResultOp,
    IncludeOp,
    MergeHandlesOp,
    PrintOp,
    ReplicateOp,
    SplitHandleOp,
)
from xlinalg.dialects.transform.named_sequences import NamedSequenceOp, lookup_named_sequence
from xlinalg.errors import TransformFailure
from xlinalg.interpreter.diagnostics import describe_handle, describe_payload, failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.ops.named_sequences import run_named_sequence
from xlinalg.interpreter.registry import register


def dedup(items: list[Operation]) -> list[Operation]:
    """Drop repeated ops, keeping first occurrences in order."""
    seen: set[int] = set()
    out: list[Operation] = []
    for item in items:
        if id(item) not in seen:
            seen.add(id(item))
            out.append(item)
    return out


# ------------------------------------------------------------------ cast


# cast, merge_handles and split_handle consume their operands as the spec says, but
# upstream (iree-opt 3.13) only reads them, so its repeated-consumption check never
# applies to them: a handle listing an op twice passes through.
@register(CastOp)
def apply_cast(op: CastOp, interp: Interpreter) -> None:
    # The payload is re-checked against the new type by the interpreter
    # (`check_payload_type`: a mismatch is a silenceable failure).
    interp.state.bind(op.output, interp.state.payload_of(op.input, op))


# ------------------------------------------------------------------ foreach


@register(ForeachOp)
def apply_foreach(op: ForeachOp, interp: Interpreter) -> None:
    payloads = [interp.state.payload_of(t, op) for t in op.targets]
    sizes = {len(p) for p in payloads}
    if len(sizes) > 1:
        raise failure(
            op,
            "prior to iteration, all targets must hold the same number of payload objects, "
            f"got {[len(p) for p in payloads]}",
            silenceable=True,
        )
    count = sizes.pop() if sizes else 0
    block = op.body.block
    collected: list[list[Operation | SSAValue | Attribute]] = [[] for _ in op.results_]
    for index in range(count):
        for arg, payload in zip(block.args, payloads):
            interp.state.bind(arg, [payload[index]])
        # Any failure aborts the iteration at once, without rollback (spec).
        yielded = interp.run_block(block)
        for slot, value in zip(collected, yielded, strict=True):
            slot.extend(interp.state.payload_of(value, op))
    for result, slot in zip(op.results_, collected):
        interp.state.bind(result, slot)


# ------------------------------------------------------------------ navigation


@register(GetClosestIsolatedParentOp)
def apply_get_closest_isolated_parent(op: GetClosestIsolatedParentOp, interp: Interpreter) -> None:
    parents: list[Operation] = []
    for target in interp.state.get_ops(op.targets, op):
        parent = target.parent_op()
        while parent is not None and not parent.has_trait(IsolatedFromAbove):
            parent = parent.parent_op()
        if parent is None:
            raise failure(
                op,
                f"could not find an isolated-from-above parent of {describe_payload(target)}",
                silenceable=True,
            )
        parents.append(parent)
    interp.state.bind(op.parent_result, dedup(parents))


@register(GetParentOp)
def apply_get_parent_op(op: GetParentOp, interp: Interpreter) -> None:
    wanted = op.op_name.data if op.op_name is not None else None
    parents: list[Operation] = []
    for target in interp.state.get_ops(op.target, op):
        parent = target.parent_op()
        remaining = op.nth
        while parent is not None:
            ok = (wanted is None or parent.name == wanted) and (
                op.isolated_from_above is None or parent.has_trait(IsolatedFromAbove)
            )
            if ok:
                remaining -= 1
                if remaining == 0:
                    break
            parent = parent.parent_op()
        if parent is None:
            if op.allow_empty_results is not None:
                continue
            need = f"'{wanted}' " if wanted else ""
            raise failure(
                op,
                f"could not find a {need}parent op (nth_parent = {op.nth}) of "
                f"{describe_payload(target)} that matches all requirements",
                silenceable=True,
            )
        parents.append(parent)
    interp.state.bind(op.parent_result, dedup(parents) if op.deduplicate else parents)


@register(GetConsumersOfResultOp)
def apply_get_consumers_of_result(op: GetConsumersOfResultOp, interp: Interpreter) -> None:
    targets = interp.state.get_ops(op.target, op)
    if len(targets) != 1:
        raise failure(
            op,
            f"handle must be mapped to exactly one payload op, {describe_handle(op.target)} "
            f"holds {len(targets)}",
            silenceable=False,
        )
    number = op.result_number.value.data
    target = targets[0]
    if not (0 <= number < len(target.results)):
        raise failure(
            op,
            f"result number overflow: {describe_payload(target)} has {len(target.results)} results",
            silenceable=False,
        )
    interp.state.bind(op.consumers, [use.operation for use in target.results[number].uses])


@register(GetDefiningOp)
def apply_get_defining_op(op: GetDefiningOp, interp: Interpreter) -> None:
    defining: list[Operation] = []
    for value in interp.state.get_values(op.target, op):
        if not isinstance(value, OpResult):
            raise failure(op, "cannot get the defining op of a block argument", silenceable=True)
        defining.append(value.op)
    interp.state.bind(op.result, defining)


@register(GetProducerOfOperandOp)
def apply_get_producer_of_operand(op: GetProducerOfOperandOp, interp: Interpreter) -> None:
    number = op.operand_number.value.data
    producers: list[Operation] = []
    for target in interp.state.get_ops(op.target, op):
        if not (0 <= number < len(target.operands)):
            raise failure(
                op,
                f"operand number overflow: {describe_payload(target)} has "
                f"{len(target.operands)} operands",
                silenceable=True,
            )
        value = target.operands[number]
        if isinstance(value, BlockArgument) or not isinstance(value, OpResult):
            # The spec: silenceable failure, returning the subset that succeeded.
            interp.state.bind(op.producer, producers)
            raise failure(
                op,
                f"operand #{number} of {describe_payload(target)} is a block argument: "
                "it has no producer",
                silenceable=True,
            )
        producers.append(value.op)
    interp.state.bind(op.producer, producers)


@register(GetResultOp)
def apply_get_result(op: GetResultOp, interp: Interpreter) -> None:
    values: list[SSAValue] = []
    for target in interp.state.get_ops(op.target, op):
        positions = op.selected(len(target.results))
        if positions is None:
            raise failure(
                op,
                f"result position out of range: {describe_payload(target)} has "
                f"{len(target.results)} results",
                silenceable=True,
            )
        values.extend(target.results[p] for p in positions)
    interp.state.bind(op.result, values)


# ------------------------------------------------------------------ include


def _callee(op: IncludeOp) -> NamedSequenceOp | None:
    return lookup_named_sequence(op, op.target.root_reference.data)


@register(IncludeOp)
def apply_include(op: IncludeOp, interp: Interpreter) -> None:
    callee = _callee(op)
    if callee is None:
        raise failure(
            op,
            f"unknown named sequence @{op.target.root_reference.data}",
            silenceable=False,
        )
    try:
        yielded = run_named_sequence(
            callee, list(op.operands_), op, interp, suppress=op.suppresses_failures
        )
    except TransformFailure as err:
        if err.silenceable and op.suppresses_failures:
            interp.bind_empty_results(op)
            return
        raise
    interp.forward(yielded, op.results_, op)


# ------------------------------------------------------------------ handle lists


@register(MergeHandlesOp)
def apply_merge_handles(op: MergeHandlesOp, interp: Interpreter) -> None:
    merged: list[Operation | SSAValue | Attribute] = []
    for handle in op.handles:
        merged.extend(interp.state.payload_of(handle, op))
    if op.deduplicate is not None:
        seen: list[object] = []
        unique: list[Operation | SSAValue | Attribute] = []
        for item in merged:
            key = item if isinstance(item, Attribute) else id(item)
            if key not in seen:
                seen.append(key)
                unique.append(item)
        merged = unique
    interp.state.bind(op.result, merged)


@register(ReplicateOp)
def apply_replicate(op: ReplicateOp, interp: Interpreter) -> None:
    times = len(interp.state.payload_of(op.pattern, op))
    for handle, result in zip(op.handles, op.replicated):
        interp.state.bind(result, interp.state.payload_of(handle, op) * times)


@register(SplitHandleOp)
def apply_split_handle(op: SplitHandleOp, interp: Interpreter) -> None:
    payload = interp.state.payload_of(op.handle, op)
    count = len(op.results_)
    if not payload and op.passes_through_empty:
        for result in op.results_:
            interp.state.bind(result, [])
        return
    too_small = len(payload) < count and op.fails_on_too_small
    too_big = len(payload) > count and op.overflow_result is None
    if too_small or too_big:
        raise failure(
            op,
            f"expected {describe_handle(op.handle)} to hold {count} payload objects, "
            f"it holds {len(payload)}",
            silenceable=True,
        )
    for index, result in enumerate(op.results_):
        part = payload[index : index + 1]
        if op.overflow_result is not None and index == op.overflow_result.value.data:
            part = part + payload[count:]
        interp.state.bind(result, part)


# ------------------------------------------------------------------ print / annotate


@register(PrintOp)
def apply_print(op: PrintOp, interp: Interpreter) -> None:
    title = op.name_.data if op.name_ is not None else ""
    print(f"[[[ IR printer: {title} ]]]", file=sys.stderr)
    if op.target is None:
        root = interp.root
        if root is not None:
            print(root, file=sys.stderr)
        return
    for payload in interp.state.payload_of(op.target, op):
        print(payload, file=sys.stderr)


@register(AnnotateOp)
def apply_annotate(op: AnnotateOp, interp: Interpreter) -> None:
    targets = interp.state.get_ops(op.target, op)
    value: Attribute = UnitAttr()
    if op.param is not None:
        params = interp.state.get_params(op.param, op)
        if len(params) != 1:
            raise failure(
                op,
                f"the param must hold exactly one attribute, {describe_handle(op.param)} "
                f"holds {len(params)}",
                silenceable=False,
            )
        value = params[0]
    for target in targets:
        target.attributes[op.attr_name.data] = value


__all__ = ["dedup"]
