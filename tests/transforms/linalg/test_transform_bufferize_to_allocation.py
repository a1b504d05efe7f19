"""transform.structured.bufferize_to_allocation: the spec's worked example (with the
removed `memref.tensor_store` spelled as today's `materialize_in_destination`),
the tensor.pad fast path (same IR as iree-opt), destination-style ops, every
option, return forms, failures and the consumed handle; transformed kernels run
against the untransformed ones."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import memref

import xlinalg
from xlinalg.dialects.bufferization import ToTensorOp
from xlinalg.dialects.linalg import CopyOp
from xlinalg.errors import XlinalgError
from xlinalg.interpreter import apply_schedule
from xlinalg.interpreter import parse_module as parse_schedule
from xlinalg.transforms.bufferization.materialize import lower_materializations

from support import needs_iree, parse_module
from support.fusion import same_tensor_results, untransformed
from support.transform import apply, fails, schedule, upstream

TESTED_OPS = ["transform.structured.bufferize_to_allocation"]

ANY = "!transform.any_op"

SPEC = """
func.func @f() {
  %0 = "some_op"() : () -> (tensor<10xf32>)
  "some_use"(%0) : (tensor<10xf32>) -> ()
  func.return
}
"""

CHAIN = """
func.func @f(%a: tensor<10x7xf32>, %b: tensor<10x7xf32>) -> tensor<10x7xf32> {
  %e = tensor.empty() : tensor<10x7xf32>
  %0 = linalg.add ins(%a, %b : tensor<10x7xf32>, tensor<10x7xf32>) outs(%e : tensor<10x7xf32>) -> tensor<10x7xf32>
  %1 = linalg.exp ins(%0 : tensor<10x7xf32>) outs(%e : tensor<10x7xf32>) -> tensor<10x7xf32>
  return %1 : tensor<10x7xf32>
}
"""
SHAPES = [(10, 7), (10, 7)]

PAD = """
func.func @f(%a: tensor<10x7xf32>) -> tensor<12x9xf32> {
  %cst = arith.constant 1.5 : f32
  %p = tensor.pad %a low[1, 2] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<10x7xf32> to tensor<12x9xf32>
  %e = tensor.empty() : tensor<12x9xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<12x9xf32>) outs(%e : tensor<12x9xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<12x9xf32>
  return %r : tensor<12x9xf32>
}
"""


def value_of(op: str, body: str) -> str:
    return (
        f'    %op = transform.structured.match ops{{["{op}"]}} in %root : ({ANY}) -> {ANY}\n'
        f"    %v = transform.get_result %op[0] : ({ANY}) -> !transform.any_value\n{body}"
    )


def test_spec_example() -> None:
    module = parse_module(SPEC, allow_unregistered=True)
    # unregistered ops are all 'builtin.unregistered' to xDSL: the first is "some_op"
    body = (
        f'    %ops = transform.structured.match ops{{["builtin.unregistered"]}} in %root : ({ANY}) -> {ANY}\n'
        f"    %some_op, %some_use = transform.split_handle %ops : ({ANY}) -> ({ANY}, {ANY})\n"
        f"    %v = transform.get_result %some_op[0] : ({ANY}) -> !transform.any_value\n"
        "    %t = transform.structured.bufferize_to_allocation %v\n"
    )
    apply_schedule(module, parse_schedule(schedule(body)))
    ops = list(module.body.block.first_op.body.block.ops)  # type: ignore[union-attr]
    names = [getattr(op, "op_name", op.name) for op in ops]
    names = [n.data if hasattr(n, "data") else n for n in names]
    assert names == [
        "some_op",
        "memref.alloc",
        "bufferization.materialize_in_destination",
        "bufferization.to_tensor",
        "some_use",
        "func.return",
    ]
    alloc, copy, to_tensor, use = ops[1:5]
    assert str(alloc.results[0].type) == "memref<10xf32>"
    assert copy.operands[0] is ops[0].results[0]
    assert copy.operands[1] is alloc.results[0]
    assert isinstance(to_tensor, ToTensorOp)
    assert to_tensor.restrict
    assert to_tensor.writable
    assert use.operands[0] is to_tensor.results[0]


def test_value_handle_memory_space_and_results() -> None:
    body = value_of(
        "linalg.add",
        "    %buf, %new = transform.structured.bufferize_to_allocation %v <memory_space = 1 : i64> : !transform.any_value\n"
        f'    transform.annotate %new "new" : {ANY}\n',
    )
    # the buffer and the new ops: tests/filecheck/transform/structured/bufferize_to_allocation.mlir
    same_tensor_results(CHAIN, body, SHAPES)


@pytest.mark.parametrize("memcpy", ["memref.copy", "linalg.copy"])
def test_memcpy_ops_and_alloca(memcpy: str) -> None:
    body = value_of(
        "linalg.add",
        f'    %buf, %new = transform.structured.bufferize_to_allocation %v <memcpy_op = "{memcpy}", '
        'alloc_op = "memref.alloca"> : !transform.any_value\n',
    )
    same_tensor_results(CHAIN, body, SHAPES)


def test_emit_dealloc() -> None:
    body = value_of(
        "linalg.add",
        "    %buf, %new = transform.structured.bufferize_to_allocation %v <emit_dealloc> : !transform.any_value\n",
    )
    module = apply(CHAIN, body)
    dealloc = [op for op in module.walk() if isinstance(op, memref.DeallocOp)]
    assert len(dealloc) == 1
    assert dealloc[0].next_op.name == "func.return"  # type: ignore[union-attr]
    same_tensor_results(CHAIN, body, SHAPES)


def test_pad_fast_path_bufferizes_the_pad() -> None:
    body = (
        f'    %pad = transform.structured.match ops{{["tensor.pad"]}} in %root : ({ANY}) -> {ANY}\n'
        f"    %b, %n = transform.structured.bufferize_to_allocation %pad <memory_space = 3 : i64> : {ANY}\n"
    )
    same_tensor_results(PAD, body, [(10, 7)])


@needs_iree
def test_pad_fast_path_same_ir_as_upstream(tmp_path) -> None:
    body = (
        f'%pad = transform.structured.match ops{{["tensor.pad"]}} in %root : ({ANY}) -> {ANY}\n'
        f"%b, %n = transform.structured.bufferize_to_allocation %pad <memory_space = 3 : i64> : {ANY}\n"
    )
    theirs = upstream(PAD, body, tmp_path)
    ours = str(xlinalg.apply_schedule(xlinalg.parse(PAD), schedule(body)))
    wanted = (
        "memref.alloc",
        "linalg.fill",
        "memref.subview",
        "bufferization.materialize_in_destination",
        "bufferization.to_tensor",
    )

    def order_in(text: str) -> list[str]:
        return [
            name
            for line in text.splitlines()
            for name in wanted
            if any(token == name or token.startswith(name + "(") for token in line.split())
        ]

    order = order_in(theirs)
    assert order == order_in(ours)
    assert order == list(wanted)
    rng = np.random.default_rng(0)
    a = rng.random((10, 7)).astype(np.float32)
    np.testing.assert_allclose(xlinalg.compile(theirs, entry="f")(a), untransformed(PAD)(a))


def test_destination_style_op_gets_a_buffer_for_its_init() -> None:
    body = (
        f'    %add = transform.structured.match ops{{["linalg.add"]}} in %root : ({ANY}) -> {ANY}\n'
        f"    %b, %n = transform.structured.bufferize_to_allocation %add <bufferize_destination_only> : {ANY}\n"
    )
    module = apply(CHAIN, body)
    add = next(op for op in module.walk() if op.name == "linalg.add")
    assert isinstance(add.operands[2].owner, ToTensorOp)
    same_tensor_results(CHAIN, body, SHAPES)


def test_targets_without_tensors_are_dropped() -> None:
    """The spec: "always succeeds"; nothing is allocated for an op without tensors."""
    body = (
        f'    %f = transform.structured.match ops{{["func.return", "linalg.add"]}} in %root : ({ANY}) -> {ANY}\n'
        f"    %b, %n = transform.structured.bufferize_to_allocation %f : {ANY}\n"
        f'    transform.annotate %n "new" : {ANY}\n'
    )
    module = apply(CHAIN, body)
    new = [op.name for op in module.walk() if "new" in op.attributes]
    assert new == [
        "memref.alloc",
        "bufferization.materialize_in_destination",
        "bufferization.to_tensor",
    ]


def test_consumes_its_target() -> None:
    body = value_of(
        "linalg.add",
        "    %buf, %new = transform.structured.bufferize_to_allocation %v : !transform.any_value\n"
        "    %again = transform.structured.bufferize_to_allocation %v\n",
    )
    fails(CHAIN, body, silenceable=False, match="consumed")


def test_unknown_memcpy_op_does_not_verify() -> None:
    text = schedule(
        value_of(
            "linalg.add",
            '    %buf, %new = transform.structured.bufferize_to_allocation %v <memcpy_op = "memref.tensor_store"> : !transform.any_value\n',
        )
    )
    with pytest.raises(XlinalgError, match="unsupported memcpy op"):
        xlinalg.parse(text)


def test_copy_back_lowering_keeps_linalg_copy_semantics() -> None:
    """The lowering of a materialize_in_destination on tensors is a linalg.copy."""
    module = xlinalg.parse("""
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = bufferization.materialize_in_destination %a in %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}""")
    fn = module.body.block.first_op
    lower_materializations(fn)  # type: ignore[arg-type]
    assert [op.name for op in fn.body.block.ops] == ["linalg.copy", "func.return"]  # type: ignore[union-attr]
    assert any(isinstance(op, CopyOp) for op in module.walk())
