"""Verify-time rules of `transform.named_sequence` and `transform.include` (spec + upstream).

- A named sequence sits at the top level of the transform nesting (not inside another
  transform op) and its nearest symbol table carries `transform.with_named_sequence`.
- Its arguments are not both `{transform.readonly}` and `{transform.consumed}`; an argument
  that an op of the body consumes must be marked `{transform.consumed}`.
- `transform.include` names an existing named sequence; its operand and result types
  equal the callee's (upstream requires equality, not mere compatibility); every argument
  of an included sequence states its effect (readonly or consumed).
- Recursion through `transform.include` is rejected (at verify time; the interpreter keeps
  a run-time check for IR built without verifying).

Which operands an op consumes is declared where its implementation is registered
(`xlinalg.interpreter.registry`), so the consumption rule asks the interpreter lazily.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.transform.core import CONSUMED, READONLY, WITH_NAMED_SEQUENCE

if TYPE_CHECKING:
    from xlinalg.dialects.transform.core import NamedSequenceOp
    from xlinalg.dialects.transform.handles import IncludeOp



def _callee(op: IncludeOp) -> NamedSequenceOp | None:
    from xlinalg.interpreter.ops.handles import lookup_named_sequence

    return lookup_named_sequence(op, op.target.root_reference.data)


def _symbol_table_of(op: Operation) -> Operation | None:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.traits import SymbolTable

    parent = op.parent_op()
    while parent is not None and not (parent.has_trait(SymbolTable) or isinstance(parent, ModuleOp)):
        parent = parent.parent_op()
    return parent


def verify_named_sequence(op: NamedSequenceOp) -> None:
    name = f"@{op.sym_name.data}"
    parent = op.parent_op()
    if parent is not None and parent.name.startswith("transform."):
        raise VerifyException(
            f"transform.named_sequence {name} cannot be defined inside another transform op "
            f"('{parent.name}'): named sequences live at the top level"
        )
    table = _symbol_table_of(op)
    if table is not None and WITH_NAMED_SEQUENCE not in table.attributes:
        raise VerifyException(
            f"transform.named_sequence {name}: expects the parent symbol table to have the "
            f"'{WITH_NAMED_SEQUENCE}' attribute"
        )
    _verify_consumption(op, name)
    if table is not None:
        _verify_no_recursion(op)


def _verify_consumption(op: NamedSequenceOp, name: str) -> None:
    from xlinalg.interpreter.interpreter import block_arg_consumed

    for index, arg in enumerate(op.body.block.args):
        if not op.arg_has_attr(index, CONSUMED) and block_arg_consumed(arg):
            raise VerifyException(
                f"transform.named_sequence {name}: argument #{index} is consumed in the body "
                f"but is not marked as such (add {{{CONSUMED}}})"
            )


def _includes(op: Operation) -> list[IncludeOp]:
    return [inner for inner in op.walk() if inner.name == "transform.include"]  # type: ignore[misc]


def _verify_no_recursion(start: NamedSequenceOp) -> None:
    """Depth-first search through the includes reachable from `start`."""
    stack: list[NamedSequenceOp] = [start]
    done: set[int] = set()

    def visit(sequence: NamedSequenceOp) -> None:
        for include in _includes(sequence):
            callee = _callee(include)
            if callee is None or id(callee) in done:
                continue
            if any(callee is s for s in stack):
                cycle = stack[next(i for i, s in enumerate(stack) if s is callee):] + [callee]
                chain = " -> ".join(f"@{s.sym_name.data}" for s in cycle)
                raise VerifyException(f"recursion not allowed in named sequences ({chain})")
            stack.append(callee)
            visit(callee)
            stack.pop()
        done.add(id(sequence))

    visit(start)


def verify_include(op: IncludeOp) -> None:
    target = op.target.root_reference.data
    if _symbol_table_of(op) is None:
        return  # detached (being built): nothing to resolve against yet
    callee = _callee(op)
    if callee is None:
        raise VerifyException(f"'transform.include' op: @{target} does not reference a named transform sequence")
    inputs = callee.function_type.inputs.data
    outputs = callee.function_type.outputs.data
    if len(inputs) != len(op.operands_):
        raise VerifyException(
            f"'transform.include' op: incorrect number of operands for callee @{target}: "
            f"it takes {len(inputs)}, {len(op.operands_)} given"
        )
    for index, (want, value) in enumerate(zip(inputs, op.operands_)):
        if value.type != want:
            raise VerifyException(
                f"'transform.include' op: operand type mismatch: expected operand type {want}, "
                f"but provided {value.type} for operand number {index} (callee @{target})"
            )
    if len(outputs) != len(op.results_):
        raise VerifyException(
            f"'transform.include' op: incorrect number of results for callee @{target}: "
            f"it yields {len(outputs)}, {len(op.results_)} expected"
        )
    # Results only need the callee's kind of handle (upstream): the payload is checked
    # against a narrower type like !transform.op<"..."> when the include runs.
    for index, (want, result) in enumerate(zip(outputs, op.results_)):
        if _handle_kind(result.type) != _handle_kind(want):
            raise VerifyException(
                f"'transform.include' op: type of result #{index} must implement the same "
                f"transform dialect interface as the corresponding callee result ({result.type} "
                f"vs {want} of @{target})"
            )
    for index in range(len(inputs)):
        if not (callee.arg_has_attr(index, READONLY) or callee.arg_has_attr(index, CONSUMED)):
            raise VerifyException(
                f"'transform.include' op: argument #{index} of @{target} must be marked "
                f"{{{READONLY}}} or {{{CONSUMED}}}: an included sequence states its effect "
                "on each argument"
            )


def _handle_kind(typ: object) -> type | None:
    from xdsl.dialects.transform import (
        TransformOpHandleType,
        TransformParamHandleType,
        TransformValueHandleType,
    )

    for kind in (TransformOpHandleType, TransformValueHandleType, TransformParamHandleType):
        if isinstance(typ, kind):
            return kind
    return None
