"""one-shot-bufferize: its in-place/copy decisions on a tiled nest and a search space, the
function signature it makes, upstream acceptance. The IR it produces for small payloads is
checked in tests/filecheck/passes/one-shot-bufferize.mlir."""

from __future__ import annotations

from pathlib import Path

import pytest
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
    reparsed = xlinalg.parse(str(module))
    fn2 = next(op for op in reparsed.walk() if op.name == "func.func")
    assert len(fn2.body.blocks[0].args) == 3
