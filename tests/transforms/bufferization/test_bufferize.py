"""one-shot-bufferize: the IR it produces, its in-place/copy decisions, upstream acceptance."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp

import xlinalg
from xlinalg.dialects.context import make_context
from xlinalg.lowering.pipeline import generalize_named_ops
from xlinalg.transforms.bufferization import OneShotBufferizePass

from support import needs_iree, run_iree_opt
from support.tensors import FILL_MATMUL_TENSOR as FILL_MATMUL
from support.tensors import READ_AFTER_OVERWRITE, bufferize


def count(module: ModuleOp, name: str) -> int:
    return sum(1 for op in module.walk() if op.name == name)


def no_tensors_left(module: ModuleOp) -> bool:
    return "tensor" not in str(module)


def test_fill_matmul_into_empty_is_in_place_and_the_buffer_is_returned() -> None:
    module = bufferize(FILL_MATMUL)
    text = str(module)
    assert no_tensors_left(module)
    assert count(module, "memref.alloc") == 1
    assert count(module, "memref.copy") == 0
    assert count(module, "memref.dealloc") == 0  # the caller owns the returned buffer
    assert "func.func @f(%a: memref<?x?xf32>, %b: memref<?x?xf32>) -> memref<?x?xf32>" in text
    assert "xlinalg.owned_results" in text


def test_read_only_argument_written_by_an_op_is_copied_first() -> None:
    module = bufferize("""
