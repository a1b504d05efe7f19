"""Small printing/parsing helpers shared by the transform ops (upstream MLIR syntax)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, IntegerType, i64
from xdsl.ir import Attribute
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
        arg = parser.parse_type()
        return arg, [arg] * num_results
    arg = parser.parse_type()
    parser.parse_punctuation(")")
    if parser.parse_optional_punctuation("->") is None:
        return arg, [arg] * num_results
    if parser.parse_optional_punctuation("(") is not None:
        results = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        return arg, results
    return arg, [parser.parse_type()]


def parse_i64_list(parser: Parser) -> list[int]:
    """`[1, 0]` as a list of python ints."""
    return parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)


def print_int_list(printer: Printer, values: Sequence[int]) -> None:
    printer.print_string("[")
    printer.print_list(values, lambda v: printer.print_string(str(v)))
    printer.print_string("]")


def index_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, IndexType())



PropKinds = Sequence[tuple[str, str]]
"""(property name, kind) in declaration order; kind is "unit", "int", "bool" or "str"."""


def parse_struct_props(
    parser: Parser, kinds: PropKinds, *, angle: bool = False
) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """Upstream's struct-style properties: `name = "x" assume_verified nth_parent = 2`.

    With `angle`, they are wrapped in `<...>` (as `transform.get_parent_op`
    prints them). A trailing `{...}` attribute dictionary follows; its entries
    named like a property become properties (the spec's older `{op_name = ...}`).
    Returns (properties, other attributes).
    """
    from xdsl.dialects.builtin import BoolAttr, StringAttr, UnitAttr

    by_name = dict(kinds)
    props: dict[str, Attribute] = {}
    opened = angle and parser.parse_optional_punctuation("<") is not None
    while True:
        name = next((n for n in by_name if n not in props and
                     parser.parse_optional_keyword(n) is not None), None)
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
    from xdsl.dialects.builtin import StringAttr, UnitAttr

    parts: list[str] = []
    for name, kind in kinds:
        value = props.get(name)
        if value is None:
            continue
        if kind == "unit" or isinstance(value, UnitAttr):
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
