"""tile_using_for on memrefs: structure of the emitted loops/subviews and numerical equivalence.

Payloads run before and after tiling through the project's NumPy oracle
(`xlinalg.reference.function.run_function`), on shapes that the tile sizes do
not divide. A `linalg.generic` whose body the tiler rewrote with `affine.apply`
(the `linalg.index` offsets) runs through a tiny test-local interpreter instead,
since the reference does not evaluate affine ops inside linalg bodies.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import affine, arith, func, memref
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue

from xlinalg.dialects.linalg import GenericOp
from xlinalg.errors import TransformFailure
from xlinalg.transforms.tiling.tile_using_for import TilingResult, tile_using_for

from support import parse_module as parse
from support.tiling import (
    DYNAMIC_MM,
    IOTA,
    MATMUL_MAPS,
    MM_SHAPES,
    STATIC_MM,
    check_same_result,
    check_upstream_syntax,
    count,
    matmul_generic,
    random_inputs,
    reparse,
    run_func,
    the_op,
)


def test_static_non_dividing_tiles_structure_and_numerics() -> None:
    module = parse(STATIC_MM)
    result = tile_using_for(the_op(module), [8, 16, 5])
    module.verify()
    assert isinstance(result, TilingResult)
    assert len(result.loops) == 3
    assert [arith_value(loop.step) for loop in result.loops] == [8, 16, 5]
    assert [arith_value(loop.ub) for loop in result.loops] == [37, 29, 23]
    assert count(module, affine.MinOp) == 3
    assert count(module, memref.SubviewOp) == 3
    assert result.tiled_op.parent_op() is result.loops[-1]
    assert the_op(module) is result.tiled_op
    printed = str(module)
    assert "memref<37x23xf32> to memref<?x?xf32, strided<[23, 1], offset: ?>>" in printed
    assert "memref<23x29xf32> to memref<?x?xf32, strided<[29, 1], offset: ?>>" in printed
    check_same_result(parse(STATIC_MM), reparse(module), MM_SHAPES)
    check_upstream_syntax(module)


def arith_value(value: SSAValue) -> int:
    owner = value.owner
    assert isinstance(owner, arith.ConstantOp)
    assert isinstance(owner.value, IntegerAttr)
    return owner.value.value.data


def test_dividing_tiles_need_no_min_and_have_static_subview_sizes() -> None:
    text = matmul_generic("memref<32x24xf32>", "memref<24x16xf32>", "memref<32x16xf32>")
    module = parse(text)
    result = tile_using_for(the_op(module), [8, 4, 6])
    module.verify()
    assert count(module, affine.MinOp) == 0
    printed = str(module)
    assert "memref<32x24xf32> to memref<8x6xf32, strided<[24, 1], offset: ?>>" in printed
    assert "memref<32x16xf32> to memref<8x4xf32, strided<[16, 1], offset: ?>>" in printed
    assert len(result.loops) == 3
    check_same_result(parse(text), reparse(module), [(32, 24), (24, 16), (32, 16)])


def test_partial_static_division_only_mins_where_needed() -> None:
    module = parse(STATIC_MM)
    tile_using_for(the_op(module), [1, 29])  # 1 always fits; 29 divides 29; k untiled
    assert count(module, affine.MinOp) == 0
    printed = str(module)
    assert "memref<37x23xf32> to memref<1x23xf32, strided<[23, 1], offset: ?>>" in printed
    check_same_result(parse(STATIC_MM), reparse(module), MM_SHAPES)


def test_dynamic_shapes_use_memref_dim_and_min() -> None:
    module = parse(DYNAMIC_MM)
    result = tile_using_for(the_op(module), [8, 16, 5])
    module.verify()
    assert count(module, memref.DimOp) == 3
    assert count(module, affine.MinOp) == 3
    assert all(isinstance(loop.ub.owner, memref.DimOp) for loop in result.loops)
    assert "memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>" in str(module)
    check_same_result(parse(DYNAMIC_MM), reparse(module), MM_SHAPES)
    # other dynamic sizes through the same tiled function
    check_same_result(parse(DYNAMIC_MM), reparse(module), [(16, 5), (5, 33), (16, 33)])
    check_same_result(parse(DYNAMIC_MM), reparse(module), [(3, 2), (2, 1), (3, 1)])


def test_zero_sizes_and_padding() -> None:
    module = parse(STATIC_MM)
    result = tile_using_for(the_op(module), [0, 7])  # only j tiled; k padded with 0
    assert len(result.loops) == 1
    assert arith_value(result.loops[0].step) == 7
    # A[d0, d2] uses no tiled loop: passed through without a subview
    tiled = result.tiled_op
    assert isinstance(tiled, GenericOp)
    assert (
        tiled.inputs[0]
        is next(op for op in module.walk() if isinstance(op, func.FuncOp)).body.block.args[0]
    )
    assert count(module, memref.SubviewOp) == 2
    check_same_result(parse(STATIC_MM), reparse(module), MM_SHAPES)


def test_interchange_orders_loops() -> None:
    module = parse(STATIC_MM)
    result = tile_using_for(the_op(module), [8, 16, 5], interchange=[2, 0, 1])
    assert [arith_value(loop.step) for loop in result.loops] == [5, 8, 16]
    assert [arith_value(loop.ub) for loop in result.loops] == [23, 37, 29]
    for outer, inner in zip(result.loops, result.loops[1:]):
        assert inner.parent_op() is outer
    check_same_result(parse(STATIC_MM), reparse(module), MM_SHAPES)
    # partial interchange is filled with the identity: [1] -> [1, 0, 2]? no: [1, 1, 2] invalid
    module = parse(STATIC_MM)
    with pytest.raises(TransformFailure) as info:
        tile_using_for(the_op(module), [8, 16, 5], interchange=[1])
    assert info.value.silenceable
    module = parse(STATIC_MM)
    result = tile_using_for(the_op(module), [8, 0, 5], interchange=[2, 1, 0])
    assert [arith_value(loop.step) for loop in result.loops] == [5, 8]


def test_two_level_tiling() -> None:
    module = parse(STATIC_MM)
    outer = tile_using_for(the_op(module), [16, 16, 8], interchange=[0, 2, 1])
    inner = tile_using_for(outer.tiled_op, [4, 4])
    module.verify()
    assert len(outer.loops) == 3
    assert len(inner.loops) == 2
    # inner loop bounds are the outer tile extents (the affine.min results)
    assert isinstance(inner.loops[0].ub.owner, affine.MinOp)
    assert inner.loops[0].parent_op() is outer.loops[-1]
    assert count(module, memref.SubviewOp) == 6
    assert (
        "memref<?x?xf32, strided<[23, 1], offset: ?>> to memref<?x?xf32, strided<[23, 1], offset: ?>>"
        in str(module)
    )
    check_same_result(parse(STATIC_MM), reparse(module), MM_SHAPES)
    check_upstream_syntax(module)


def test_two_level_dividing_keeps_static_types() -> None:
    text = matmul_generic("memref<32x32xf32>", "memref<32x32xf32>", "memref<32x32xf32>")
    module = parse(text)
    outer = tile_using_for(the_op(module), [16, 16, 16])
    tile_using_for(outer.tiled_op, [4, 8, 1])
    module.verify()
    assert count(module, affine.MinOp) == 0
    printed = str(module)
    assert (
        "memref<16x16xf32, strided<[32, 1], offset: ?>> to memref<4x1xf32, strided<[32, 1], offset: ?>>"
        in printed
    )
    check_same_result(parse(text), reparse(module), [(32, 32)] * 3)


def test_reduction_dim_tiling_accumulates() -> None:
    text = """
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @rowsum(%A: memref<13x?xf32>, %B: memref<13xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%A : memref<13x?xf32>) outs(%B : memref<13xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
"""
    module = parse(text)
    result = tile_using_for(the_op(module), [0, 4])
    assert len(result.loops) == 1
    assert isinstance(result.loops[0].ub.owner, memref.DimOp)
    printed = str(module)
    assert "memref<13x?xf32> to memref<13x?xf32, strided<[?, 1], offset: ?>>" in printed
    check_same_result(parse(text), reparse(module), [(13, 19), (13,)], name="rowsum")


def test_linalg_index_is_offset_by_tile_origin() -> None:
    text = IOTA
    module = parse(text)
    result = tile_using_for(the_op(module), [4, 3])
    tiled = result.tiled_op
    assert isinstance(tiled, GenericOp)
    applies = [op for op in tiled.body.walk() if isinstance(op, affine.ApplyOp)]
    assert len(applies) == 2
    ivs = {loop.body.block.args[0] for loop in result.loops}
    assert all(set(a.mapOperands) & ivs for a in applies)
    a = random_inputs([(11, 7), (11, 7)])
    ref = a[0] + (np.arange(11)[:, None] * 100 + np.arange(7)[None, :]).astype(np.float32)
    check_same_result(parse(text), reparse(module), [(11, 7), (11, 7)], name="iota", local=True)
    check_upstream_syntax(module)
    b = [x.copy() for x in a]
    trace = run_func(reparse(module), "iota", b).trace
    assert sum(1 for kind, _ in trace if kind == "linalg") == 3 * 3  # ceil(11/4) * ceil(7/3)
    np.testing.assert_allclose(b[1], ref)


def test_window_map_sum_of_dims() -> None:
    """A 1-D convolution written as a generic with `d0 + d1`: subview size = map(extents - 1) + 1."""
    text = """
#x = affine_map<(d0, d1) -> (d0 + d1)>
#w = affine_map<(d0, d1) -> (d1)>
#o = affine_map<(d0, d1) -> (d0)>
func.func @conv(%X: memref<20xf32>, %W: memref<5xf32>, %O: memref<16xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "reduction"]}
      ins(%X, %W : memref<20xf32>, memref<5xf32>) outs(%O : memref<16xf32>) {
  ^bb0(%x: f32, %w: f32, %o: f32):
    %m = arith.mulf %x, %w : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}
