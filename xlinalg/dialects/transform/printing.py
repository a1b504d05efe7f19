"""Small printing/parsing helpers shared by the transform ops (upstream MLIR syntax)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, i64
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
