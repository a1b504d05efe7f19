"""Attributes of the named linalg ops: `#linalg.type_fn<cast_signed>`."""

from __future__ import annotations

from xdsl.dialects.utils import EnumAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.str_enum import StrEnum


class TypeFn(StrEnum):
    """How an operand is converted to the output element type (OpDSL `TypeFn`)."""

    CAST_SIGNED = "cast_signed"
    CAST_UNSIGNED = "cast_unsigned"


@irdl_attr_definition
class TypeFnAttr(EnumAttribute[TypeFn]):
    """`#linalg.type_fn<cast_signed>` / `#linalg.type_fn<cast_unsigned>`."""

    name = "linalg.type_fn"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> TypeFn:
        with parser.in_angle_brackets():
            return super().parse_parameter(parser)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)
