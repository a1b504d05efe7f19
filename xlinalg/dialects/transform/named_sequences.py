"""`transform.named_sequence`, the lookup of a named sequence from a use, and the verify-time
rules of named sequences and of `transform.include` (spec + upstream).

- A named sequence sits at the top level of the transform nesting (not inside another
  transform op) and its nearest symbol table carries `transform.with_named_sequence`.
- Its arguments are not both `{transform.readonly}` and `{transform.consumed}`; an argument
  that an op of the body consumes must be marked `{transform.consumed}`.
- `transform.include` names an existing named sequence; its operand and result types
  equal the callee's (upstream requires equality, not mere compatibility); every argument
  of an included sequence states its effect (readonly or consumed).
- Recursion through `transform.include` is rejected (at verify time; the interpreter keeps
  a run-time check for IR built without verifying).

Which operands an op consumes is declared on the op (`xlinalg.dialects.transform.effects`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeGuard

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    SymbolNameConstraint,
)
from xdsl.dialects.func import FuncOpCallableInterface
from xdsl.dialects.transform import (
    TransformOpHandleType,
    TransformParamHandleType,
    TransformValueHandleType,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Operation, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.transform.core import CONSUMED, READONLY, WITH_NAMED_SEQUENCE, YieldOp
from xlinalg.dialects.transform.effects import block_arg_consumed

if TYPE_CHECKING:
    from xlinalg.dialects.transform.handles import IncludeOp


@irdl_op_definition
class NamedSequenceOp(IRDLOperation):
    """`transform.named_sequence @name(%arg: !transform.any_op {transform.readonly}) { ... }`."""

    name = "transform.named_sequence"

    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    sym_visibility = opt_prop_def(StringAttr)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), FuncOpCallableInterface())

    def __init__(
        self,
        sym_name: str | StringAttr,
        function_type: FunctionType | tuple[Sequence[Attribute], Sequence[Attribute]],
        body: Region,
        sym_visibility: str | StringAttr | None = None,
        arg_attrs: Sequence[DictionaryAttr] | ArrayAttr[DictionaryAttr] | None = None,
        res_attrs: Sequence[DictionaryAttr] | ArrayAttr[DictionaryAttr] | None = None,
    ):
        if isinstance(sym_name, str):
            sym_name = StringAttr(sym_name)
        if isinstance(sym_visibility, str):
            sym_visibility = StringAttr(sym_visibility)
        if isinstance(function_type, tuple):
            function_type = FunctionType.from_lists(*function_type)
        if arg_attrs is not None and not isinstance(arg_attrs, ArrayAttr):
            arg_attrs = ArrayAttr(arg_attrs)
        if res_attrs is not None and not isinstance(res_attrs, ArrayAttr):
            res_attrs = ArrayAttr(res_attrs)
        super().__init__(
            properties={
                "sym_name": sym_name,
                "function_type": function_type,
                "sym_visibility": sym_visibility,
                "arg_attrs": arg_attrs,
                "res_attrs": res_attrs,
            },
            regions=[body],
        )

    def arg_has_attr(self, index: int, attr_name: str) -> bool:
        if self.arg_attrs is None or index >= len(self.arg_attrs.data):
            return False
        return attr_name in self.arg_attrs.data[index].data

    def verify_(self) -> None:
        block = self.body.block
        inputs = self.function_type.inputs.data
        if tuple(a.type for a in block.args) != tuple(inputs):
            raise VerifyException(
                "transform.named_sequence: block argument types do not match the function type"
            )
        for i in range(len(inputs)):
            if self.arg_has_attr(i, READONLY) and self.arg_has_attr(i, CONSUMED):
                raise VerifyException(f"argument #{i} cannot be both {READONLY} and {CONSUMED}")
        last = block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException("transform.named_sequence must end with transform.yield")
        if tuple(last.arguments.types) != tuple(self.function_type.outputs.data):
            raise VerifyException(
                "transform.yield operand types do not match the named sequence results"
            )
        verify_named_sequence(self)

    @classmethod
    def parse(cls, parser: Parser) -> NamedSequenceOp:
        visibility = parser.parse_optional_visibility_keyword()
        name, inputs, outputs, region, extra, arg_attrs, res_attrs = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type", "sym_visibility")
        )
        op = NamedSequenceOp(
            name,
            (inputs, outputs),
            region,
            sym_visibility=visibility,
            arg_attrs=arg_attrs,
            res_attrs=res_attrs,
        )
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        if self.sym_visibility is not None:
            printer.print_string(" " + self.sym_visibility.data)
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            arg_attrs=self.arg_attrs,
            res_attrs=self.res_attrs,
            reserved_attr_names=(
                "sym_name",
                "function_type",
                "sym_visibility",
                "arg_attrs",
                "res_attrs",
            ),
        )


def lookup_named_sequence(op: Operation, name: str) -> NamedSequenceOp | None:
    """The `transform.named_sequence @name` visible from `op` (nearest symbol table first)."""
    current = op.parent_op()
    while current is not None:
        if current.has_trait(SymbolTable) or isinstance(current, ModuleOp):
            for region in current.regions:
                for block in region.blocks:
                    for child in block.ops:
                        if isinstance(child, NamedSequenceOp) and child.sym_name.data == name:
                            return child
        current = current.parent_op()
    return None


def _callee(op: IncludeOp) -> NamedSequenceOp | None:
    return lookup_named_sequence(op, op.target.root_reference.data)


def _symbol_table_of(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and not (
        parent.has_trait(SymbolTable) or isinstance(parent, ModuleOp)
    ):
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
    for index, arg in enumerate(op.body.block.args):
        if not op.arg_has_attr(index, CONSUMED) and block_arg_consumed(arg):
            raise VerifyException(
                f"transform.named_sequence {name}: argument #{index} is consumed in the body "
                f"but is not marked as such (add {{{CONSUMED}}})"
            )


def _is_include(op: Operation) -> TypeGuard[IncludeOp]:
    # by name: handles.py, which defines IncludeOp, imports this module
    return op.name == "transform.include"


def _includes(op: Operation) -> list[IncludeOp]:
    return [inner for inner in op.walk() if _is_include(inner)]


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
                cycle = [*stack[next(i for i, s in enumerate(stack) if s is callee) :], callee]
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
        raise VerifyException(
            f"'transform.include' op: @{target} does not reference a named transform sequence"
        )
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
    for kind in (TransformOpHandleType, TransformValueHandleType, TransformParamHandleType):
        if isinstance(typ, kind):
            return kind
    return None