"""
    module = parse(text)
    result = tile_using_for(the_op(module), [6, 2])
    module.verify()
    x_view = result.tiled_op.operands[0].owner
    assert isinstance(x_view, memref.SubviewOp)
    # offset iv0 + iv1, size e0 + e1 - 1: both dynamic -> affine.apply ops
    assert len(x_view.offsets) == 1
    assert isinstance(x_view.offsets[0].owner, affine.ApplyOp)
    assert len(x_view.sizes) == 1
    assert isinstance(x_view.sizes[0].owner, affine.ApplyOp)
    check_same_result(parse(text), reparse(module), [(20,), (5,), (16,)], name="conv")
    check_upstream_syntax(module)
    # only the output dim tiled: X size = e0 + 5 - 1
    module = parse(text)
    result = tile_using_for(the_op(module), [4])
    assert "memref<20xf32> to memref<8xf32, strided<[1], offset: ?>>" in str(module)
    check_same_result(parse(text), reparse(module), [(20,), (5,), (16,)], name="conv")


def test_named_op_tiling() -> None:
    text = """
func.func @mm(%A: memref<37x23xf32>, %B: memref<23x29xf32>, %C: memref<37x29xf32>) {
  linalg.matmul ins(%A, %B : memref<37x23xf32>, memref<23x29xf32>) outs(%C : memref<37x29xf32>)
  return
}
"""
    module = parse(text)
    op = next(op for op in module.walk() if op.name == "linalg.matmul")
    result = tile_using_for(op, [8, 16, 5])
    module.verify()
    assert result.tiled_op.name == "linalg.matmul"
    assert len(result.loops) == 3
    check_same_result(parse(text), reparse(module), MM_SHAPES)


def test_failures_are_silenceable() -> None:
    module = parse(STATIC_MM)
    op = the_op(module)
    for sizes, interchange in (([1, 2, 3, 4], ()), ([-1], ()), ([4], [0, 0, 1]), ([4], [3])):
        with pytest.raises(TransformFailure) as info:
            tile_using_for(op, sizes, interchange)
        assert info.value.silenceable
    assert the_op(module) is op  # untouched
    tensor = (
        MATMUL_MAPS
        + """
