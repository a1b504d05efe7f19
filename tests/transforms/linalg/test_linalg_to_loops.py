"""convert-linalg-to-loops: structure of the scf-level IR for generic ops.

Numerical checks of the same kernels (compiled through LLVM) are in
test_lowering_pipeline.py.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from xlinalg.dialects.context import make_context
from xlinalg.dialects.linalg import GenericOp, IndexOp
from xlinalg.errors import LoweringError
from xlinalg.lowering.pipeline import lower_to_loops, lower_to_scf
from xlinalg.transforms.linalg.to_loops import ConvertLinalgToLoopsPass, hoist_start

from support import parse_module as parse
from support.lowering import DOT, MATMUL, assert_dominance


def ops_named(module: ModuleOp, name: str) -> list[Operation]:
    return [op for op in module.walk() if op.name == name]


def loop_nest(module: ModuleOp) -> list[scf.ForOp]:
    """The chain of perfectly/imperfectly nested loops starting at the first scf.for."""
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert loops
    chain = [loops[0]]
    while True:
        inner = [op for op in chain[-1].body.block.ops if isinstance(op, scf.ForOp)]
        if not inner:
            return chain
        assert len(inner) == 1
        chain.append(inner[0])


def test_matmul_becomes_three_loops_with_hoisted_accumulator() -> None:
    module = parse(MATMUL)
    lower_to_loops(module)
    module.verify()
    assert_dominance(module)
    assert not ops_named(module, "linalg.generic")
    loops = loop_nest(module)
    assert len(loops) == 3
    # bounds: M = dim A 0, N = dim B 1, K = dim A 1 (first operand indexed by the dim)
    dims = {}
    for op in ops_named(module, "memref.dim"):
        assert isinstance(op, memref.DimOp)
        index_owner = op.index.owner
        assert isinstance(index_owner, arith.ConstantOp)
        dims[op.result] = (op.source, index_owner.value.value.data)  # type: ignore[union-attr]
    func_args = module.body.block.first_op.body.block.args  # type: ignore[union-attr]
    a, b, _ = func_args
    assert [dims[loop.ub] for loop in loops] == [(a, 0), (b, 1), (a, 1)]
    # the reduction loop carries C[i, j] in an iter_arg: one load before, one store after
    outer, middle, inner = loops
    assert len(inner.iter_args) == 1
    assert not middle.iter_args
    assert not outer.iter_args
    middle_ops = [op.name for op in middle.body.block.ops]
    assert middle_ops == ["memref.load", "scf.for", "memref.store", "scf.yield"]
    inner_ops = [op.name for op in inner.body.block.ops]
    assert inner_ops == ["memref.load", "memref.load", "arith.mulf", "arith.addf", "scf.yield"]
    loads = [op for op in inner.body.block.ops if isinstance(op, memref.LoadOp)]
    assert list(loads[0].indices) == [outer.body.block.args[0], inner.body.block.args[0]]
    assert list(loads[1].indices) == [inner.body.block.args[0], middle.body.block.args[0]]


ELEMENTWISE = """
func.func @add(%A: memref<4x?xf32>, %B: memref<4x?xf32>, %C: memref<4x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%A, %B : memref<4x?xf32>, memref<4x?xf32>) outs(%C : memref<4x?xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  }
  return
}
"""


def test_elementwise_static_and_dynamic_bounds_no_output_load() -> None:
    module = parse(ELEMENTWISE)
    lower_to_loops(module)
    module.verify()
    assert_dominance(module)
    outer, inner = loop_nest(module)
    ub_owner = outer.ub.owner
    assert isinstance(ub_owner, arith.ConstantOp)
    assert ub_owner.value.value.data == 4  # type: ignore[union-attr]
    assert isinstance(inner.ub.owner, memref.DimOp)
    # the output block argument is unused: no load of C, one store per element
    body = [op.name for op in inner.body.block.ops]
    assert body == ["memref.load", "memref.load", "arith.addf", "memref.store", "scf.yield"]
    assert hoist_start_of(ELEMENTWISE) == 2


def hoist_start_of(text: str) -> int:
    generic = next(op for op in parse(text).walk() if isinstance(op, GenericOp))
    return hoist_start(generic)


TRANSPOSE_INDEX_SCALAR = """
func.func @t(%A: memref<3x5xf32>, %s: f32, %C: memref<5x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> ()>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%A, %s : memref<3x5xf32>, f32) outs(%C : memref<5x3xf32>) {
  ^bb0(%a: f32, %x: f32, %c: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.addi %i, %j : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %0 = arith.mulf %a, %x : f32
    %1 = arith.addf %0, %kf : f32
    linalg.yield %1 : f32
  }
  return
}
"""


def test_transposed_map_index_and_scalar_operand() -> None:
    module = parse(TRANSPOSE_INDEX_SCALAR)
    func_op = module.body.block.first_op
    lower_to_loops(module)
    module.verify()
    assert_dominance(module)
    assert not any(isinstance(op, IndexOp) for op in module.walk())
    outer, inner = loop_nest(module)
    i, j = outer.body.block.args[0], inner.body.block.args[0]
    # loop ranges: d0 from A's dim 1 (5), d1 from A's dim 0 (3)
    assert [loop.ub.owner.value.value.data for loop in (outer, inner)] == [5, 3]  # type: ignore[union-attr]
    load = next(op for op in inner.body.block.ops if isinstance(op, memref.LoadOp))
    assert list(load.indices) == [j, i]
    addi = next(op for op in inner.body.block.ops if isinstance(op, arith.AddiOp))
    assert (addi.lhs, addi.rhs) == (i, j)
    mulf = next(op for op in inner.body.block.ops if isinstance(op, arith.MulfOp))
    assert mulf.rhs == func_op.body.block.args[1]  # type: ignore[union-attr]
    store = next(op for op in inner.body.block.ops if isinstance(op, memref.StoreOp))
    assert list(store.indices) == [i, j]


CONV1D = """
func.func @conv(%I: memref<?xf32>, %K: memref<3xf32>, %O: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 * 2 + d1)>, affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%I, %K : memref<?xf32>, memref<3xf32>) outs(%O : memref<?xf32>) {
  ^bb0(%i: f32, %k: f32, %o: f32):
    %0 = arith.mulf %i, %k : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
"""


def test_non_trivial_index_expression_is_arith() -> None:
    module = parse(CONV1D)
    lower_to_scf(module)
    module.verify()
    assert_dominance(module)
    outer, inner = loop_nest(module)
    assert isinstance(outer.ub.owner, memref.DimOp)  # d0 from O (I's map is not a plain dim)
    load_i = next(op for op in inner.body.block.ops if isinstance(op, memref.LoadOp))
    (index,) = load_i.indices
    add = index.owner
    assert isinstance(add, arith.AddiOp)
    assert add.rhs == inner.body.block.args[0]
    mul = add.lhs.owner
    assert isinstance(mul, arith.MuliOp)
    assert not ops_named(module, "affine.apply")


def test_rank0_output_reduction_is_carried_through_the_whole_nest() -> None:
    module = parse(DOT)
    lower_to_loops(module)
    module.verify()
    assert_dominance(module)
    (loop,) = loop_nest(module)
    assert len(loop.iter_args) == 1
    func_body = [op.name for op in module.body.block.first_op.body.block.ops]  # type: ignore[union-attr]
    assert (
        func_body.index("memref.load")
        < func_body.index("scf.for")
        < func_body.index("memref.store")
    )


ALIASING = """
func.func @alias(%A: memref<8x8xf32>) {
  %top = memref.subview %A[0, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  %bot = memref.subview %A[4, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
  %row = memref.subview %A[0, 0] [1, 4] [1, 1] : memref<8x8xf32> to memref<4xf32, strided<[1]>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%bot : memref<4x8xf32, strided<[8, 1], offset: 32>>) outs(%row : memref<4xf32, strided<[1]>>) {
  ^bb0(%a: f32, %c: f32):
    %0 = arith.addf %c, %a : f32
    linalg.yield %0 : f32
  }
  return
}
"""


def test_no_hoisting_when_input_and_output_view_the_same_buffer() -> None:
    assert hoist_start_of(ALIASING) == 2
    assert hoist_start_of(DOT) == 0
    assert hoist_start_of(MATMUL) == 2
    module = parse(ALIASING)
    lower_to_loops(module)
    module.verify()
    assert_dominance(module)
    _, inner = loop_nest(module)
    assert not inner.iter_args
    body = [op.name for op in inner.body.block.ops]
    assert body == ["memref.load", "memref.load", "arith.addf", "memref.store", "scf.yield"]


def test_zero_loop_generic_is_inlined() -> None:
    module = parse(
        """
func.func @s(%A: memref<f32>, %B: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%A : memref<f32>) outs(%B : memref<f32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = arith.negf %a : f32
    linalg.yield %0 : f32
  }
  return
}
"""
    )
    lower_to_loops(module)
    module.verify()
    assert_dominance(module)
    func_op = module.body.block.first_op
    names = [op.name for op in func_op.body.block.ops if op.name != "arith.constant"]  # type: ignore[union-attr]
    assert names == ["memref.load", "arith.negf", "memref.store", "func.return"]


def test_generic_on_tensors_is_a_lowering_error() -> None:
    module = parse(
        """
func.func @t(%A: tensor<4xf32>, %B: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%A : tensor<4xf32>) outs(%B : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""
    )
    with pytest.raises(LoweringError, match=r"'linalg.generic' \(in @t\).*bufferized"):
        ConvertLinalgToLoopsPass().apply(make_context(), module)


def test_loop_range_that_no_operand_defines_is_a_lowering_error() -> None:
    module = parse(
        """
func.func @bad(%A: memref<?xf32>, %B: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%A : memref<?xf32>) outs(%B : memref<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}
"""
    )
    with pytest.raises(LoweringError, match=r"range of loop.*d1"):
        lower_to_loops(module)


def test_location_is_reported_when_the_parser_recorded_one() -> None:
    module = parse(
        """
func.func @t(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.execute_region -> (tensor<4xf32>) {
    scf.yield %x : tensor<4xf32>
  } loc("payload.mlir":3:8)
  return %r : tensor<4xf32>
}
"""
    )
    # (Linalg on tensors is bufferized now; scf.execute_region on tensors is not supported.)
    with pytest.raises(LoweringError) as info:
        lower_to_loops(module)
    assert str(info.value).startswith("payload.mlir:3:8: error: 'scf.execute_region' (in @t)")


OUTER_PRODUCT = """
func.func @kmn(%A: memref<4x3xf32>, %B: memref<3x5xf32>, %C: memref<4x5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0)>,
                                   affine_map<(d0, d1, d2) -> (d0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d1, d2)>],
                  iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%A, %B : memref<4x3xf32>, memref<3x5xf32>) outs(%C : memref<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %c, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
"""


def test_input_loads_sit_below_the_innermost_loop_their_map_uses() -> None:
    module = parse(OUTER_PRODUCT)
    lower_to_loops(module)
    module.verify()
    assert_dominance(module)
    k_loop, m_loop, n_loop = loop_nest(module)
    # A[m, k] is loaded once per (k, m), before the n loop; B[k, n] and C[m, n] inside it
    m_body = [op.name for op in m_loop.body.block.ops]
    assert m_body == ["memref.load", "scf.for", "scf.yield"]
    n_body = [op.name for op in n_loop.body.block.ops]
    assert n_body == [
        "memref.load",
        "memref.load",
        "arith.mulf",
        "arith.addf",
        "memref.store",
        "scf.yield",
    ]
    assert not k_loop.iter_args
    assert not n_loop.iter_args  # C depends on the innermost loop


def test_input_aliasing_an_output_is_loaded_in_the_innermost_body() -> None:
    module = parse(
        """
func.func @alias(%C: memref<4x4xf32>, %B: memref<4x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0)>,
                                   affine_map<(d0, d1, d2) -> (d0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d1, d2)>],
                  iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%C, %B : memref<4x4xf32>, memref<4x4xf32>) outs(%C : memref<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %c, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
"""
    )
    lower_to_loops(module)
    module.verify()
    assert_dominance(module)
    _, m_loop, n_loop = loop_nest(module)
    assert [op.name for op in m_loop.body.block.ops] == ["scf.for", "scf.yield"]
    assert [op.name for op in n_loop.body.block.ops].count("memref.load") == 3


def test_unread_output_is_never_loaded_even_under_a_reduction_loop() -> None:
    # "last value wins" reduction over d1 that does not read the output
    text = DOT.replace("%1 = arith.addf %c, %0 : f64", "%1 = arith.addf %a, %0 : f64")
    assert hoist_start_of(text) == 1
    module = parse(text)
    lower_to_loops(module)
    module.verify()
    assert_dominance(module)
    (loop,) = loop_nest(module)
    assert not loop.iter_args
    assert [op.name for op in module.walk()].count("memref.load") == 2  # A and B only


def test_views_of_the_same_global_alias() -> None:
    module = parse(
        """
"memref.global"() <{sym_name = "g", sym_visibility = "private", type = memref<4x4xf32>,
                   initial_value = dense<1.0> : tensor<4x4xf32>}> : () -> ()
func.func @f() {
  %a = memref.get_global @g : memref<4x4xf32>
  %b = memref.get_global @g : memref<4x4xf32>
  %row = memref.subview %b[0, 0] [1, 4] [1, 1] : memref<4x4xf32> to memref<4xf32, strided<[1]>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x4xf32>) outs(%row : memref<4xf32, strided<[1]>>) {
  ^bb0(%x: f32, %acc: f32):
    %0 = arith.addf %acc, %x : f32
    linalg.yield %0 : f32
  }
  return
}
"""
    )
    generic = next(op for op in module.walk() if isinstance(op, GenericOp))
    assert hoist_start(generic) == 2


def test_payload_with_memory_effects_keeps_every_load_and_store_in_the_innermost_body() -> None:
    text = MATMUL.replace(
        "    %1 = arith.addf %c, %0 : f32\n",
        "    %1 = arith.addf %c, %0 : f32\n    %z = arith.constant 0 : index\n"
        "    memref.store %1, %A[%z, %z] : memref<?x?xf32>\n",
    )
    module = parse(text)
    generic = next(op for op in module.walk() if isinstance(op, GenericOp))
    assert hoist_start(generic) == 3
    lower_to_loops(module)
    module.verify()
    assert_dominance(module)
    *_, inner = loop_nest(module)
    names = [op.name for op in inner.body.block.ops]
    assert names.count("memref.load") == 3
    assert names.count("memref.store") == 2
