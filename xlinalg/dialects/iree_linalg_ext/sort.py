"""`iree_linalg_ext.sort`: XLA's sort of one or more operands along `dimension`.

```
iree_linalg_ext.sort dimension(1) outs(%keys, %vals : memref<8x10xf32>, memref<8x10xi32>) {
^bb0(%a: f32, %b: f32, %x: i32, %y: i32):   // (lhs, rhs) per operand
  %lt = arith.cmpf olt, %a, %b : f32
  iree_linalg_ext.yield %lt : i1
}
```
The outputs are sorted in place, together (the comparator sees every operand's
pair). The comparator says whether `lhs` must come before `rhs`. The sort is
stable: IREE's own loop lowering swaps neighbours whenever `comp(cur, next)`
is false, which reorders equal keys; we swap only when `comp(next, cur)`
holds (a stable bubble sort), the reading the XLA semantics (`is_stable`) and
`np.argsort(kind="stable")` agree with. On distinct keys both give the same result.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import i1
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import irdl_op_definition
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.iree_linalg_ext.base import (
    elem,
    shape,
)
from xlinalg.dialects.iree_linalg_ext.loops import Emitter
from xlinalg.dialects.iree_linalg_ext.region_op import DimensionRegionOp
from xlinalg.dialects.iree_linalg_ext.tiling_utils import domain_tile_of_result, tile_all_operands
from xlinalg.interfaces.loop_lowering import LoopLoweringInterface
from xlinalg.interfaces.tiling import TilingInterface
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult


@irdl_op_definition
class SortOp(DimensionRegionOp, LoopLoweringInterface, TilingInterface):
    name = "iree_linalg_ext.sort"

    def domain_value(self) -> SSAValue:
        return self.outputs[0]

    def verify_(self) -> None:
        self.verify_destination_style()
        if not self.outputs:
            raise self.fail("expected at least one output")
        first = shape(self.outputs[0])
        for value in self.outputs:
            if shape(value) != first:
                raise self.fail(
                    f"expected all outputs to have the shape {list(first)}, got {value.type}"
                )
        if not 0 <= self.dim < len(first):
            raise self.fail(f"dimension {self.dim} is out of range for rank {len(first)}")
        arg_types = [t for v in self.outputs for t in (elem(v), elem(v))]
        self.verify_region_signature(self.region.block, arg_types, [i1], "comparator")

    # ---- LoopLoweringInterface ----
    def lower_to_loops(self, rewriter: Rewriter) -> None:
        em = Emitter(InsertPoint.before(self))
        outs = list(self.outputs)
        d = self.dim
        sizes = em.dims(outs[0])
        one = em.index(1)
        zero = em.index(0)
        n_minus_1 = em.subi(sizes[d], one)
        block = self.region.block

        def inner(e: Emitter, ivs: list[SSAValue]) -> None:
            def step(e2: Emitter, _i: SSAValue) -> None:
                def swap(e3: Emitter, j: SSAValue) -> None:
                    j1 = e3.addi(j, one)
                    cur_idx = [*ivs[:d], j, *ivs[d:]]
                    nxt_idx = [*ivs[:d], j1, *ivs[d:]]
                    cur = [e3.load(v, cur_idx) for v in outs]
                    nxt = [e3.load(v, nxt_idx) for v in outs]
                    (cond,) = e3.inline(block, [x for pair in zip(nxt, cur) for x in pair])
                    for v, a, b in zip(outs, cur, nxt):
                        e3.store(e3.select(cond, b, a), v, cur_idx)
                        e3.store(e3.select(cond, a, b), v, nxt_idx)

                e2.loop(zero, n_minus_1, one, swap)

            e.loop(zero, sizes[d], one, step)

        em.nest([s for i, s in enumerate(sizes) if i != d], inner)
        rewriter.erase_op(self)

    # ---- TilingInterface ----
    def get_iteration_domain_tile_from_result_tile(
        self,
        builder: IndexBuilder,
        result_index: int,
        offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
        rank = len(offsets)
        dims = [None if d == self.dim else d for d in range(rank)]
        return domain_tile_of_result(
            self, builder, self.results[result_index], offsets, sizes, dims
        )

    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation:
        return tile_all_operands(self, builder, offsets, sizes)
