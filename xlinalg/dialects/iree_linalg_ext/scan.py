"""`iree_linalg_ext.scan`: inclusive or exclusive scan along `dimension`.

```
iree_linalg_ext.scan dimension(1) inclusive(true)
    ins(%in : memref<8x10xf32>) outs(%out, %acc : memref<8x10xf32>, memref<8xf32>) {
^bb0(%prev: f32, %x: f32):
  %s = arith.addf %prev, %x : f32
  iree_linalg_ext.yield %s : f32
}
```
`acc` has the input's shape without `dimension`. Inclusive: `out[0] = in[0]`,
`out[i] = combine(out[i-1], in[i])`. Exclusive: `out[0] = acc` (the initial
value), `out[i] = combine(out[i-1], in[i-1])`. On return `acc` holds the last
element of `out` (IREE's lowering stores it from index 1 on only, so a
scanned dimension of size 1 leaves `acc` untouched there; we always store it,
which is what "the accumulator is the running total" means).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import BoolAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.iree_linalg_ext.base import (
    compatible,
    elem,
    parse_keyword_bool,
    print_keyword_value,
    shape,
)
from xlinalg.dialects.iree_linalg_ext.loops import Emitter
from xlinalg.dialects.iree_linalg_ext.region_op import DimensionRegionOp
from xlinalg.dialects.iree_linalg_ext.tiling_utils import domain_tile_of_result, insert_tile
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.loop_lowering import LoopLoweringInterface
from xlinalg.interfaces.tiling import TilingInterface
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.ir.slices import slice_of


@irdl_op_definition
class ScanOp(DimensionRegionOp, LoopLoweringInterface, TilingInterface):
    name = "iree_linalg_ext.scan"

    inclusive = prop_def(BoolAttr)

    @property
    def is_inclusive(self) -> bool:
        return bool(self.inclusive.value.data)

    def verify_(self) -> None:
        self.verify_destination_style()
        if len(self.inputs) != 1 or len(self.outputs) != 2:
            raise self.fail("expected one input and two outputs (result, accumulator)")
        inp, out, acc = self.inputs[0], self.outputs[0], self.outputs[1]
        in_shape, out_shape, acc_shape = shape(inp), shape(out), shape(acc)
        if not 0 <= self.dim < len(in_shape):
            raise self.fail(f"dimension {self.dim} is out of range for rank {len(in_shape)}")
        if len(out_shape) != len(in_shape) or not all(map(compatible, in_shape, out_shape)):
            raise self.fail(
                f"expected the output shape {list(out_shape)} to match the input shape {list(in_shape)}"
            )
        expected_acc = [s for i, s in enumerate(in_shape) if i != self.dim]
        if len(acc_shape) != len(expected_acc) or not all(map(compatible, expected_acc, acc_shape)):
            raise self.fail(
                f"expected the accumulator shape {list(acc_shape)} to be the input shape without "
                f"dimension {self.dim}: {expected_acc}"
            )
        if not (elem(inp) == elem(out) == elem(acc)):
            raise self.fail("expected the input, output and accumulator element types to be equal")
        t = elem(out)
        self.verify_region_signature(self.region.block, [t, t], [t], "combiner")

    def print_keywords(self, printer: Printer) -> None:
        super().print_keywords(printer)
        print_keyword_value(printer, "inclusive", "true" if self.is_inclusive else "false")

    @classmethod
    def parse_keywords(cls, parser: Parser) -> dict[str, Attribute]:
        properties = super().parse_keywords(parser)
        properties["inclusive"] = BoolAttr.from_bool(parse_keyword_bool(parser, "inclusive"))
        return properties

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        em = Emitter(InsertPoint.before(self))
        inp, out, acc = self.inputs[0], self.outputs[0], self.outputs[1]
        d = self.dim
        zero, one = em.index(0), em.index(1)
        block = self.region.block
        inclusive = self.is_inclusive

        def body(e: Emitter, ivs: list[SSAValue]) -> None:
            iv = ivs[d]
            acc_idx = [v for i, v in enumerate(ivs) if i != d]

            def first(e2: Emitter) -> None:
                value = e2.load(inp, ivs) if inclusive else e2.load(acc, acc_idx)
                e2.store(value, out, ivs)
                e2.store(value, acc, acc_idx)

            def rest(e2: Emitter) -> None:
                prev = [*ivs]
                prev[d] = e2.subi(iv, one)
                x = e2.load(inp, ivs if inclusive else prev)
                (value,) = e2.inline(block, [e2.load(out, prev), x])
                e2.store(value, out, ivs)
                e2.store(value, acc, acc_idx)

            e.if_(e.cmpi(iv, zero, "eq"), first, rest)

        em.nest(em.dims(inp), body)
        rewriter.erase_op(self)

    def get_iteration_domain_tile_from_result_tile(
        self,
        builder: IndexBuilder,
        result_index: int,
        offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
        if result_index != 0:
            raise silenceable_failure(
                "'iree_linalg_ext.scan': its accumulator needs the whole scan"
            )
        dims = [None if d == self.dim else d for d in range(len(offsets))]
        return domain_tile_of_result(self, builder, self.results[0], offsets, sizes, dims)

    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation:
        d = self.dim
        inp = slice_of(builder, self.inputs[0], offsets, sizes)
        out = slice_of(builder, self.outputs[0], offsets, sizes)
        acc = slice_of(
            builder,
            self.outputs[1],
            [o for i, o in enumerate(offsets) if i != d],
            [s for i, s in enumerate(sizes) if i != d],
        )
        return insert_tile(self, builder, [inp], [out, acc])
