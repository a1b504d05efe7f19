"""Payloads on tensors compile, run and match both the reference and the same kernel on memrefs."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.errors import XlinalgError

from support.tensors import (
    FILL_MATMUL_MEMREF,
    FILL_MATMUL_TENSOR,
    PAD_CONV_MEMREF,
    PAD_CONV_TENSOR,
    READ_AFTER_OVERWRITE,
)

MATMUL_TENSOR = """
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""

MATMUL_MEMREF = """
func.func @mm(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}
"""


ELEMENTWISE_TENSOR = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%x: tensor<13x7xf32>, %y: tensor<13x7xf32>) -> tensor<13x7xf32> {
  %e = tensor.empty() : tensor<13x7xf32>
  %s = linalg.add ins(%x, %y : tensor<13x7xf32>, tensor<13x7xf32>) outs(%e : tensor<13x7xf32>) -> tensor<13x7xf32>
  %t = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %x : tensor<13x7xf32>, tensor<13x7xf32>) outs(%e : tensor<13x7xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %z = math.exp %m : f32
    linalg.yield %z : f32
  } -> tensor<13x7xf32>
  %u = linalg.exp ins(%t : tensor<13x7xf32>) outs(%t : tensor<13x7xf32>) -> tensor<13x7xf32>
  return %u : tensor<13x7xf32>
}
"""

ELEMENTWISE_MEMREF = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%x: memref<13x7xf32>, %y: memref<13x7xf32>, %out: memref<13x7xf32>) {
  %s = memref.alloc() : memref<13x7xf32>
  linalg.add ins(%x, %y : memref<13x7xf32>, memref<13x7xf32>) outs(%s : memref<13x7xf32>)
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %x : memref<13x7xf32>, memref<13x7xf32>) outs(%out : memref<13x7xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %z = math.exp %m : f32
    linalg.yield %z : f32
  }
  linalg.exp ins(%out : memref<13x7xf32>) outs(%out : memref<13x7xf32>)
  memref.dealloc %s : memref<13x7xf32>
  return
}
"""


