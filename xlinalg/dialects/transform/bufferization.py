"""`transform.bufferization.*`: empty_tensor_to_alloc_tensor and one_shot_bufferize.

Syntax (upstream, IREE 3.13, and the spec's older spelling):

```
%a = transform.bufferization.empty_tensor_to_alloc_tensor %e
    : (!transform.op<"tensor.empty">) -> !transform.op<"bufferization.alloc_tensor">
%b = transform.bufferization.one_shot_bufferize layout{IdentityLayoutMap} %root
    <bufferize_function_boundaries = true, memcpy_op = "linalg.copy"> : (!transform.any_op) -> !transform.any_op
transform.bufferization.one_shot_bufferize %root {target_is_module = true, create_deallocs = false}
```

Options are properties. They print as upstream does (`<name = value, ...>`); `<{...}>`
and the spec's `{...}` attribute dictionary parse too. The spec's form has no result and
no type (`target_is_module` defaults to true there: the handle is only read); the current
form has a result, the bufferized op, and consumes `target` unless `target_is_module`.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from xdsl.dialects.builtin import BoolAttr, IntegerAttr, IntegerType, StringAttr
from xdsl.dialects.transform import OperationType, TransformHandleType
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    opt_result_def,
    result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.transform.effects import ConsumesTarget, HandleEffects
from xlinalg.dialects.transform.printing import (
    TargetPropsMixin,
    parse_functional_or_plain_type,
    print_functional_type,
    print_struct_props,
)

EMPTY = OperationType("tensor.empty")
ALLOC_TENSOR = OperationType("bufferization.alloc_tensor")


@irdl_op_definition
class EmptyTensorToAllocTensorOp(TargetPropsMixin, IRDLOperation, ConsumesTarget):
    """Replace each `tensor.empty` with a `bufferization.alloc_tensor` of the same type
    and sizes. Consumes `target`; always succeeds (spec)."""

    name = "transform.bufferization.empty_tensor_to_alloc_tensor"

    target = operand_def(TransformHandleType)
    transformed = result_def(TransformHandleType)

    def verify_(self) -> None:
        # Upstream: "Transform IR handle to tensor.empty operations" (a concrete op type).
        if self.target.type != EMPTY:
            raise VerifyException(
                f"'{self.name}' op operand #0 must be Transform IR handle to tensor.empty "
                f"operations, but got '{self.target.type}'"
            )
        if self.transformed.type != ALLOC_TENSOR:
            raise VerifyException(
                f"'{self.name}' op result #0 must be Transform IR handle to "
                f"bufferization.alloc_tensor operations, but got '{self.transformed.type}'"
            )


# (name, kind[=default]) in upstream's order; `target_is_module`, `allow_return_allocs`
# and `create_deallocs` are the spec's (older) options.
ONE_SHOT_OPTIONS: tuple[tuple[str, str], ...] = (
    ("allow_return_allocs_from_loops", "bool=false"),
    ("allow_unknown_ops", "bool=false"),
    ("bufferize_function_boundaries", "bool=false"),
    ("dump_alias_sets", "bool=false"),
    ("test_analysis_only", "bool=false"),
    ("print_conflicts", "bool=false"),
    ("check_parallel_regions", "bool=true"),
    ("memcpy_op", "str"),
    ("allow_return_allocs", "bool"),
    ("create_deallocs", "bool=true"),
    ("target_is_module", "bool"),
)
LAYOUTS = ("IdentityLayoutMap", "InferLayoutMap", "FullyDynamicLayoutMap")
MEMCPY_OPS = ("memref.copy", "linalg.copy")


@irdl_op_definition
class OneShotBufferizeOp(IRDLOperation, HandleEffects):
    """Bufferize `target` (a module or a function) with xlinalg's One-Shot Bufferize."""

    name = "transform.bufferization.one_shot_bufferize"

    def consumed_handles(self) -> list[SSAValue]:
        return [] if self.flag("target_is_module") else [self.target]

    target = operand_def(TransformHandleType)
    transformed = opt_result_def(TransformHandleType)

    function_boundary_type_conversion = opt_prop_def(StringAttr)
    allow_return_allocs_from_loops = opt_prop_def(IntegerAttr)
    allow_unknown_ops = opt_prop_def(IntegerAttr)
    bufferize_function_boundaries = opt_prop_def(IntegerAttr)
    dump_alias_sets = opt_prop_def(IntegerAttr)
    test_analysis_only = opt_prop_def(IntegerAttr)
    print_conflicts = opt_prop_def(IntegerAttr)
    check_parallel_regions = opt_prop_def(IntegerAttr)
    memcpy_op = opt_prop_def(StringAttr)
    allow_return_allocs = opt_prop_def(IntegerAttr)
    create_deallocs = opt_prop_def(IntegerAttr)
    target_is_module = opt_prop_def(IntegerAttr)

    DEFAULTS: ClassVar[dict[str, bool]] = {
        name: kind.endswith("=true") for name, kind in ONE_SHOT_OPTIONS if kind.startswith("bool")
    }

    def flag(self, name: str) -> bool:
        """The boolean option `name` (its upstream default when unset)."""
        value = self.properties.get(name)
        if isinstance(value, IntegerAttr):
            return bool(value.value.data)
        if name == "target_is_module":
            return self.transformed is None  # the spec's result-less form: a module, read only
        return self.DEFAULTS[name]

    def is_set(self, name: str) -> bool:
        return name in self.properties

    def verify_(self) -> None:
        layout = self.function_boundary_type_conversion
        if layout is not None and layout.data not in LAYOUTS:
            raise VerifyException(
                f"'{self.name}': unknown layout '{layout.data}' (expected one of {', '.join(LAYOUTS)})"
            )
        if self.memcpy_op is not None and self.memcpy_op.data not in MEMCPY_OPS:
            raise VerifyException(
                f"'{self.name}': unsupported memcpy op '{self.memcpy_op.data}' "
                f"(expected {' or '.join(repr(m) for m in MEMCPY_OPS)})"
            )
        for name, kind in ONE_SHOT_OPTIONS:
            value = self.properties.get(name)
            if (
                kind.startswith("bool")
                and value is not None
                and not (isinstance(value, IntegerAttr) and value.type == IntegerType(1))
            ):
                raise VerifyException(f"'{self.name}': option {name} must be true or false")

    @classmethod
    def parse(cls, parser: Parser) -> OneShotBufferizeOp:
        props: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("layout") is not None:
            parser.parse_punctuation("{")
            props["function_boundary_type_conversion"] = StringAttr(parser.parse_identifier())
            parser.parse_punctuation("}")
        target_name = parser.parse_unresolved_operand()
        options = {name for name, _ in ONE_SHOT_OPTIONS}
        if parser.parse_optional_punctuation("<") is not None:
            if parser.parse_optional_punctuation("{") is not None:  # generic `<{...}>`
                props |= _parse_entries(parser, "}")
                parser.parse_punctuation(">")
            else:
                props |= _parse_entries(parser, ">")
        attrs = parser.parse_optional_attr_dict()
        for name in options & set(attrs):
            props[name] = attrs.pop(name)  # the spec's `{target_is_module = false}`
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation(":") is not None:
            inputs, result_types = parse_functional_or_plain_type(parser, 1, 1)
            target = parser.resolve_operand(target_name, inputs[0])
        else:  # the spec's form has no types: the operand is defined above
            target = resolve_defined_operand(parser, target_name, cls.name)
        return cls.create(
            operands=[target], result_types=result_types, properties=props, attributes=attrs
        )

    def print(self, printer: Printer) -> None:
        if self.function_boundary_type_conversion is not None:
            printer.print_string(f" layout{{{self.function_boundary_type_conversion.data}}}")
        printer.print_string(" ")
        printer.print_operand(self.target)
        props = {
            k: v for k, v in self.properties.items() if k != "function_boundary_type_conversion"
        }
        print_struct_props(printer, ONE_SHOT_OPTIONS, props, dict(self.attributes), angle=True)
        if self.transformed is not None:
            printer.print_string(" : ")
            print_functional_type(printer, [self.target.type], [self.transformed.type])


