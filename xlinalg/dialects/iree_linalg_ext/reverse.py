"""`iree_linalg_ext.reverse`: `out[i] = in[i with i_d -> n_d - 1 - i_d for d in dimensions]`.

```
iree_linalg_ext.reverse dimensions(dense<0> : tensor<1xi64>)
    ins(%in : memref<8x10xf32>) outs(%out : memref<8x10xf32>)
```
Tiling takes the input tile at `offsets` and writes it to the mirrored output
tile (`n_d - offset_d - size_d` along reversed dims), as IREE does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeGuard

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType, TensorType
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.irdl import irdl_op_definition, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.iree_linalg_ext.base import LinalgExtOp, compatible, elem, shape
from xlinalg.dialects.iree_linalg_ext.loops import Emitter
from xlinalg.dialects.iree_linalg_ext.tiling_utils import insert_tile
from xlinalg.dialects.linalg.assembly import (
    parse_operand_group,
    parse_result_types,
    print_operand_group,
)
from xlinalg.interfaces.loop_lowering import LoopLoweringInterface
from xlinalg.interfaces.tiling import TilingInterface, parallel_except
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.ir.slices import domain_of, slice_of


def _has_int_elements(
    attr: DenseIntOrFPElementsAttr,
) -> TypeGuard[DenseIntOrFPElementsAttr[IntegerType]]:
    return isinstance(attr.get_element_type(), IntegerType)


@irdl_op_definition
class ReverseOp(LinalgExtOp, LoopLoweringInterface, TilingInterface):
    name = "iree_linalg_ext.reverse"

    dimensions = prop_def(DenseIntOrFPElementsAttr)

    def dims(self) -> list[int]:
        dims = self.dimensions
        assert _has_int_elements(dims), "verified: 'dimensions' has i64 elements"
        return list(dims.get_values())

    def verify_(self) -> None:
        self.verify_destination_style()
        type_ = self.dimensions.type
        if (
            not isinstance(type_, TensorType)
            or not isinstance(type_.element_type, IntegerType)
            or type_.element_type.width.data != 64
            or type_.get_num_dims() != 1
        ):
            raise self.fail("expected 'dimensions' to be a 1-D dense i64 elements attribute")
        if len(self.inputs) != 1 or len(self.outputs) != 1:
            raise self.fail("expected one input and one output")
        in_shape, out_shape = shape(self.inputs[0]), shape(self.outputs[0])
        if len(in_shape) != len(out_shape) or not all(map(compatible, in_shape, out_shape)):
            raise self.fail(
                f"expected the output shape {list(out_shape)} to match the input shape {list(in_shape)}"
            )
        if elem(self.inputs[0]) != elem(self.outputs[0]):
            raise self.fail("expected the input and output element types to be equal")
        dims = self.dims()
        if len(set(dims)) != len(dims):
            raise self.fail(f"expected 'dimensions' without duplicates, got {dims}")
        for d in dims:
            if not 0 <= d < len(in_shape):
                raise self.fail(f"dimension {d} is out of range for rank {len(in_shape)}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" dimensions(")
        printer.print_attribute(self.dimensions)
        printer.print_string(")")
        print_operand_group(printer, "ins", self.inputs)
        print_operand_group(printer, "outs", self.outputs)
        if self.results_:
            printer.print_string(" : ")
            printer.print_list(self.results_.types, printer.print_attribute)

    @classmethod
    def parse(cls, parser: Parser) -> ReverseOp:
        attrs = parser.parse_optional_attr_dict()
        parser.parse_keyword("dimensions")
        parser.parse_punctuation("(")
        pos = parser.pos
        dims = parser.parse_attribute()
        if not isinstance(dims, DenseIntOrFPElementsAttr):
            parser.raise_error(
                "expected 'dimensions' to be a dense elements attribute", pos, parser.pos
            )
        parser.parse_punctuation(")")
        inputs = parse_operand_group(parser, "ins")
        outputs = parse_operand_group(parser, "outs")
        result_types: list = []
        if parser.parse_optional_punctuation(":"):
            result_types = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_type
            )
        else:
            result_types = parse_result_types(parser)
        op = cls.build(
            operands=[inputs, outputs], result_types=[result_types], properties={"dimensions": dims}
        )
        op.attributes.update(attrs)
        return op

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        em = Emitter(InsertPoint.before(self))
        inp, out = self.inputs[0], self.outputs[0]
        sizes = em.dims(inp)
        one = em.index(1)
        reversed_dims = set(self.dims())

        def body(e: Emitter, ivs: list[SSAValue]) -> None:
            src = [
                e.subi(e.subi(sizes[i], one), iv) if i in reversed_dims else iv
                for i, iv in enumerate(ivs)
            ]
            e.store(e.load(inp, src), out, ivs)

        em.nest(sizes, body)
        rewriter.erase_op(self)

    def get_loop_iterator_types(self) -> list[IteratorType]:
        return parallel_except(len(shape(self.inputs[0])), set())

    def get_iteration_domain(self, builder: IndexBuilder) -> list[OpFoldResult]:
        return domain_of(builder, self.inputs[0])

    def get_iteration_domain_tile_from_result_tile(
        self,
        builder: IndexBuilder,
        result_index: int,
        offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
        # the output tile at o comes from the input tile mirrored along the reversed dims
        full = domain_of(builder, self.outputs[0])
        n, off, sz = (AffineExpr.dimension(i) for i in range(3))
        mirrored = [
            builder.apply(n - off - sz, [full[i], offsets[i], sizes[i]])
            if i in set(self.dims())
            else offsets[i]
            for i in range(len(offsets))
        ]
        return mirrored, list(sizes)

    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation:
        inp = slice_of(builder, self.inputs[0], offsets, sizes)
        full = domain_of(builder, self.outputs[0])
        n, off, sz = (AffineExpr.dimension(i) for i in range(3))
        out_offsets = [
            builder.apply(n - off - sz, [full[i], offsets[i], sizes[i]])
            if i in set(self.dims())
            else offsets[i]
            for i in range(len(offsets))
        ]
        out = slice_of(builder, self.outputs[0], out_offsets, sizes)
        return insert_tile(self, builder, [inp], [out])
