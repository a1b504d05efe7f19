"""Small printing/parsing helpers shared by the transform ops (upstream MLIR syntax)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.printer import Printer


def print_attr_elide_i64(printer: Printer, attr: Attribute) -> None:
    """Print `attr`, eliding `: i64` on integers (MLIR's default integer type).

    `16` and `16 : i64` parse to the same attribute in MLIR and xDSL; the short
    form is what upstream prints inside arrays and what users write.
    """
    if isinstance(attr, IntegerAttr) and attr.type == i64:
        printer.print_string(str(attr.value.data))
    elif isinstance(attr, ArrayAttr):
        printer.print_string("[")
        printer.print_list(attr.data, lambda a: print_attr_elide_i64(printer, a))
        printer.print_string("]")
    else:
        printer.print_attribute(attr)


def print_semi_function_type(
    printer: Printer, argument: Attribute, results: Sequence[Attribute]
) -> None:
    """Upstream `custom<SemiFunctionType>`: `(arg) -> res` or `(arg) -> (r0, r1)`."""
    if not results:
        printer.print_attribute(argument)
        return
    printer.print_string("(")
    printer.print_attribute(argument)
    printer.print_string(") -> ")
    if len(results) > 1:
        printer.print_string("(")
    printer.print_list(results, printer.print_attribute)
    if len(results) > 1:
        printer.print_string(")")


def parse_semi_function_type(parser: Parser, num_results: int) -> tuple[Attribute, list[Attribute]]:
    """Parse `T`, `(T)` or `(T) -> R` / `(T) -> (R0, R1)`.

    A bare `T` means the results all have the argument's type (upstream rule).
    """
    if parser.parse_optional_punctuation("(") is None:
        arg: Attribute = parser.parse_type()
        return arg, [arg] * num_results
    arg = parser.parse_type()
    parser.parse_punctuation(")")
    if parser.parse_optional_punctuation("->") is None:
        return arg, [arg] * num_results
    if parser.parse_optional_punctuation("(") is not None:
        results: list[Attribute] = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_type
        )
        parser.parse_punctuation(")")
        return arg, results
    return arg, [parser.parse_type()]


def parse_optional_result_types(parser: Parser) -> list[Attribute]:
    """An optional `-> T`, `-> T0, T1` or `-> (T0, T1)`; [] without the arrow."""
    if parser.parse_optional_punctuation("->") is None:
        return []
    if parser.parse_optional_punctuation("(") is not None:
        types: list[Attribute] = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_type
        )
        parser.parse_punctuation(")")
        return types
    return parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)


def parse_i64_list(parser: Parser) -> list[int]:
    """`[1, 0]` as a list of python ints."""
    return parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)


def print_int_list(printer: Printer, values: Sequence[int]) -> None:
    printer.print_string("[")
    printer.print_list(values, lambda v: printer.print_string(str(v)))
    printer.print_string("]")


PropKinds = Sequence[tuple[str, str]]
"""(property name, kind) in declaration order; kind is "unit", "int", "bool",
"str" or "ints" (an `[a, b]` list kept as an ArrayAttr of i64), optionally with
a default elided when printing: "int=1", "bool=false"."""


def parse_struct_props(
    parser: Parser, kinds: PropKinds, *, angle: bool = False
) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """Upstream's struct-style properties: `name = "x" assume_verified nth_parent = 2`.

    With `angle`, they are wrapped in `<...>` (as `transform.get_parent_op`
    prints them). A trailing `{...}` attribute dictionary follows; its entries
    named like a property become properties (the spec's older `{op_name = ...}`).
    Returns (properties, other attributes).
    """
    by_name = {name: kind.split("=")[0] for name, kind in kinds}
    props: dict[str, Attribute] = {}
    opened = angle and parser.parse_optional_punctuation("<") is not None
    while True:
        name = next(
            (n for n in by_name if n not in props and parser.parse_optional_keyword(n) is not None),
            None,
        )
        if name is None:
            break
        kind = by_name[name]
        if kind == "unit":
            props[name] = UnitAttr()
        else:
            parser.parse_punctuation("=")
            if kind == "int":
                props[name] = IntegerAttr(parser.parse_integer(allow_boolean=False), i64)
            elif kind == "bool":
                props[name] = BoolAttr(parser.parse_boolean(), IntegerType(1))
            elif kind == "ints":
                props[name] = ArrayAttr([IntegerAttr(v, i64) for v in parse_i64_list(parser)])
            else:
                props[name] = StringAttr(parser.parse_str_literal())
        if opened:
            parser.parse_optional_punctuation(",")
    if opened:
        parser.parse_punctuation(">")
    attrs = parser.parse_optional_attr_dict()
    for name in by_name:
        if name in attrs:
            props[name] = attrs.pop(name)
    return props, attrs


def print_struct_props(
    printer: Printer,
    kinds: PropKinds,
    props: dict[str, Attribute],
    attrs: dict[str, Attribute],
    *,
    angle: bool = False,
) -> None:
    parts: list[str] = []
    for name, spec in kinds:
        kind, _, default = spec.partition("=")
        value = props.get(name)
        if value is None:
            continue
        if default and isinstance(value, IntegerAttr):
            shown = str(value.value.data) if kind == "int" else str(bool(value.value.data)).lower()
            if shown == default:
                continue
        if kind == "ints" and isinstance(value, ArrayAttr):
            ints = ", ".join(str(v.value.data) for v in value.data)
            parts.append(f"{name} = [{ints}]")
        elif kind == "unit" or isinstance(value, UnitAttr):
            parts.append(name)
        elif isinstance(value, IntegerAttr) and kind == "bool":
            parts.append(f"{name} = {'true' if value.value.data else 'false'}")
        elif isinstance(value, IntegerAttr):
            parts.append(f"{name} = {value.value.data}")
        elif isinstance(value, StringAttr):
            parts.append(f'{name} = "{value.data}"')
    if parts:
        printer.print_string(" <" + ", ".join(parts) + ">" if angle else " " + " ".join(parts))
    printer.print_op_attributes(attrs)


def parse_functional_or_plain_type(
    parser: Parser, num_operands: int, num_results: int
) -> tuple[list[Attribute], list[Attribute]]:
    """`: (T0, T1) -> (R0, R1)`, `: (T) -> R` or the short `: T` (every operand and
    result of type T) after the `:` has been parsed."""
    if parser.parse_optional_punctuation("(") is not None:
        inputs: list[Attribute] = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_type
        )
        parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        outputs: list[Attribute]
        if parser.parse_optional_punctuation("(") is not None:
            outputs = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
        else:
            outputs = [parser.parse_type()]
        bound = getattr(parser, "bound_result_count", 0)
        if len(outputs) == 1 and (bound or num_results) > 1:
            outputs = outputs * (bound or num_results)
        return inputs, outputs
    types: list[Attribute] = parser.parse_comma_separated_list(
        Parser.Delimiter.NONE, parser.parse_type
    )
    count = getattr(parser, "bound_result_count", 0) or num_results
    if len(types) == num_operands + count and len(types) > 1:
        # `: T_operand, T_result0, T_result1, ...` (e.g. the spec's multitile_sizes)
        return types[:num_operands], types[num_operands:]
    inputs = (types * num_operands)[:num_operands] if len(types) == 1 else types
    return inputs, [types[0]] * count


def print_functional_type(
    printer: Printer, inputs: Sequence[Attribute], outputs: Sequence[Attribute]
) -> None:
    printer.print_string("(")
    printer.print_list(inputs, printer.print_attribute)
    printer.print_string(") -> ")
    if len(outputs) == 1:
        printer.print_attribute(outputs[0])
    else:
        printer.print_string("(")
        printer.print_list(outputs, printer.print_attribute)
        printer.print_string(")")


class TargetPropsMixin:
    """parse/print for `$target <props> : functional-type(operands, results)`.

    Subclasses (IRDL ops with one `target` operand and `results`) set `PROPS`
    (see `PropKinds`), `ANGLE` (props inside `<...>`) and `NUM_RESULTS` (used
    with the short `: T` type form).
    """

    PROPS: ClassVar[tuple[tuple[str, str], ...]] = ()
    ANGLE: ClassVar[bool] = False
    NUM_RESULTS: ClassVar[int] = 1

    @classmethod
    def parse(cls, parser: Parser):
        assert issubclass(cls, IRDLOperation)
        target = parser.parse_unresolved_operand()
        props, attrs = parse_struct_props(parser, cls.PROPS, angle=cls.ANGLE)
        parser.parse_punctuation(":")
        inputs, outputs = parse_functional_or_plain_type(parser, 1, cls.NUM_RESULTS)
        return cls.create(
            operands=[parser.resolve_operand(target, inputs[0])],
            result_types=outputs,
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        op = self
        assert isinstance(op, IRDLOperation)
        printer.print_string(" ")
        printer.print_operand(op.operands[0])
        print_struct_props(
            printer,
            self.PROPS,
            dict(op.properties),
            dict(op.attributes),
            angle=self.ANGLE,
        )
        printer.print_string(" : ")
        print_functional_type(printer, op.operand_types, op.result_types)