def _rand(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.uniform(-1, 1, size=shape).astype(np.float32)


def _same(
    tensor_text: str, memref_text: str, inputs: list[np.ndarray], out_shape: tuple[int, ...]
) -> None:
    on_tensors = xlinalg.compile(tensor_text)
    on_memrefs = xlinalg.compile(memref_text)
    originals = [a.copy() for a in inputs]
    got = on_tensors(*inputs)
    for before, after in zip(originals, inputs):
        np.testing.assert_array_equal(before, after)  # tensor arguments are read-only
    out = np.zeros(out_shape, np.float32)
    on_memrefs(*inputs, out)
    assert isinstance(got, np.ndarray)
    assert got.shape == out_shape
    np.testing.assert_array_equal(got, out)
    assert on_tensors.check(*inputs).ok


def test_matmul_on_tensors_matches_memrefs_and_numpy() -> None:
    rng = np.random.default_rng(0)
    a, b, c = _rand(rng, 37, 23), _rand(rng, 23, 29), _rand(rng, 37, 29)
    on_tensors = xlinalg.compile(MATMUL_TENSOR)
    got = on_tensors(a, b, c)
    np.testing.assert_allclose(got, c + a @ b, rtol=1e-5, atol=1e-5)
    c_mem = c.copy()
    xlinalg.compile(MATMUL_MEMREF)(a, b, c_mem)
    np.testing.assert_array_equal(got, c_mem)
    np.testing.assert_array_equal(c, c + 0)  # unchanged
    assert on_tensors.check(a, b, c).ok


def test_fill_matmul_on_tensors_matches_memrefs() -> None:
    rng = np.random.default_rng(1)
    a, b = _rand(rng, 17, 9), _rand(rng, 9, 21)
    _same(FILL_MATMUL_TENSOR, FILL_MATMUL_MEMREF, [a, b], (17, 21))


def test_elementwise_chain_on_tensors_matches_memrefs() -> None:
    rng = np.random.default_rng(2)
    x, y = _rand(rng, 13, 7), _rand(rng, 13, 7)
    _same(ELEMENTWISE_TENSOR, ELEMENTWISE_MEMREF, [x, y], (13, 7))


def test_pad_and_conv_like_generic_on_tensors_matches_memrefs() -> None:
    rng = np.random.default_rng(3)
    x, w = _rand(rng, 11, 9), _rand(rng, 3, 3)
    _same(PAD_CONV_TENSOR, PAD_CONV_MEMREF, [x, w], (11, 9))
    padded = np.pad(x, 1)
    want = sum(padded[i : i + 11, j : j + 9] * w[i, j] for i in range(3) for j in range(3))
    got = xlinalg.compile(PAD_CONV_TENSOR)(x, w)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


SLICES_AND_RESHAPES = """
func.func @f(%a: tensor<6x8xf32>, %n: index) -> (tensor<4x3x4xf32>, tensor<?xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tensor.extract_slice %a[1, 2] [4, 6] [1, 1] : tensor<6x8xf32> to tensor<4x6xf32>
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %two : f32
    linalg.yield %m : f32
  } -> tensor<4x6xf32>
  %ex = tensor.expand_shape %d [[0], [1, 2]] output_shape [4, 3, 2] : tensor<4x6xf32> into tensor<4x3x2xf32>
  %big = tensor.empty() : tensor<4x3x4xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%big : tensor<4x3x4xf32>) -> tensor<4x3x4xf32>
  %ins = tensor.insert_slice %ex into %z[0, 0, 1] [4, 3, 2] [1, 1, 1] : tensor<4x3x2xf32> into tensor<4x3x4xf32>
  %flat = tensor.collapse_shape %a [[0, 1]] : tensor<6x8xf32> into tensor<48xf32>
  %head = tensor.extract_slice %flat[0] [%n] [1] : tensor<48xf32> to tensor<?xf32>
  %dyn = tensor.cast %head : tensor<?xf32> to tensor<?xf32>
  %k = tensor.dim %dyn, %c0 : tensor<?xf32>
  %last = arith.subi %k, %c1 : index
  %x = tensor.extract %dyn[%last] : tensor<?xf32>
  return %ins, %dyn, %x : tensor<4x3x4xf32>, tensor<?xf32>, f32
}
"""


def test_slices_reshapes_cast_dim_extract_and_several_results() -> None:
    kernel = xlinalg.compile(SLICES_AND_RESHAPES)
    a = np.arange(48, dtype=np.float32).reshape(6, 8)
    ins, head, last = kernel(a, 5)
    want = np.zeros((4, 3, 4), np.float32)
    want[:, :, 1:3] = (2 * a[1:5, 2:8]).reshape(4, 3, 2)
    np.testing.assert_array_equal(ins, want)
    np.testing.assert_array_equal(head, a.reshape(-1)[:5])
    assert last == np.float32(4.0)
    assert kernel.check(a, 7).ok


LOOP_ITER_ARGS = """
func.func @accumulate(%x: tensor<8x5xf32>, %n: index) -> tensor<8x5xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<8x5xf32>) {
    %s = linalg.add ins(%acc, %x : tensor<8x5xf32>, tensor<8x5xf32>) outs(%acc : tensor<8x5xf32>) -> tensor<8x5xf32>
    scf.yield %s : tensor<8x5xf32>
  }
  return %r : tensor<8x5xf32>
}
"""


def test_scf_for_with_tensor_iter_args() -> None:
    kernel = xlinalg.compile(LOOP_ITER_ARGS)
    x = np.random.default_rng(4).uniform(-1, 1, (8, 5)).astype(np.float32)
    np.testing.assert_allclose(kernel(x, 3), 3 * x, rtol=1e-6)
    np.testing.assert_array_equal(kernel(x, 0), np.zeros_like(x))
    assert kernel.check(x, 4).ok


def test_value_read_after_its_buffer_is_overwritten_is_copied_first() -> None:
    # %b overwrites %a's buffer while %a is still needed: the analysis must copy.
    kernel = xlinalg.compile(READ_AFTER_OVERWRITE)
    x = np.random.default_rng(5).uniform(-1, 1, (6, 4)).astype(np.float32)
    c, a = kernel(x)
    np.testing.assert_allclose(a, np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(c, np.exp(x) - x, rtol=1e-5, atol=1e-6)
    assert kernel.check(x).ok


WRITABLE_ARGUMENT = """
func.func @scale(%n: index, %x: tensor<5xf32> {bufferization.writable = true}) -> tensor<5xf32> {
  %r = linalg.exp ins(%x : tensor<5xf32>) outs(%x : tensor<5xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}
"""


def test_writable_argument_is_updated_in_place_read_only_one_is_not() -> None:
    x = np.linspace(0, 1, 5, dtype=np.float32)
    before = x.copy()
    got = xlinalg.compile(WRITABLE_ARGUMENT)(0, x)
    np.testing.assert_allclose(got, np.exp(before), rtol=1e-6)
    np.testing.assert_allclose(x, np.exp(before), rtol=1e-6)  # written in place
    y = before.copy()
    got = xlinalg.compile(WRITABLE_ARGUMENT.replace(" {bufferization.writable = true}", ""))(0, y)
    np.testing.assert_allclose(got, np.exp(before), rtol=1e-6)
    np.testing.assert_array_equal(y, before)


def test_constant_tensor_and_timing_frees_results() -> None:
    text = """
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %k = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.mul ins(%x, %k : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
"""
    kernel = xlinalg.compile(text)
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(kernel(x), np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    assert kernel.time(x).median_s > 0  # (a static result: a caller-allocated buffer)
    assert kernel.check(x).ok


def test_returning_an_argument_returns_a_copy() -> None:
    text = """
func.func @id(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  return %x, %x : tensor<?xf32>, tensor<?xf32>
}
"""
    kernel = xlinalg.compile(text)
    x = np.arange(4, dtype=np.float32)
    first, second = kernel(x)
    assert kernel.time(x).median_s > 0  # the native repeat loop frees the returned buffers
    first[0] = 42
    np.testing.assert_array_equal(second, np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(x, np.arange(4, dtype=np.float32))


def test_unsupported_tensor_op_is_a_clear_error() -> None:
    text = """
func.func @f(%x: f32) -> tensor<4xf32> {
  %e = tensor.generate {
  ^bb0(%i: index):
    %t = tensor.splat %x : tensor<2xf32>
    %c0 = arith.constant 0 : index
    %v = tensor.extract %t[%c0] : tensor<2xf32>
    tensor.yield %v : f32
  } : tensor<4xf32>
  return %e : tensor<4xf32>
}
"""
    with pytest.raises(XlinalgError, match=r"tensor.generate.*cannot bufferize: a region"):
        xlinalg.compile(text)


def test_memref_results_of_memref_payloads_stay_rejected() -> None:
    text = "func.func @f(%a: memref<4xf32>) -> memref<4xf32> { return %a : memref<4xf32> }"
    with pytest.raises(XlinalgError, match="memref result cannot be returned"):
        xlinalg.compile(text)
