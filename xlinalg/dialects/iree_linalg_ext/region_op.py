"""The shape shared by sort, scan and topk: `dimension(d)` (+ op-specific keywords),
`ins(..) outs(..)`, a scalar region, `-> results`; one loop per dim of a domain
operand, all parallel but `d` (a reduction that cannot be tiled)."""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import I64, IntegerAttr
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import prop_def, region_def
from xdsl.parser import Parser
from xdsl.printer import Printer

from xlinalg.dialects.iree_linalg_ext.base import (
    LinalgExtOp,
    parse_keyword_int,
    print_keyword_value,
    shape,
)
from xlinalg.dialects.linalg.assembly import (
    parse_operand_group,
    parse_result_types,
    print_operand_group,
    print_result_types,
)
from xlinalg.interfaces.tiling import parallel_except
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.ir.slices import domain_of


class DimensionRegionOp(LinalgExtOp):
    dimension = prop_def(IntegerAttr[I64])
    region = region_def("single_block")

    @property
    def dim(self) -> int:
        return self.dimension.value.data

    def domain_value(self) -> SSAValue:
        """The operand whose shape is the iteration domain."""
        return self.inputs[0]

    # ---- assembly ----
    def print_keywords(self, printer: Printer) -> None:
        print_keyword_value(printer, "dimension", str(self.dim))

    @classmethod
    def parse_keywords(cls, parser: Parser) -> dict[str, Attribute]:
        return {"dimension": IntegerAttr(parse_keyword_int(parser, "dimension"), 64)}

    def print(self, printer: Printer) -> None:
        self.print_keywords(printer)
        print_operand_group(printer, "ins", self.inputs)
        print_operand_group(printer, "outs", self.outputs)
        printer.print_string(" ")
        printer.print_region(self.region)
        print_result_types(printer, self.results_.types)

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        attrs = parser.parse_optional_attr_dict()
        properties = cls.parse_keywords(parser)
        inputs = parse_operand_group(parser, "ins")
        outputs = parse_operand_group(parser, "outs")
        region = parser.parse_region()
        result_types = parse_result_types(parser)
        op = cls.build(
            operands=[inputs, outputs],
            result_types=[result_types],
            properties=properties,
            regions=[region],
        )
        op.attributes.update(attrs)
        return op

    # ---- TilingInterface (shared part) ----
    def get_loop_iterator_types(self) -> list[IteratorType]:
        return parallel_except(len(shape(self.domain_value())), {self.dim})

    def untileable_loops(self) -> set[int]:
        return {self.dim}

    def get_iteration_domain(self, builder: IndexBuilder) -> list[OpFoldResult]:
        return domain_of(builder, self.domain_value())
