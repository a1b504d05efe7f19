"""`set_encoding`, `unset_encoding`, `upper_bound_tile_size`: layout changes described by
an `EncodingAttr` on the tensor type, materialized later (`materialize.py`).

```
%e = iree_linalg_ext.set_encoding %t : tensor<?x?xf32> -> tensor<?x?xf32, #enc>
%t2 = iree_linalg_ext.unset_encoding %e : tensor<?x?xf32, #enc> -> tensor<?x?xf32>
%m, %n = iree_linalg_ext.upper_bound_tile_size tensor<?x?xf32, #enc> -> index, index
```
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, NoneAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.iree_linalg_ext.attrs import EncodingAttr


def encoding_of(type_: Attribute) -> EncodingAttr | None:
    if isinstance(type_, TensorType) and isinstance(type_.encoding, EncodingAttr):
        return type_.encoding
    return None


def _same_tensor_but_encoding(op: IRDLOperation, plain: Attribute, encoded: Attribute) -> None:
    name = op.name
    if not isinstance(plain, TensorType) or not isinstance(encoded, TensorType):
        raise VerifyException(f"'{name}' op expected ranked tensors, got {plain} and {encoded}")
    if plain.get_shape() != encoded.get_shape() or plain.element_type != encoded.element_type:
        raise VerifyException(
            f"'{name}' op expected {plain} and {encoded} to have the same shape and element type"
        )
    if not isinstance(plain.encoding, NoneAttr):
        raise VerifyException(
            f"'{name}' op expected the unencoded tensor {plain} to carry no encoding"
        )
    if encoding_of(encoded) is None:
        raise VerifyException(
            f"'{name}' op expected {encoded} to carry an #iree_linalg_ext.encoding"
        )


class _EncodingCastOp(IRDLOperation):
    source = operand_def(TensorType)
    result = result_def(TensorType)

    traits = traits_def(NoMemoryEffect())

    assembly_format = "attr-dict $source `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue | Operation, result_type: Attribute) -> None:
        super().__init__(operands=[source], result_types=[result_type])


@irdl_op_definition
class SetEncodingOp(_EncodingCastOp):
    name = "iree_linalg_ext.set_encoding"

    def verify_(self) -> None:
        _same_tensor_but_encoding(self, self.source.type, self.result.type)


@irdl_op_definition
class UnsetEncodingOp(_EncodingCastOp):
    name = "iree_linalg_ext.unset_encoding"

    def verify_(self) -> None:
        _same_tensor_but_encoding(self, self.result.type, self.source.type)


@irdl_op_definition
class UpperBoundTileSizeOp(IRDLOperation):
    """The largest tile sizes the encoding of `tensorType` can materialize to, one per dim."""

    name = "iree_linalg_ext.upper_bound_tile_size"

    tensorType = prop_def(TensorType)
    results_ = var_result_def(IndexType())

    traits = traits_def(NoMemoryEffect())

    def __init__(self, tensor_type: TensorType) -> None:
        super().__init__(
            properties={"tensorType": tensor_type},
            result_types=[[IndexType()] * tensor_type.get_num_dims()],
        )

    def verify_(self) -> None:
        rank = self.tensorType.get_num_dims()
        if len(self.results_) != rank:
            raise VerifyException(
                f"'{self.name}' op expected {rank} results (the rank of {self.tensorType}), "
                f"got {len(self.results_)}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.tensorType)
        printer.print_string(" -> ")
        printer.print_list(self.results_.types, printer.print_attribute)

    @classmethod
    def parse(cls, parser: Parser) -> UpperBoundTileSizeOp:
        attrs = parser.parse_optional_attr_dict()
        pos = parser.pos
        type_ = parser.parse_type()
        if not isinstance(type_, TensorType):
            parser.raise_error(f"expected a ranked tensor type, got {type_}", pos, parser.pos)
        parser.parse_punctuation("->")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        op = cls.build(properties={"tensorType": type_}, result_types=[types])
        op.attributes.update(attrs)
        return op