def _parse_entries(parser: Parser, closing: Literal["}", ">"]) -> dict[str, Attribute]:
    """`name = value, ...` up to and including `closing`."""
    entries: dict[str, Attribute] = {}
    while parser.parse_optional_punctuation(closing) is None:
        name = parser.parse_identifier()
        parser.parse_punctuation("=")
        boolean = parser.parse_optional_boolean()
        entries[name] = (
            BoolAttr(boolean, IntegerType(1)) if boolean is not None else parser.parse_attribute()
        )
        parser.parse_optional_punctuation(",")
    return entries


def resolve_defined_operand(parser: Parser, name: UnresolvedOperand, op_name: str) -> SSAValue:
    """An operand of the spec's type-less syntax: it must be defined above (its type is
    that definition's)."""
    defined = parser.ssa_values.get(name.operand_name)
    if defined is None or name.index >= len(defined):
        parser.raise_error(
            f"'{op_name}' without a type needs %{name.operand_name} defined before it"
        )
    return defined[name.index]


TransformBufferization = Dialect(
    "transform.bufferization", [EmptyTensorToAllocTensorOp, OneShotBufferizeOp], []
)

__all__ = [
    "ALLOC_TENSOR",
    "EMPTY",
    "EmptyTensorToAllocTensorOp",
    "OneShotBufferizeOp",
    "TransformBufferization",
    "resolve_defined_operand",
]
