"""What every `iree_linalg_ext` compute op shares: destination-style `ins`/`outs`
operands, tensor results matching the tensor outputs, the `yield` terminator,
and the assembly helpers for `keyword(value)` attributes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import DenseArrayBase, ShapedType, TensorType, i32
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import VerifyException

from xlinalg.interfaces.destination_style import DestinationStyleOpInterface
from xlinalg.ir.shaped_types import element_type


@irdl_op_definition
class YieldOp(IRDLOperation):
    """`iree_linalg_ext.yield [%v : T]`: the terminator of the comparator/combiner regions."""

    name = "iree_linalg_ext.yield"

    values = var_operand_def()
    traits = traits_def(IsTerminator())

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue) -> None:
        super().__init__(operands=[list(values)])


class LinalgExtOp(IRDLOperation, DestinationStyleOpInterface):
    """Base of the destination-style ops: `inputs`, `outputs`, tensor `results`
    (one-shot bufferization rebuilds them on memrefs through `DestinationStyleOpInterface`)."""

    inputs = var_operand_def()
    outputs = var_operand_def()
    results_ = var_result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def fail(self, message: str) -> VerifyException:
        return VerifyException(f"'{self.name}' op {message}")

    def clone_with(self, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> LinalgExtOp:
        """The same op (attributes, regions) on new operands; one result per tensor output."""
        properties = dict(self.properties)
        properties["operandSegmentSizes"] = DenseArrayBase.from_list(
            i32, [len(inputs), len(outputs)]
        )
        return type(self).create(
            operands=[*inputs, *outputs],
            result_types=[v.type for v in outputs if isinstance(v.type, TensorType)],
            properties=properties,
            attributes=dict(self.attributes),
            regions=[r.clone() for r in self.regions],
        )

    # ---- DestinationStyleOpInterface ----
    def get_dps_inputs(self) -> Sequence[SSAValue]:
        return [v for v in self.inputs if isinstance(v.type, ShapedType)]

    def get_dps_inits(self) -> Sequence[SSAValue]:
        return list(self.outputs)

    def clone_on_buffers(self, buffers: Mapping[SSAValue, SSAValue]) -> LinalgExtOp:
        return self.clone_with(
            [buffers.get(v, v) for v in self.inputs], [buffers.get(v, v) for v in self.outputs]
        )

    def verify_destination_style(self) -> None:
        """Outputs are shaped; on tensors one result per output with the same type, on memrefs none."""
        for value in self.outputs:
            if not isinstance(value.type, ShapedType):
                raise self.fail(f"expected outputs to be shaped, got {value.type}")
        tensor_outs = [v.type for v in self.outputs if isinstance(v.type, TensorType)]
        if [*self.results_.types] != tensor_outs:
            raise self.fail(
                f"expected result types {[str(t) for t in tensor_outs]} to match the tensor "
                f"outputs, got {[str(t) for t in self.results_.types]}"
            )

    def verify_region_signature(
        self,
        block: Block,
        arg_types: Sequence[Attribute],
        yield_types: Sequence[Attribute],
        what: str,
    ) -> None:
        got = [a.type for a in block.args]
        if got != list(arg_types):
            raise self.fail(
                f"expected {what} region arguments of types {[str(t) for t in arg_types]}, "
                f"got {[str(t) for t in got]}"
            )
        terminator = block.last_op
        if not isinstance(terminator, YieldOp):
            raise self.fail(f"expected the {what} region to end with 'iree_linalg_ext.yield'")
        yielded = [v.type for v in terminator.values]
        if yielded != list(yield_types):
            raise self.fail(
                f"expected the {what} region to yield {[str(t) for t in yield_types]}, "
                f"got {[str(t) for t in yielded]}"
            )


def shape(value: SSAValue) -> tuple[int, ...]:
    type_ = value.type
    assert isinstance(type_, ShapedType)
    return tuple(type_.get_shape())


def elem(value: SSAValue) -> Attribute:
    return element_type(value.type)


def compatible(a: int, b: int) -> bool:
    """Static sizes agree, or either is dynamic."""
    return a < 0 or b < 0 or a == b


# ---- assembly helpers ----
def print_keyword_value(printer: Printer, keyword: str, text: str) -> None:
    printer.print_string(f" {keyword}({text})")


def parse_keyword_int(parser: Parser, keyword: str) -> int:
    parser.parse_keyword(keyword)
    parser.parse_punctuation("(")
    value = parser.parse_integer()
    parser.parse_punctuation(")")
    return value


def parse_keyword_bool(parser: Parser, keyword: str) -> bool:
    parser.parse_keyword(keyword)
    parser.parse_punctuation("(")
    value = parser.parse_boolean()
    parser.parse_punctuation(")")
    return value


def parse_int_list(parser: Parser) -> list[int]:
    """`[1, 2, 3]`."""
    return parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)


def print_int_list(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"
