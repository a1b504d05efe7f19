"""`iree_linalg_ext.topk`: the first K elements along `dimension` under a comparator.

```
iree_linalg_ext.topk dimension(1) ins(%x : memref<8x10xf32>)
    outs(%vals, %idx : memref<8x3xf32>, memref<8x3xi32>) {
^bb0(%lhs: f32, %rhs: f32):       // lhs = next input, rhs = existing output
  %gt = arith.cmpf ogt, %lhs, %rhs : f32
  iree_linalg_ext.yield %gt : i1
}
```
The outputs are running results and must be initialised (e.g. -inf and 0).
Every input element, in order, is inserted into the K outputs (insertion sort
as IREE's loop lowering): it displaces an output when the comparator holds,
or on a tie when its index is smaller, so ties keep the first occurrence.
Without an index input the index is the position along `dimension`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, i1
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import irdl_op_definition
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.iree_linalg_ext.base import (
    compatible,
    elem,
    shape,
)
from xlinalg.dialects.iree_linalg_ext.loops import Emitter
from xlinalg.dialects.iree_linalg_ext.region_op import DimensionRegionOp
from xlinalg.dialects.iree_linalg_ext.tiling_utils import domain_tile_of_result, insert_tile
from xlinalg.interfaces.loop_lowering import LoopLoweringInterface
from xlinalg.interfaces.tiling import TilingInterface
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.ir.slices import dim_of, slice_of


@irdl_op_definition
class TopkOp(DimensionRegionOp, LoopLoweringInterface, TilingInterface):
    name = "iree_linalg_ext.topk"

    def verify_(self) -> None:
        self.verify_destination_style()
        if len(self.inputs) not in (1, 2):
            raise self.fail("expected one or two inputs (values, optional indices)")
        if len(self.outputs) != 2:
            raise self.fail("expected two outputs (values, indices)")
        values, out_values, out_indices = self.inputs[0], self.outputs[0], self.outputs[1]
        in_shape = shape(values)
        if not 0 <= self.dim < len(in_shape):
            raise self.fail(f"dimension {self.dim} is out of range for rank {len(in_shape)}")
        if len(self.inputs) == 2:
            if shape(self.inputs[1]) != in_shape:
                raise self.fail("expected the input values and indices to have the same shape")
            if elem(self.inputs[1]) != IntegerType(32):
                raise self.fail(f"expected the input indices to be i32, got {elem(self.inputs[1])}")
        if elem(out_indices) != IntegerType(32):
            raise self.fail(f"expected the output indices to be i32, got {elem(out_indices)}")
        if elem(values) != elem(out_values):
            raise self.fail("expected the input and output value element types to be equal")
        if shape(out_values) != shape(out_indices):
            raise self.fail("expected the output values and indices to have the same shape")
        out_shape = shape(out_values)
        if len(out_shape) != len(in_shape) or not all(
            compatible(a, b) for i, (a, b) in enumerate(zip(in_shape, out_shape)) if i != self.dim
        ):
            raise self.fail(
                f"expected the output shape {list(out_shape)} to match the input shape "
                f"{list(in_shape)} except along dimension {self.dim}"
            )
        if in_shape[self.dim] >= 0 and out_shape[self.dim] > in_shape[self.dim]:
            raise self.fail(
                f"K ({out_shape[self.dim]}) exceeds the input size {in_shape[self.dim]}"
            )
        t = elem(values)
        self.verify_region_signature(self.region.block, [t, t], [i1], "comparator")

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        em = Emitter(InsertPoint.before(self))
        values = self.inputs[0]
        in_indices = self.inputs[1] if len(self.inputs) == 2 else None
        out_values, out_indices = self.outputs[0], self.outputs[1]
        d = self.dim
        zero, one = em.index(0), em.index(1)
        k = em.dim(out_values, d)
        block = self.region.block

        def body(e: Emitter, ivs: list[SSAValue]) -> None:
            x = e.load(values, ivs)
            idx = (
                e.load(in_indices, ivs)
                if in_indices is not None
                else e.index_to(ivs[d], IntegerType(32))
            )

            def insert(e2: Emitter, j: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
                value, index = carried
                at = [*ivs]
                at[d] = j
                cur_value = e2.load(out_values, at)
                cur_index = e2.load(out_indices, at)
                (better,) = e2.inline(block, [value, cur_value])
                (worse,) = e2.inline(block, [cur_value, value])
                tie = e2.cmpi(better, worse, "eq")
                earlier = e2.cmpi(index, cur_index, "slt")
                take = e2.value(arith.OrIOp(better, e2.value(arith.AndIOp(tie, earlier))))
                e2.store(e2.select(take, value, cur_value), out_values, at)
                e2.store(e2.select(take, index, cur_index), out_indices, at)
                return [e2.select(take, cur_value, value), e2.select(take, cur_index, index)]

            e.loop_carry(zero, k, one, [x, idx], insert)

        em.nest(em.dims(values), body)
        rewriter.erase_op(self)

    def get_iteration_domain_tile_from_result_tile(
        self,
        builder: IndexBuilder,
        result_index: int,
        offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
        dims = [None if d == self.dim else d for d in range(len(offsets))]
        return domain_tile_of_result(
            self, builder, self.results[result_index], offsets, sizes, dims
        )

    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation:
        inputs = [slice_of(builder, v, offsets, sizes) for v in self.inputs]
        out_sizes = list(sizes)
        out_sizes[self.dim] = dim_of(builder, self.outputs[0], self.dim)
        outputs = [slice_of(builder, v, offsets, out_sizes) for v in self.outputs]
        return insert_tile(self, builder, inputs, outputs)
