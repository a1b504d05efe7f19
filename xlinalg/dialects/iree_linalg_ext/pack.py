"""`iree_linalg_ext.pack` / `unpack`: tile a tensor/buffer into a blocked layout and back.

```
iree_linalg_ext.pack %src [padding_value(%p : f32)] [outer_dims_perm = [1, 0]]
    inner_dims_pos = [0, 1] inner_tiles = [32, 8] into %dst
    : (memref<128x256xf32> memref<32x4x32x8xf32>)
iree_linalg_ext.unpack %src [outer_dims_perm = [1, 0]] inner_dims_pos = [0, 1]
    inner_tiles = [32, 8] into %dst : (memref<32x4x32x8xf32> memref<128x256xf32>)
```
The legacy spelling `dims_pos = [...]` (the seed's first unpack examples) is
accepted and printed as `inner_dims_pos`. Shape rules: `xlinalg/dialects/linalg/pack_shape.py`.
Without `padding_value` a tile that does not divide its dim is UB (the lowering
then reads clamped in-bounds elements); with it the tail of the last tile is
`padding_value` (high padding only). Unpack may drop that padding (the
destination may be smaller than outer × tile).
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.builder import Builder
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IndexType, TensorType, i64
from xdsl.dialects.utils import parse_dynamic_index_list_without_types, print_dynamic_index_list
from xdsl.ir import SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.iree_linalg_ext.base import (
    LinalgExtOp,
    compatible,
    elem,
    parse_int_list,
    print_int_list,
    shape,
)
from xlinalg.dialects.iree_linalg_ext.loops import Emitter
from xlinalg.dialects.linalg.pack_loops import DYNAMIC_TILE, lower_relayout_to_loops
from xlinalg.dialects.linalg.pack_shape import (
    DYNAMIC,
    check_pack_attrs,
    packed_shape,
)
from xlinalg.dialects.linalg.pack_tiling import RelayoutLayout, RelayoutTiling
from xlinalg.interfaces.loop_lowering import LoopLoweringInterface
from xlinalg.ir.dense_arrays import int_values


class _RelayoutOp(LinalgExtOp, LoopLoweringInterface, RelayoutTiling):
    """Shared by pack and unpack: the attributes, the assembly, the tile values; tiling is
    `linalg/pack_tiling.py`'s, shared with `linalg.pack`/`unpack`."""

    inputs = var_operand_def()
    outputs = var_operand_def()
    inner_tiles = var_operand_def(IndexType())
    results_ = var_result_def()

    outer_dims_perm = opt_prop_def(DenseArrayBase)
    inner_dims_pos = prop_def(DenseArrayBase)
    static_inner_tiles = prop_def(DenseArrayBase)

    def perm(self) -> list[int]:
        return [] if self.outer_dims_perm is None else int_values(self.outer_dims_perm)

    def dims_pos(self) -> list[int]:
        return int_values(self.inner_dims_pos)

    def static_tiles(self) -> list[int]:
        """The static tiles, -1 (`pack_shape.DYNAMIC`) for a dynamic one (stored as kDynamic)."""
        return [DYNAMIC if v == DYNAMIC_INDEX else v for v in int_values(self.static_inner_tiles)]

    def tile_values(self, em: Emitter) -> list[SSAValue]:
        dynamic = iter(self.inner_tiles)
        return [next(dynamic) if t == DYNAMIC else em.index(t) for t in self.static_tiles()]

    def unpacked_and_packed(self) -> tuple[SSAValue, SSAValue]:
        raise NotImplementedError

    def clone_on_buffers(self, buffers: Mapping[SSAValue, SSAValue]) -> _RelayoutOp:
        return self.clone_relayout(
            buffers.get(self.inputs[0], self.inputs[0]),
            buffers.get(self.outputs[0], self.outputs[0]),
        )

    def clone_relayout(self, source: SSAValue, dest: SSAValue) -> _RelayoutOp:
        operands: list = [[source], [dest], list(self.inner_tiles)]
        if isinstance(self, PackOp):
            operands.append([self.padding_value] if self.padding_value is not None else [])
        properties = {k: v for k, v in self.properties.items() if k != "operandSegmentSizes"}
        results = [dest.type] if isinstance(dest.type, TensorType) else []
        return type(self).build(
            operands=operands,
            result_types=[results],
            properties=properties,
            attributes=dict(self.attributes),
        )

    def relayout_layout(self) -> RelayoutLayout:
        unpacked, packed = self.unpacked_and_packed()
        return RelayoutLayout(unpacked, packed, self.dims_pos(), self.perm(), self.static_tiles())

    def is_pack(self) -> bool:
        return isinstance(self, PackOp)

    def padding(self) -> SSAValue | None:
        return None

    def verify_(self) -> None:
        self.verify_destination_style()
        if len(self.inputs) != 1 or len(self.outputs) != 1:
            raise self.fail("expected one input and one output")
        unpacked, packed = self.unpacked_and_packed()
        if elem(unpacked) != elem(packed):
            raise self.fail("expected the source and destination element types to be equal")
        tiles = self.static_tiles()
        if sum(1 for t in tiles if t == DYNAMIC) != len(self.inner_tiles):
            raise self.fail("expected one inner_tiles operand per dynamic tile")
        if any(t == 0 or t < DYNAMIC for t in tiles) or any(
            v < 0 and v != DYNAMIC_INDEX for v in int_values(self.static_inner_tiles)
        ):
            raise self.fail(f"expected positive inner_tiles, got {tiles}")
        u_shape = shape(unpacked)
        problem = check_pack_attrs(len(u_shape), self.dims_pos(), len(tiles), self.perm())
        if problem:
            raise self.fail(problem)
        expected = packed_shape(u_shape, self.dims_pos(), tiles, self.perm())
        got = shape(packed)
        if len(got) != len(expected) or not all(map(compatible, expected, got)):
            raise self.fail(f"expected the packed type to have shape {expected}, got {packed.type}")
        pad = self.padding()
        if pad is not None and pad.type != elem(unpacked):
            raise self.fail(
                f"expected the padding value to be of type {elem(unpacked)}, got {pad.type}"
            )

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        """Loops over the packed buffer, tile by tile, shared with `linalg.pack`/`unpack`
        (`xlinalg/dialects/linalg/pack_loops.py`: no division per element, padding written
        per partial tile)."""
        unpacked, packed = self.unpacked_and_packed()
        tiles = self.tile_values(Emitter(InsertPoint.before(self)))
        static = [DYNAMIC_TILE if t == DYNAMIC else t for t in self.static_tiles()]
        lower_relayout_to_loops(
            Builder(InsertPoint.before(self)),
            packed=packed,
            unpacked=unpacked,
            inner_dims_pos=self.dims_pos(),
            tiles=tiles,
            static_tiles=static,
            outer_dims_perm=self.perm() or list(range(len(shape(unpacked)))),
            padding=self.padding(),
            is_pack=self.is_pack(),
        )
        rewriter.erase_op(self)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.inputs[0])
        pad = self.padding()
        if pad is not None:
            printer.print_string(" padding_value(")
            printer.print_ssa_value(pad)
            printer.print_string(" : ")
            printer.print_attribute(pad.type)
            printer.print_string(")")
        if self.outer_dims_perm is not None:
            printer.print_string(f" outer_dims_perm = {print_int_list(self.perm())}")
        printer.print_string(f" inner_dims_pos = {print_int_list(self.dims_pos())} inner_tiles = ")
        print_dynamic_index_list(
            printer, DYNAMIC_INDEX, self.inner_tiles, int_values(self.static_inner_tiles)
        )
        printer.print_string(" into ")
        printer.print_ssa_value(self.outputs[0])
        printer.print_string(f" : ({self.inputs[0].type} {self.outputs[0].type})")
        if self.results_:
            printer.print_string(" -> ")
            printer.print_list(self.results_.types, printer.print_attribute)

    @classmethod
    def parse(cls, parser: Parser) -> _RelayoutOp:
        attrs = parser.parse_optional_attr_dict()
        source = parser.parse_unresolved_operand()
        pad = None
        if cls is PackOp and parser.parse_optional_keyword("padding_value"):
            parser.parse_punctuation("(")
            pad_ref = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            pad = parser.resolve_operand(pad_ref, parser.parse_type())
            parser.parse_punctuation(")")
        perm = None
        if parser.parse_optional_keyword("outer_dims_perm"):
            parser.parse_punctuation("=")
            perm = parse_int_list(parser)
        # `dims_pos` is the legacy spelling of `inner_dims_pos` (seed 004's unpack examples)
        parser.expect(
            lambda: (
                parser.parse_optional_keyword("inner_dims_pos")
                or parser.parse_optional_keyword("dims_pos")
            ),
            "expected 'inner_dims_pos'",
        )
        parser.parse_punctuation("=")
        dims_pos = parse_int_list(parser)
        parser.parse_keyword("inner_tiles")
        parser.parse_punctuation("=")
        tile_refs, static_tiles = parse_dynamic_index_list_without_types(parser, DYNAMIC_INDEX)
        tiles = [parser.resolve_operand(t, IndexType()) for t in tile_refs]
        parser.parse_keyword("into")
        dest_ref = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        parser.parse_punctuation("(")
        source_type = parser.parse_type()
        dest_type = parser.parse_type()
        parser.parse_punctuation(")")
        result_types = []
        if parser.parse_optional_punctuation("->"):
            result_types = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_type
            )
        properties = {
            "inner_dims_pos": DenseArrayBase.from_list(i64, dims_pos),
            "static_inner_tiles": DenseArrayBase.from_list(i64, list(static_tiles)),
        }
        if perm is not None:
            properties["outer_dims_perm"] = DenseArrayBase.from_list(i64, perm)
        operands: list = [
            [parser.resolve_operand(source, source_type)],
            [parser.resolve_operand(dest_ref, dest_type)],
            tiles,
        ]
        if cls is PackOp:
            operands.append([pad] if pad is not None else [])
        op = cls.build(operands=operands, result_types=[result_types], properties=properties)
        op.attributes.update(attrs)
        return op


@irdl_op_definition
class PackOp(_RelayoutOp):
    name = "iree_linalg_ext.pack"

    inputs = var_operand_def()
    outputs = var_operand_def()
    inner_tiles = var_operand_def(IndexType())
    padding_value = opt_operand_def()
    results_ = var_result_def()

    def unpacked_and_packed(self) -> tuple[SSAValue, SSAValue]:
        return self.inputs[0], self.outputs[0]

    def padding(self) -> SSAValue | None:
        return self.padding_value


@irdl_op_definition
class UnPackOp(_RelayoutOp):
    name = "iree_linalg_ext.unpack"

    def unpacked_and_packed(self) -> tuple[SSAValue, SSAValue]:
        return self.outputs[0], self.inputs[0]
