"""`#iree_linalg_ext.role<LHS|RHS|RESULT>` and `#iree_linalg_ext.encoding<...>`.

```
#iree_linalg_ext.encoding<role = LHS, element_types = [f32, f32, f32],
    original_type = tensor<100x250xf32>, matmul_narrow_M = 1 : index,
    user_indexing_maps = [#map0, #map1, #map2], round_dims_to = array<i64: 16, 16, 16>>
```
The encoding describes a data-tiled layout without changing a tensor's rank or
extents; `materialize.py` turns it into pack/unpack. Every parameter but
`role` and `element_types` is optional (IREE's struct syntax, `key = value`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IndexType, IntegerAttr, NoneAttr
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


class EncodingRole(StrEnum):
    LHS = "LHS"
    RHS = "RHS"
    RESULT = "RESULT"


@irdl_attr_definition
class EncodingRoleAttr(EnumAttribute[EncodingRole]):
    """`#iree_linalg_ext.role<LHS>`: the role of a tensor as an operand of its user."""

    name = "iree_linalg_ext.role"

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data.value)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> EncodingRole:
        with parser.in_angle_brackets():
            return parser.parse_str_enum(EncodingRole)


_OPTIONAL = (
    "original_type",
    "matmul_narrow_M",
    "matmul_narrow_N",
    "user_indexing_maps",
    "round_dims_to",
)


@irdl_attr_definition
class EncodingAttr(ParametrizedAttribute):
    """How to data-tile a tensor (see the module docstring)."""

    name = "iree_linalg_ext.encoding"

    role: EncodingRoleAttr = param_def()
    element_types: ArrayAttr = param_def()
    original_type: Attribute = param_def()
    matmul_narrow_M: Attribute = param_def()
    matmul_narrow_N: Attribute = param_def()
    user_indexing_maps: Attribute = param_def()
    round_dims_to: Attribute = param_def()

    @staticmethod
    def get(
        role: EncodingRole | str,
        element_types: Sequence[Attribute],
        *,
        original_type: Attribute | None = None,
        matmul_narrow_M: int | None = None,
        matmul_narrow_N: int | None = None,
        user_indexing_maps: ArrayAttr | None = None,
        round_dims_to: DenseArrayBase | None = None,
    ) -> EncodingAttr:
        def opt(value: Attribute | None) -> Attribute:
            return NoneAttr() if value is None else value

        def narrow(value: int | None) -> Attribute:
            return NoneAttr() if value is None else IntegerAttr(value, IndexType())

        return EncodingAttr(
            EncodingRoleAttr(EncodingRole(str(role))),
            ArrayAttr(list(element_types)),
            opt(original_type),
            narrow(matmul_narrow_M),
            narrow(matmul_narrow_N),
            opt(user_indexing_maps),
            opt(round_dims_to),
        )

    def verify(self) -> None:
        if not all(isinstance(t, TypeAttribute) for t in self.element_types.data):
            raise VerifyException("#iree_linalg_ext.encoding: element_types must be types")
        if not isinstance(self.original_type, (NoneAttr, TypeAttribute)):
            raise VerifyException("#iree_linalg_ext.encoding: original_type must be a type")
        for key in ("matmul_narrow_M", "matmul_narrow_N"):
            if not isinstance(getattr(self, key), (NoneAttr, IntegerAttr)):
                raise VerifyException(f"#iree_linalg_ext.encoding: {key} must be an integer")
        if not isinstance(self.user_indexing_maps, (NoneAttr, ArrayAttr)):
            raise VerifyException("#iree_linalg_ext.encoding: user_indexing_maps must be an array")
        if not isinstance(self.round_dims_to, (NoneAttr, DenseArrayBase)):
            raise VerifyException("#iree_linalg_ext.encoding: round_dims_to must be a dense array")

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(f"role = {self.role.data.value}, element_types = ")
            printer.print_attribute(self.element_types)
            for key in _OPTIONAL:
                value = getattr(self, key)
                if not isinstance(value, NoneAttr):
                    printer.print_string(f", {key} = ")
                    printer.print_attribute(value)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values: dict[str, Attribute] = {}

        def entry() -> None:
            pos = parser.pos
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            if key == "role":
                values[key] = EncodingRoleAttr(parser.parse_str_enum(EncodingRole))
            elif key == "element_types" or key in _OPTIONAL:
                values[key] = parser.parse_attribute()
            else:
                parser.raise_error(
                    f"unknown #iree_linalg_ext.encoding parameter '{key}'", pos, parser.pos
                )

        with parser.in_angle_brackets():
            parser.parse_comma_separated_list(parser.Delimiter.NONE, entry)
        for key in ("role", "element_types"):
            if key not in values:
                parser.raise_error(f"#iree_linalg_ext.encoding: missing '{key}'")
        return [
            values["role"],
            values["element_types"],
            *(values.get(k, NoneAttr()) for k in _OPTIONAL),
        ]