func.func @mm(%A: tensor<4x4xf32>, %B: tensor<4x4xf32>, %C: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : tensor<4x4xf32>, tensor<4x4xf32>) outs(%C : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
"""
    )
    module = parse(tensor)
    # Tensor semantics are supported now (tests/transforms/tiling/test_tile_tensor.py); bad sizes still fail.
    with pytest.raises(TransformFailure, match="too many tile sizes") as info:
        tile_using_for(the_op(module), [2, 2, 2, 2])
    assert info.value.silenceable
    module = parse(STATIC_MM)
    ret = next(op for op in module.walk() if isinstance(op, func.ReturnOp))
    with pytest.raises(TransformFailure, match="not a linalg structured op"):
        tile_using_for(ret, [2])


def test_all_zero_sizes_keeps_an_equivalent_op() -> None:
    module = parse(STATIC_MM)
    result = tile_using_for(the_op(module), [0, 0, 0])
    assert result.loops == []
    assert the_op(module) is result.tiled_op
    check_same_result(parse(STATIC_MM), reparse(module), MM_SHAPES)


def test_precondition_failures_leave_ir_untouched() -> None:
    non_strided = """
#t = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%A: memref<4x6xf32, #t>, %O: memref<4x6xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%A : memref<4x6xf32, #t>) outs(%O : memref<4x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
"""
    no_range = """
#x = affine_map<(d0, d1) -> (d0 + d1)>
#o = affine_map<(d0, d1) -> (d0)>
func.func @f(%X: memref<20xf32>, %O: memref<16xf32>) {
  linalg.generic {indexing_maps = [#x, #o], iterator_types = ["parallel", "reduction"]}
      ins(%X : memref<20xf32>) outs(%O : memref<16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  }
  return
}
"""
    for text, match in ((non_strided, "strided subview"), (no_range, "range of loop #1")):
        module = parse(text)
        before = str(module)
        with pytest.raises(TransformFailure, match=match) as info:
            tile_using_for(the_op(module), [2, 2])
        assert info.value.silenceable
        assert str(module) == before


NAMED = """
func.func @named(%A: memref<13x?xf32>, %T: memref<?x13xf32>, %v: memref<?xf32>, %y: memref<13xf32>,
                 %Bc: memref<5x13x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.transpose ins(%A : memref<13x?xf32>) outs(%T : memref<?x13xf32>) permutation = [1, 0]
  linalg.fill ins(%zero : f32) outs(%y : memref<13xf32>)
  linalg.matvec ins(%A, %v : memref<13x?xf32>, memref<?xf32>) outs(%y : memref<13xf32>)
  linalg.broadcast ins(%A : memref<13x?xf32>) outs(%Bc : memref<5x13x?xf32>) dimensions = [0]
  return
}
"""


@pytest.mark.parametrize(
    ("name", "sizes"),
    [
        ("linalg.transpose", [4, 5]),
        ("linalg.fill", [6]),
        ("linalg.matvec", [4, 3]),
        ("linalg.matvec", [0, 3]),
        ("linalg.broadcast", [2, 4, 3]),
    ],
)
def test_named_ops_tile_to_the_same_result(name: str, sizes: list[int]) -> None:
    module = parse(NAMED)
    op = next(o for o in module.walk() if o.name == name)
    result = tile_using_for(op, sizes)
    module.verify()
    assert result.tiled_op.name == name
    assert len(result.loops) == sum(1 for s in sizes if s)
    shapes = [(13, 10), (10, 13), (10,), (13,), (5, 13, 10)]
    for out in (1, 3, 4):
        check_same_result(parse(NAMED), reparse(module), shapes, name="named", out=out)
