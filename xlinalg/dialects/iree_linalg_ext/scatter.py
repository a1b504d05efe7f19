"""`iree_linalg_ext.scatter`: XLA / `tf.tensor_scatter_nd_update` scatter with a combiner.

```
iree_linalg_ext.scatter dimension_map = [0] unique_indices(false)
    ins(%updates, %indices : memref<3x4xf32>, memref<3x1xi32>) outs(%original : memref<8x4xf32>) {
^bb0(%update: f32, %current: f32):
  %s = arith.addf %update, %current : f32
  iree_linalg_ext.yield %s : f32
}
```
For every update `i` and slice position `s` (the trailing `rank(updates) - 1`
dims): the destination index is `s` aligned to the trailing dims of
`original`, plus `indices[i, k]` added on dim `dimension_map[k]`; the region
combines (update, current) and the result is stored there. Updates are applied
in order, so duplicate indices accumulate (the first loop is then a reduction).
Every dim of `original` must be addressed by an index or by a slice dim.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, IndexType, IntegerType, i64
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import irdl_op_definition, prop_def, region_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.iree_linalg_ext.base import (
    LinalgExtOp,
    elem,
    parse_int_list,
    parse_keyword_bool,
    print_int_list,
    print_keyword_value,
    shape,
)
from xlinalg.dialects.iree_linalg_ext.loops import Emitter
from xlinalg.dialects.iree_linalg_ext.tiling_utils import CoveringResultTiles, insert_tile
from xlinalg.dialects.linalg.assembly import (
    parse_operand_group,
    parse_result_types,
    print_operand_group,
    print_result_types,
)
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.loop_lowering import LoopLoweringInterface
from xlinalg.interfaces.tiling import TilingInterface
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.ir.dense_arrays import int_values
from xlinalg.ir.slices import dim_of, domain_of, slice_of


@irdl_op_definition
class ScatterOp(CoveringResultTiles, LinalgExtOp, LoopLoweringInterface, TilingInterface):
    name = "iree_linalg_ext.scatter"

    dimension_map = prop_def(DenseArrayBase)
    unique_indices = prop_def(BoolAttr)
    region = region_def("single_block")

    def dim_map(self) -> list[int]:
        return int_values(self.dimension_map)

    @property
    def is_unique(self) -> bool:
        return bool(self.unique_indices.value.data)

    def slice_offset(self) -> int:
        """The dim of `original` the first slice dim of `updates` lands on."""
        return len(shape(self.outputs[0])) - (len(shape(self.inputs[0])) - 1)

    def verify_(self) -> None:
        self.verify_destination_style()
        if len(self.inputs) != 2 or len(self.outputs) != 1:
            raise self.fail("expected two inputs (updates, indices) and one output (original)")
        updates, indices, original = self.inputs[0], self.inputs[1], self.outputs[0]
        u_shape, i_shape, o_shape = shape(updates), shape(indices), shape(original)
        if len(i_shape) != 2:
            raise self.fail(
                f"expected indices to be 2-D (num_updates, index_depth), got {indices.type}"
            )
        depth = i_shape[1]
        if depth < 0:
            raise self.fail("expected the index depth (dim 1 of indices) to be static")
        if not isinstance(elem(indices), (IntegerType, IndexType)):
            raise self.fail(f"expected integer indices, got {elem(indices)}")
        if len(u_shape) < 1:
            raise self.fail("expected updates of rank >= 1")
        if u_shape[0] >= 0 and i_shape[0] >= 0 and u_shape[0] != i_shape[0]:
            raise self.fail(
                f"expected updates and indices to have the same first dim (number of updates), "
                f"got {u_shape[0]} and {i_shape[0]}"
            )
        if len(o_shape) < depth + len(u_shape) - 1:
            raise self.fail(
                f"expected the original rank ({len(o_shape)}) to be at least index depth ({depth}) "
                f"+ update rank ({len(u_shape)}) - 1"
            )
        dims = self.dim_map()
        if len(dims) != depth:
            raise self.fail(
                f"expected dimension_map to have index depth ({depth}) entries, got {dims}"
            )
        if len(set(dims)) != len(dims):
            raise self.fail(f"expected dimension_map without duplicates, got {dims}")
        for d in dims:
            if not 0 <= d < len(o_shape):
                raise self.fail(f"dimension_map value {d} is out of range for rank {len(o_shape)}")
        offset = self.slice_offset()
        covered = set(dims) | set(range(offset, len(o_shape)))
        if covered != set(range(len(o_shape))):
            raise self.fail(
                f"original dims {sorted(set(range(len(o_shape))) - covered)} are addressed neither by "
                "dimension_map nor by a slice dim of updates"
            )
        for k, size in enumerate(u_shape[1:]):
            target = o_shape[offset + k]
            if size >= 0 and target >= 0 and size > target:
                raise self.fail(
                    f"update slice dim {k + 1} ({size}) exceeds original dim {offset + k} ({target})"
                )
        if elem(updates) != elem(original):
            raise self.fail("expected the updates and original element types to be equal")
        t = elem(original)
        self.verify_region_signature(self.region.block, [t, t], [t], "combiner")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" dimension_map = {print_int_list(self.dim_map())}")
        print_keyword_value(printer, "unique_indices", "true" if self.is_unique else "false")
        print_operand_group(printer, "ins", self.inputs)
        print_operand_group(printer, "outs", self.outputs)
        printer.print_string(" ")
        printer.print_region(self.region)
        print_result_types(printer, self.results_.types)

    @classmethod
    def parse(cls, parser: Parser) -> ScatterOp:
        attrs = parser.parse_optional_attr_dict()
        parser.parse_keyword("dimension_map")
        parser.parse_punctuation("=")
        dims = parse_int_list(parser)
        unique = parse_keyword_bool(parser, "unique_indices")
        inputs = parse_operand_group(parser, "ins")
        outputs = parse_operand_group(parser, "outs")
        region = parser.parse_region()
        result_types = parse_result_types(parser)
        op = cls.build(
            operands=[inputs, outputs],
            result_types=[result_types],
            properties={
                "dimension_map": DenseArrayBase.from_list(i64, dims),
                "unique_indices": BoolAttr.from_bool(unique),
            },
            regions=[region],
        )
        op.attributes.update(attrs)
        return op

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        em = Emitter(InsertPoint.before(self))
        updates, indices, original = self.inputs[0], self.inputs[1], self.outputs[0]
        rank = len(shape(original))
        offset = self.slice_offset()
        dims = self.dim_map()
        block = self.region.block
        depth_positions = [em.index(k) for k in range(len(dims))]

        def body(e: Emitter, ivs: list[SSAValue]) -> None:
            update = e.load(updates, ivs)
            starts: list[SSAValue | None] = [None] * rank
            for k, iv in enumerate(ivs[1:]):
                starts[offset + k] = iv
            for k, d in enumerate(dims):
                index = e.to_index(e.load(indices, [ivs[0], depth_positions[k]]))
                current = starts[d]
                starts[d] = index if current is None else e.addi(index, current)
            target = [s for s in starts if s is not None]
            (value,) = e.inline(block, [update, e.load(original, target)])
            e.store(value, original, target)

        em.nest(em.dims(updates), body)
        rewriter.erase_op(self)

    def get_loop_iterator_types(self) -> list[IteratorType]:
        first = IteratorType.PARALLEL if self.is_unique else IteratorType.REDUCTION
        return [first] + [IteratorType.PARALLEL] * (len(shape(self.inputs[0])) - 1)

    def untileable_loops(self) -> set[int]:
        """Slice dims that land on an indexed dim of `original` (the index is added to them)."""
        offset = self.slice_offset()
        indexed = set(self.dim_map())
        return {k + 1 for k in range(len(shape(self.inputs[0])) - 1) if offset + k in indexed}

    def get_iteration_domain(self, builder: IndexBuilder) -> list[OpFoldResult]:
        return domain_of(builder, self.inputs[0])

    def result_domain_dims(self) -> list[int | None]:
        """Per domain dim (update number, slice dims): the result dim it tiles. The updates
        are all taken (any may land in the tile: a reduction unless unique), and so is a
        slice dim landing on an indexed dim (the index is added to it); a slice dim on a
        non-indexed dim tiles that dim of `original`. Not defined (silenceable failure)
        when such a slice dim is shorter than its dim of `original` (the tile would then
        reach past the updates) or dynamic. IREE 3.13's scatter has no result-tile
        mapping (fusing it clones it whole): this follows the mathematics."""
        offset = self.slice_offset()
        indexed = set(self.dim_map())
        update_shape, original_shape = shape(self.inputs[0]), shape(self.outputs[0])
        dims: list[int | None] = [None]
        for k, size in enumerate(update_shape[1:]):
            d = offset + k
            if d in indexed:
                dims.append(None)
            elif size < 0 or size != original_shape[d]:
                raise silenceable_failure(
                    f"'{self.name}' cannot compute a tile of its result #0: update dim {k + 1} "
                    f"({size}) does not span dim {d} of the original ({original_shape[d]})"
                )
            else:
                dims.append(d)
        return dims

    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation:
        updates, indices, original = self.inputs[0], self.inputs[1], self.outputs[0]
        tiled_updates = slice_of(builder, updates, offsets, sizes)
        tiled_indices = slice_of(
            builder, indices, [offsets[0], 0], [sizes[0], dim_of(builder, indices, 1)]
        )
        rank = len(shape(original))
        offset = self.slice_offset()
        o_offsets: list[OpFoldResult] = [0] * rank
        o_sizes: list[OpFoldResult] = domain_of(builder, original)
        indexed = set(self.dim_map())
        for k in range(len(offsets) - 1):
            if offset + k not in indexed:
                o_offsets[offset + k] = offsets[k + 1]
                o_sizes[offset + k] = sizes[k + 1]
        tiled_original = slice_of(builder, original, o_offsets, o_sizes)
        return insert_tile(self, builder, [tiled_updates, tiled_indices], [tiled_original])
