"""Shared pieces of linalg's custom assembly: `ins(%a, %b : T, U) outs(%c : V)` and `-> T` results."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer


def print_operand_group(printer: Printer, keyword: str, values: Sequence[SSAValue]) -> None:
    """Print ` ins(%a, %b : T, U)`; nothing when `values` is empty."""
    if not values:
        return
    printer.print_string(f" {keyword}(")
    printer.print_list(values, printer.print_ssa_value)
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)
    printer.print_string(")")


def parse_operand_group(parser: Parser, keyword: str) -> list[SSAValue]:
    """Parse an optional `ins(%a, %b : T, U)` group; [] when the keyword is absent."""
    pos = parser.pos
    if not parser.parse_optional_characters(keyword):
        return []
    parser.parse_punctuation("(")
    if parser.parse_optional_punctuation(")"):
        return []
    unresolved = parser.parse_comma_separated_list(
        Parser.Delimiter.NONE, parser.parse_unresolved_operand
    )
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    if len(types) != len(unresolved):
        parser.raise_error(
            f"expected {len(unresolved)} types in '{keyword}(...)', got {len(types)}",
            pos,
            parser.pos,
        )
    return list(parser.resolve_operands(unresolved, types, pos))


def print_result_types(printer: Printer, types: Sequence[Attribute]) -> None:
    """Print ` -> T` or ` -> T, U` (upstream prints tensor results without parentheses)."""
    if not types:
        return
    printer.print_string(" -> ")
    printer.print_list(types, printer.print_attribute)


def parse_result_types(parser: Parser) -> list[Attribute]:
    if not parser.parse_optional_punctuation("->"):
        return []
    if parser.parse_optional_punctuation("("):
        types: list[Attribute] = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_type
        )
        parser.parse_punctuation(")")
        return types
    return parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
