"""`func.call` of a function returning dynamically shaped tensors / memrefs: the callee
allocates the result and writes its descriptor through a trailing out-pointer; the caller
passes a stack slot per memref result and rebuilds the descriptor (one slot per call site,
so calls in loops do not grow the stack). Checked end to end against NumPy."""

from __future__ import annotations

import numpy as np

import xlinalg
from xlinalg.lowering.pipeline import lower_to_llvm

TRANSPOSED = """
func.func private @transposed(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %t = linalg.transpose ins(%a : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) permutation = [1, 0]
  return %t : tensor<?x?xf32>
}
"""


def test_call_returning_a_dynamic_tensor() -> None:
    src = (
        TRANSPOSED
        + """
func.func @f(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %t = func.call @transposed(%a) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.add ins(%t, %t : tensor<?x?xf32>, tensor<?x?xf32>) outs(%t : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}"""
    )
    a = np.random.default_rng(0).standard_normal((3, 7)).astype(np.float32)
    np.testing.assert_allclose(xlinalg.compile(src, entry="f")(a), 2 * a.T, rtol=1e-6)


def test_calls_in_a_loop_with_two_dynamic_results_and_a_scalar() -> None:
    """Two memref results and an index result from one call, in a loop: each result buffer
    the caller does not return is freed; the descriptor slots are allocated once."""
    src = """
func.func private @split(%a: tensor<?xf64>, %k: index) -> (tensor<?xf64>, index, tensor<?xf64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf64>
  %rest = arith.subi %n, %k : index
  %head = tensor.extract_slice %a[0] [%k] [1] : tensor<?xf64> to tensor<?xf64>
  %tail = tensor.extract_slice %a[%k] [%rest] [1] : tensor<?xf64> to tensor<?xf64>
  %e = tensor.empty(%k) : tensor<?xf64>
  %h2 = linalg.add ins(%head, %head : tensor<?xf64>, tensor<?xf64>) outs(%e : tensor<?xf64>) -> tensor<?xf64>
  return %h2, %rest, %tail : tensor<?xf64>, index, tensor<?xf64>
}
func.func @f(%a: tensor<?xf64>, %acc: tensor<2xf64>) -> tensor<2xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c1 to %c3 step %c1 iter_args(%t = %acc) -> (tensor<2xf64>) {
    %h, %rest, %tail = func.call @split(%a, %i) : (tensor<?xf64>, index) -> (tensor<?xf64>, index, tensor<?xf64>)
    %x = tensor.extract %h[%c0] : tensor<?xf64>
    %last = arith.subi %rest, %c1 : index
    %y = tensor.extract %tail[%last] : tensor<?xf64>
    %s = arith.addf %x, %y : f64
    %j = arith.subi %i, %c1 : index
    %t2 = tensor.insert %s into %t[%j] : tensor<2xf64>
    scf.yield %t2 : tensor<2xf64>
  }
  return %r : tensor<2xf64>
}"""
    a = np.arange(1.0, 6.0)
    ir = lower_to_llvm(xlinalg.parse(src)).llvm_ir
    body = ir[ir.index("@f(") :]
    entry_block = body[: body.index(" br ")]
    assert (
        entry_block.count(" alloca ") == 2 == body.count(" alloca ")
    )  # both slots before the loop
    got = xlinalg.compile(src, entry="f")(a, np.zeros(2))
    np.testing.assert_array_equal(got, [2 * a[0] + a[-1], 2 * a[0] + a[-1]])


def test_call_of_a_memref_function_returning_an_allocation() -> None:
    src = """
func.func private @ramp(%n: index) -> memref<?xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.alloc(%n) : memref<?xi32>
  scf.for %i = %c0 to %n step %c1 {
    %v = arith.index_cast %i : index to i32
    memref.store %v, %m[%i] : memref<?xi32>
  }
  return %m : memref<?xi32>
}
func.func @f(%out: memref<5xi32>) {
  %c5 = arith.constant 5 : index
  %m = func.call @ramp(%c5) : (index) -> memref<?xi32>
  %s = "memref.cast"(%m) : (memref<?xi32>) -> memref<5xi32>
  "memref.copy"(%s, %out) : (memref<5xi32>, memref<5xi32>) -> ()
  memref.dealloc %m : memref<?xi32>
  return
}"""
    out = np.zeros(5, np.int32)
    xlinalg.compile(src, entry="f")(out)
    np.testing.assert_array_equal(out, np.arange(5))
