"""One-shot bufferization of the tensor ops beyond destination-passing style: splat,
from_elements, generate, pad with a computed (index-dependent) value, concat, reshape;
scf.if yielding tensors; func.call with tensor arguments and results. Each kernel is
compiled and checked against NumPy; tensor.generate also against the same loop on memrefs."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.errors import LoweringError

CREATION = """
func.func @splat(%v: f32, %n: index) -> tensor<?x3xf32> {
  %t = tensor.splat %v[%n] : tensor<?x3xf32>
  return %t : tensor<?x3xf32>
}
func.func @elements(%a: i32, %b: i32) -> tensor<2x3xi32> {
  %c = arith.addi %a, %b : i32
  %t = tensor.from_elements %a, %b, %c, %c, %b, %a : tensor<2x3xi32>
  return %t : tensor<2x3xi32>
}
func.func @generate(%n: index, %x: tensor<3xf64>) -> tensor<?x3xf64> {
  %g = tensor.generate %n {
  ^bb0(%i: index, %j: index):
    %s = arith.muli %i, %j : index
    %w = arith.index_cast %s : index to i64
    %f = arith.sitofp %w : i64 to f64
    %e = tensor.extract %x[%j] : tensor<3xf64>
    %v = arith.addf %f, %e : f64
    tensor.yield %v : f64
  } : tensor<?x3xf64>
  return %g : tensor<?x3xf64>
}
func.func @pad(%t: tensor<3x4xf32>) -> tensor<5x7xf32> {
  %p = tensor.pad %t low[1, 2] high[1, 1] {
  ^bb0(%i: index, %j: index):
    %s = arith.addi %i, %j : index
    %w = arith.index_cast %s : index to i64
    %v = arith.sitofp %w : i64 to f32
    %m = arith.negf %v : f32
    tensor.yield %m : f32
  } : tensor<3x4xf32> to tensor<5x7xf32>
  return %p : tensor<5x7xf32>
}
func.func @concat(%a: tensor<2x3xi64>, %b: tensor<?x3xi64>, %c: tensor<1x3xi64>) -> tensor<?x3xi64> {
  %t = tensor.concat dim(0) %a, %b, %c : (tensor<2x3xi64>, tensor<?x3xi64>, tensor<1x3xi64>) -> tensor<?x3xi64>
  return %t : tensor<?x3xi64>
}
func.func @concat_inner(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>) -> tensor<2x5xf32> {
  %t = tensor.concat dim(1) %a, %b : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return %t : tensor<2x5xf32>
}
func.func @reshape(%t: tensor<4x6xf32>, %shape: tensor<3xi64>) -> tensor<2x3x4xf32> {
  %r = tensor.reshape %t(%shape) : (tensor<4x6xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}
func.func @reshape_slice(%t: tensor<6x8xf32>, %shape: tensor<1xindex>) -> tensor<12xf32> {
  %s = tensor.extract_slice %t[1, 2] [3, 4] [1, 1] : tensor<6x8xf32> to tensor<3x4xf32>
  %r = tensor.reshape %s(%shape) : (tensor<3x4xf32>, tensor<1xindex>) -> tensor<12xf32>
  return %r : tensor<12xf32>
}
"""


@pytest.fixture(scope="module")
def module() -> str:
    return CREATION


def _kernel(text: str, entry: str):
    return xlinalg.compile(text, entry=entry)


def test_splat_and_from_elements(module: str) -> None:
    np.testing.assert_array_equal(
        _kernel(module, "splat")(np.float32(2.5), 4), np.full((4, 3), 2.5, np.float32)
    )
    got = _kernel(module, "elements")(np.int32(3), np.int32(-7))
    np.testing.assert_array_equal(got, np.array([[3, -7, -4], [-4, -7, 3]], np.int32))


def test_generate_reads_its_indices_and_outer_tensors(module: str) -> None:
    x = np.array([0.5, -1.0, 2.0])
    got = _kernel(module, "generate")(5, x)
    i, j = np.meshgrid(np.arange(5), np.arange(3), indexing="ij")
    np.testing.assert_array_equal(got, (i * j).astype(np.float64) + x[None, :])


def test_pad_with_a_value_computed_from_the_indices(module: str) -> None:
    t = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = _kernel(module, "pad")(t)
    i, j = np.meshgrid(np.arange(5), np.arange(7), indexing="ij")
    want = -(i + j).astype(np.float32)
    want[1:4, 2:6] = t
    np.testing.assert_array_equal(got, want)


def test_concat_static_and_dynamic(module: str) -> None:
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    b = -np.arange(12, dtype=np.int64).reshape(4, 3)
    c = np.full((1, 3), 9, np.int64)
    np.testing.assert_array_equal(_kernel(module, "concat")(a, b, c), np.concatenate([a, b, c]))
    x = np.ones((2, 3), np.float32)
    y = np.arange(4, dtype=np.float32).reshape(2, 2)
    np.testing.assert_array_equal(
        _kernel(module, "concat_inner")(x, y), np.concatenate([x, y], axis=1)
    )


def test_reshape_with_a_shape_tensor(module: str) -> None:
    t = np.arange(24, dtype=np.float32).reshape(4, 6)
    got = _kernel(module, "reshape")(t, np.array([2, 3, 4], np.int64))
    np.testing.assert_array_equal(got, t.reshape(2, 3, 4))
    s = np.arange(48, dtype=np.float32).reshape(6, 8)
    got = _kernel(module, "reshape_slice")(s, np.array([12], np.int64))
    np.testing.assert_array_equal(got, s[1:4, 2:6].reshape(12))


def test_generate_equals_the_memref_loop() -> None:
    tensors = """
func.func @k(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %e = tensor.extract %x[%i, %j] : tensor<4x5xf32>
    %m = arith.mulf %e, %e : f32
    tensor.yield %m : f32
  } : tensor<4x5xf32>
  %r = linalg.add ins(%g, %x : tensor<4x5xf32>, tensor<4x5xf32>) outs(%g : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}"""
    memrefs = """
func.func @k(%x: memref<4x5xf32>, %o: memref<4x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c5 step %c1 {
      %e = memref.load %x[%i, %j] : memref<4x5xf32>
      %m = arith.mulf %e, %e : f32
      memref.store %m, %o[%i, %j] : memref<4x5xf32>
    }
  }
  linalg.add ins(%o, %x : memref<4x5xf32>, memref<4x5xf32>) outs(%o : memref<4x5xf32>)
  return
}"""
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    got = xlinalg.compile(tensors)(x)
    out = np.zeros((4, 5), np.float32)
    xlinalg.compile(memrefs)(x, out)
    np.testing.assert_array_equal(got, out)
    np.testing.assert_allclose(got, x * x + x, rtol=1e-6)


IF = """
func.func @pick(%c: i1, %x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %r = scf.if %c -> (tensor<?x3xf32>) {
    scf.yield %x : tensor<?x3xf32>
  } else {
    %a = linalg.add ins(%x, %y : tensor<?x3xf32>, tensor<?x3xf32>) outs(%y : tensor<?x3xf32>) -> tensor<?x3xf32>
    scf.yield %a : tensor<?x3xf32>
  }
  %d = linalg.mul ins(%r, %r : tensor<?x3xf32>, tensor<?x3xf32>) outs(%r : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %d : tensor<?x3xf32>
}
"""

IF_MEMREF = """
func.func @pick(%c: i1, %x: memref<?x3xf32>, %y: memref<?x3xf32>, %o: memref<?x3xf32>) {
  scf.if %c {
    linalg.copy ins(%x : memref<?x3xf32>) outs(%o : memref<?x3xf32>)
  } else {
    linalg.add ins(%x, %y : memref<?x3xf32>, memref<?x3xf32>) outs(%o : memref<?x3xf32>)
  }
  linalg.mul ins(%o, %o : memref<?x3xf32>, memref<?x3xf32>) outs(%o : memref<?x3xf32>)
  return
}
"""


@pytest.mark.parametrize("cond", [True, False])
def test_scf_if_yielding_tensors_equals_the_memref_kernel(cond: bool) -> None:
    rng = np.random.default_rng(1)
    x, y = (
        rng.standard_normal((5, 3), dtype=np.float32),
        rng.standard_normal((5, 3), dtype=np.float32),
    )
    keep_x, keep_y = x.copy(), y.copy()
    got = xlinalg.compile(IF)(cond, x, y)
    np.testing.assert_array_equal(x, keep_x)  # tensor arguments are never written
    np.testing.assert_array_equal(y, keep_y)
    picked = x if cond else x + y
    np.testing.assert_array_equal(got, picked * picked)
    out = np.zeros((5, 3), np.float32)
    xlinalg.compile(IF_MEMREF)(cond, x, y, out)
    np.testing.assert_array_equal(got, out)


CALLS = """
func.func @scale(%x: tensor<4x3xf32>, %s: f32) -> tensor<4x3xf32> {
  %e = tensor.empty() : tensor<4x3xf32>
  %f = linalg.fill ins(%s : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %m = linalg.mul ins(%x, %f : tensor<4x3xf32>, tensor<4x3xf32>) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %m : tensor<4x3xf32>
}
func.func @main(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %two = arith.constant 2.0 : f32
  %a = func.call @scale(%x, %two) : (tensor<4x3xf32>, f32) -> tensor<4x3xf32>
  %b = func.call @scale(%a, %two) : (tensor<4x3xf32>, f32) -> tensor<4x3xf32>
  %c = linalg.sub ins(%b, %a : tensor<4x3xf32>, tensor<4x3xf32>) outs(%a : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %b, %c : tensor<4x3xf32>, tensor<4x3xf32>
}
"""


def test_func_call_with_tensor_arguments_and_results() -> None:
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    keep = x.copy()
    b, c = xlinalg.compile(CALLS, entry="main")(x)
    np.testing.assert_array_equal(b, 4 * keep)
    np.testing.assert_array_equal(c, 2 * keep)
    np.testing.assert_array_equal(x, keep)
    np.testing.assert_array_equal(
        xlinalg.compile(CALLS, entry="scale")(x, np.float32(3.0)), 3 * keep
    )


def test_calls_that_cannot_bufferize_are_clear_errors_and_dynamic_results_run() -> None:
    dynamic = """
func.func @grow(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c = tensor.concat dim(0) %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %c : tensor<?xf32>
}
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %g = func.call @grow(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %g : tensor<?xf32>
}"""
    # a dynamically shaped result now lowers (test_call_dynamic_results.py)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(xlinalg.compile(dynamic, entry="main")(x), np.concatenate([x, x]))
    recursive = """
func.func @r(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = func.call @r(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}"""
    with pytest.raises(LoweringError, match="recursive calls with tensors"):
        xlinalg.compile(recursive)


WHILE = """
func.func @f(%x: tensor<5xf32>, %n: index) -> (tensor<5xf32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%a = %x, %i = %c0) : (tensor<5xf32>, index) -> (tensor<5xf32>, index) {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %a, %i : tensor<5xf32>, index
  } do {
  ^bb0(%b: tensor<5xf32>, %j: index):
    %d = linalg.add ins(%b, %x : tensor<5xf32>, tensor<5xf32>) outs(%b : tensor<5xf32>) -> tensor<5xf32>
    %k = arith.addi %j, %c1 : index
    scf.yield %d, %k : tensor<5xf32>, index
  }
  return %r#0, %r#1 : tensor<5xf32>, index
}
"""

WHILE_MEMREF = """
func.func @f(%x: memref<5xf32>, %n: index, %o: memref<5xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  linalg.copy ins(%x : memref<5xf32>) outs(%o : memref<5xf32>)
  %r = scf.while (%i = %c0) : (index) -> index {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %i : index
  } do {
  ^bb0(%j: index):
    linalg.add ins(%o, %x : memref<5xf32>, memref<5xf32>) outs(%o : memref<5xf32>)
    %k = arith.addi %j, %c1 : index
    scf.yield %k : index
  }
  return %r : index
}
"""


@pytest.mark.parametrize("n", [0, 1, 4])
def test_scf_while_carrying_a_tensor_equals_the_memref_kernel(n: int) -> None:
    x = np.arange(5, dtype=np.float32) - 2
    keep = x.copy()
    got, count = xlinalg.compile(WHILE)(x, n)
    np.testing.assert_array_equal(x, keep)
    assert count == n
    np.testing.assert_array_equal(got, (n + 1) * keep)
    out = np.zeros(5, np.float32)
    assert xlinalg.compile(WHILE_MEMREF)(x, n, out) == n
    np.testing.assert_array_equal(got, out)
