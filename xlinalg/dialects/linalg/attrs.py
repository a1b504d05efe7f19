"""Attributes of the named linalg ops: `#linalg.type_fn<cast_signed>`, `#linalg.unary_fn<exp>`,
`#linalg.binary_fn<add>`, `#linalg.elementwise_kind<select>`."""

from __future__ import annotations

from typing import Any

from xdsl.dialects.utils import EnumAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.str_enum import StrEnum


class TypeFn(StrEnum):
    """How an operand is converted to the output element type (OpDSL `TypeFn`)."""

    CAST_SIGNED = "cast_signed"
    CAST_UNSIGNED = "cast_unsigned"


class _AngleEnumAttr(EnumAttribute[Any]):
    """An enum attribute printed `#linalg.<name><case>`."""

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Any:
        with parser.in_angle_brackets():
            return super().parse_parameter(parser)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)


@irdl_attr_definition
class TypeFnAttr(_AngleEnumAttr, EnumAttribute[TypeFn]):
    """`#linalg.type_fn<cast_signed>` / `#linalg.type_fn<cast_unsigned>`."""

    name = "linalg.type_fn"


class UnaryFn(StrEnum):
    """OpDSL `UnaryFn` (the `fun` of the legacy `linalg.elemwise_unary`), cases 0..12."""

    EXP = "exp"
    LOG = "log"
    ABS = "abs"
    CEIL = "ceil"
    FLOOR = "floor"
    NEGF = "negf"
    RECIPROCAL = "reciprocal"
    ROUND = "round"
    SQRT = "sqrt"
    RSQRT = "rsqrt"
    SQUARE = "square"
    TANH = "tanh"
    ERF = "erf"


class BinaryFn(StrEnum):
    """OpDSL `BinaryFn` (the `fun` of the legacy `linalg.elemwise_binary`), cases 0..9."""

    ADD = "add"
    SUB = "sub"
    MUL = "mul"
    DIV = "div"
    DIV_UNSIGNED = "div_unsigned"
    MAX_SIGNED = "max_signed"
    MIN_SIGNED = "min_signed"
    MAX_UNSIGNED = "max_unsigned"
    MIN_UNSIGNED = "min_unsigned"
    POWF = "powf"


#: `ElementwiseKind`, cases 0..23: the 13 unary functions, the 10 binary ones, `select`
ElementwiseKind = StrEnum(
    "ElementwiseKind",
    [(f.name, f.value) for f in UnaryFn]
    + [(f.name, f.value) for f in BinaryFn]
    + [("SELECT", "select")],
)


@irdl_attr_definition
class UnaryFnAttr(_AngleEnumAttr, EnumAttribute[UnaryFn]):
    """`#linalg.unary_fn<exp>`."""

    name = "linalg.unary_fn"


@irdl_attr_definition
class BinaryFnAttr(_AngleEnumAttr, EnumAttribute[BinaryFn]):
    """`#linalg.binary_fn<add>`."""

    name = "linalg.binary_fn"


@irdl_attr_definition
class ElementwiseKindAttr(_AngleEnumAttr, EnumAttribute[ElementwiseKind]):
    """`#linalg.elementwise_kind<exp>` (the `kind` of `linalg.elementwise`)."""

    name = "linalg.elementwise_kind"