func.func @mm(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
""")
    # matmul reads its output: %c is copied into the result buffer (a new argument the
    # caller allocates, as the result's shape is static).
    assert count(module, "memref.alloc") == 0
    assert count(module, "memref.copy") == 1
    fn = next(iter(module.ops))
    assert len(fn.body.block.args) == 4  # type: ignore[attr-defined]
    assert "xlinalg.results_from = array<i64: 3>" in str(module)
    matmul = next(op for op in module.walk() if op.name == "linalg.matmul")
    assert matmul.operands[2] is not next(iter(module.ops)).body.block.args[2]  # type: ignore[attr-defined]


def test_overwrite_without_read_needs_no_copy_of_the_contents() -> None:
    module = bufferize("""
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.exp ins(%x : tensor<8xf32>) outs(%x : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
""")
    # The argument is read-only: exp writes the result buffer, without a copy (it does
    # not read its output).
    assert count(module, "memref.alloc") == 0
    assert count(module, "memref.copy") == 0


def test_write_into_a_buffer_whose_old_value_is_read_later_goes_elsewhere() -> None:
    module = bufferize(READ_AFTER_OVERWRITE)
    ops = {op.name: op for op in module.walk()}
    exp, negf, add = ops["linalg.exp"], ops["linalg.negf"], ops["linalg.add"]
    # %a (exp's buffer) is read by add and returned: negf and add must not overwrite it.
    assert negf.operands[-1] is not exp.operands[-1]
    assert add.operands[-1] is not exp.operands[-1]
    assert add.operands[0] is exp.operands[-1]
    assert count(module, "memref.alloc") == 1  # negf's temporary; the results are arguments
    assert count(module, "memref.dealloc") == 1


def test_last_use_allows_the_chain_to_stay_in_one_buffer() -> None:
    module = bufferize("""
func.func @f(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %e = tensor.empty() : tensor<6x4xf32>
  %a = linalg.exp ins(%x : tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) -> tensor<6x4xf32>
  %b = linalg.negf ins(%a : tensor<6x4xf32>) outs(%a : tensor<6x4xf32>) -> tensor<6x4xf32>
  %c = linalg.abs ins(%b : tensor<6x4xf32>) outs(%b : tensor<6x4xf32>) -> tensor<6x4xf32>
  return %c : tensor<6x4xf32>
}
""")
    assert count(module, "memref.alloc") == 0  # everything in the result buffer
    assert count(module, "memref.copy") == 0


def test_non_elementwise_op_never_writes_the_buffer_it_reads() -> None:
    module = bufferize("""
func.func @f(%e0: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %one = arith.constant 1.0 : f32
  %a = linalg.fill ins(%one : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = linalg.transpose ins(%a : tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) permutation = [1, 0]
  return %t : tensor<4x4xf32>
}
""")
    transpose = next(op for op in module.walk() if op.name == "linalg.transpose")
    assert transpose.operands[0] is not transpose.operands[1]


TILED = """
func.func @f(%a: tensor<37x23xf32>, %b: tensor<23x29xf32>, %c: tensor<37x29xf32>) -> tensor<37x29xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<37x23xf32>, tensor<23x29xf32>) outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
  return %r : tensor<37x29xf32>
}
"""

TILE_SCHEDULE = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [8, 0, 5] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
"""


def tiled_module() -> ModuleOp:
    module = xlinalg.apply_schedule(TILED, TILE_SCHEDULE)
    OneShotBufferizePass().apply(make_context(), module)
    module.verify()
    return module


def test_tiled_loop_nest_bufferizes_in_place_without_copies_inside_the_loops() -> None:
    module = tiled_module()
    assert no_tensors_left(module)
    loops = [op for op in module.walk() if op.name == "scf.for"]
    assert len(loops) == 2
    assert all(not loop.results for loop in loops)
    for loop in loops:
        inside = {op.name for op in loop.walk()} - {"scf.for"}
        assert "memref.copy" not in inside
        assert "memref.alloc" not in inside
    # One copy of the read-only %c before the loops, into the buffer that is returned.
    assert count(module, "memref.copy") == 1
    matmul = next(op for op in module.walk() if op.name == "linalg.matmul")
    view = matmul.operands[2].owner
    assert view.name == "memref.subview"
    result_buffer = next(iter(module.ops)).body.block.args[-1]  # type: ignore[attr-defined]
    assert view.operands[0] is result_buffer


def test_loop_init_read_after_the_loop_is_copied() -> None:
    module = bufferize("""
func.func @f(%x: tensor<4xf32>, %n: index) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<4xf32>) {
    %s = linalg.add ins(%acc, %x : tensor<4xf32>, tensor<4xf32>) outs(%acc : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r, %init : tensor<4xf32>, tensor<4xf32>
}
""")
    loop = next(op for op in module.walk() if op.name == "scf.for")
    add = next(op for op in module.walk() if op.name == "linalg.add")
    exp = next(op for op in module.walk() if op.name == "linalg.exp")
    assert add.operands[-1] is not exp.operands[-1]  # the loop works on a copy of %init
    assert count(module, "memref.copy") == 1
    assert not any(op.name == "memref.copy" for op in loop.walk())


def test_yield_of_a_value_in_another_buffer_copies_into_the_loop_buffer() -> None:
    module = bufferize("""
func.func @f(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<4xf32>) {
    %t = tensor.empty() : tensor<4xf32>
    %s = linalg.add ins(%acc, %x : tensor<4xf32>, tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
""")
    loop = next(op for op in module.walk() if op.name == "scf.for")
    inside = [op.name for op in loop.walk()]
    assert inside.count("memref.copy") == 1
    assert inside.count("memref.dealloc") == 1  # the per-iteration temporary


def test_insert_slice_of_a_value_computed_elsewhere_copies_into_the_slice() -> None:
    module = bufferize("""
func.func @f(%x: tensor<2x3xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %r = tensor.insert_slice %x into %z[1, 2] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
""")
    assert count(module, "memref.alloc") == 0
    assert count(module, "memref.copy") == 1
    assert "memref.subview" in str(module)


def test_while_forwarding_a_tensor_of_sizes_computed_in_the_loop() -> None:
    # scf.if, scf.while and func.call with tensors bufferize (test_bufferize_ops.py), also a
    # while whose condition moves a tensor to another position
    # (test_bufferize_while_permute.py); a dynamically shaped one whose sizes are not known
    # before the loop (a LoweringError before) is carried as a memref (loop_resize.py,
    # test_bufferize_loop_resize.py)
    module = bufferize("""
func.func @f(%x: tensor<?xf32>, %m: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %r:2 = scf.while (%i = %c0, %a = %x) : (index, tensor<?xf32>) -> (tensor<?xf32>, index) {
    %c = arith.constant false
    %s = arith.addi %i, %m : index
    %e = tensor.empty(%s) : tensor<?xf32>
    scf.condition(%c) %e, %i : tensor<?xf32>, index
  } do {
  ^bb0(%b: tensor<?xf32>, %j: index):
    scf.yield %j, %b : index, tensor<?xf32>
  }
  return %r#0 : tensor<?xf32>
}
""")
    loop = next(op for op in module.walk() if isinstance(op, scf.WhileOp))
    assert [str(t) for t in loop.result_types] == ["memref<?xf32>", "index"]
    assert [str(a.type) for a in loop.before_region.block.args] == ["index", "memref<?xf32>"]


def test_memref_payload_is_left_alone() -> None:
    text = """
func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {
  linalg.exp ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  return
}
"""
    assert str(bufferize(text)) == str(xlinalg.parse(text))


PAYLOADS = [
    FILL_MATMUL,
    READ_AFTER_OVERWRITE,
    """
func.func @pad(%x: tensor<?x5xf32>) -> tensor<?x9xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 2] high[3, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<?x5xf32> to tensor<?x9xf32>
  return %p : tensor<?x9xf32>
}
""",
    """
func.func @reshape(%a: tensor<6x8xf32>) -> tensor<2x3x8xf32> {
  %s = tensor.extract_slice %a[0, 1] [6, 1] [1, 1] : tensor<6x8xf32> to tensor<6xf32>
  %flat = tensor.collapse_shape %a [[0, 1]] : tensor<6x8xf32> into tensor<48xf32>
  %back = tensor.expand_shape %flat [[0, 1, 2]] output_shape [2, 3, 8] : tensor<48xf32> into tensor<2x3x8xf32>
  return %back : tensor<2x3x8xf32>
}
""",
]


@needs_iree
@pytest.mark.parametrize(
    "text",
    [*PAYLOADS, "tiled"],
    ids=["fill_matmul", "read_after_overwrite", "pad", "reshape", "tiled"],
)
def test_bufferized_ir_is_accepted_by_upstream(text: str) -> None:
    module = tiled_module() if text == "tiled" else bufferize(text)
    assert no_tensors_left(module)
    # This iree-opt's linalg has no elementwise named ops (linalg.exp, ...): print those generic.
    generalize_named_ops(module)
    done = run_iree_opt(str(module))
    assert done.returncode == 0, done.stderr


@needs_iree
def test_upstream_one_shot_bufferize_makes_the_same_in_place_choice_on_the_tiled_nest() -> None:
    tiled = str(xlinalg.apply_schedule(TILED, TILE_SCHEDULE))
    done = run_iree_opt(
        tiled,
        "--one-shot-bufferize=bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map",
    )
    assert done.returncode == 0, done.stderr
    upstream = done.stdout
    # Upstream also writes the matmul tile into a subview of the loop-carried buffer
    # and allocates nothing inside the loops (it treats arguments as writable, so it
    # needs no copy of %c; we do, before the loops).
    assert "memref.alloc" not in upstream
    assert "linalg.matmul" in upstream
    assert "outs(%subview" in upstream


TENSOR_MATMUL_128 = """
func.func @matmul(%A: tensor<128x128xf32>, %B: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %C = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r = linalg.matmul ins(%A, %B : tensor<128x128xf32>, tensor<128x128xf32>) outs(%C : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}
"""


@pytest.mark.parametrize("cache_order", [0, 1, 2])
@pytest.mark.parametrize("unroll_n", [0, 1])
def test_two_level_tiling_search_space_on_tensors_bufferizes_without_copies(
    root: Path, cache_order: int, unroll_n: int
) -> None:
    # Nested tiles (a slice of a slice of the result), unrolled loop bodies: every tile is
    # computed in place in the one returned buffer.
    knobs = {
        "tile_m": 32,
        "tile_n": 64,
        "tile_k": 32,
        "reg_m": 4,
        "reg_n": 16,
        "cache_order": cache_order,
        "micro_order": 0,
        "unroll_n": unroll_n,
    }
    space = root / "search_spaces" / "matmul_tile.mlir"
    module = xlinalg.apply_schedule(TENSOR_MATMUL_128, space, knobs)
    OneShotBufferizePass().apply(make_context(), module)
    module.verify()
    assert count(module, "memref.copy") == 0
    assert count(module, "memref.alloc") == 0


ADD_WITH_ATTRIBUTES = """
func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32> {bufferization.writable = true})
    -> (tensor<4x4xf32> {foo.bar}) {
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.add ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>)
                  outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
"""


def test_result_out_argument_keeps_the_argument_attribute_list_aligned() -> None:
    """The result becomes a trailing out-argument; with argument attributes present the
    printed signature used to drop it (arg_attrs one entry short), giving IR that names an
    undefined value. The printed module must re-parse and show all three arguments."""
    module = bufferize(ADD_WITH_ATTRIBUTES)
    fn = next(op for op in module.walk() if op.name == "func.func")
    assert len(fn.body.blocks[0].args) == 3
    assert fn.arg_attrs is not None
    assert len(fn.arg_attrs.data) == 3
    assert fn.res_attrs is None  # the only result moved into an argument
    text = str(module)
    assert "%0: memref<4x4xf32>)" in text
    reparsed = xlinalg.parse(text)
    fn2 = next(op for op in reparsed.walk() if op.name == "func.func")
    assert len(fn2.body.blocks[0].args) == 3
