"""iree_linalg_ext ops on tensors: one-shot bufferization rebuilds them on buffers
(`DestinationStyleOpInterface`), then they lower like the memref forms."""

from __future__ import annotations

import numpy as np

import xlinalg
from xlinalg.reference.function import run_function

RNG = np.random.default_rng(5)
F32 = np.float32

SRC = """
func.func @f(%k: tensor<5x13xf32>, %x: tensor<7x5xf32>, %y: tensor<7x5xf32>, %acc: tensor<5xf32>,
             %q: tensor<1x9x4xf32>, %kk: tensor<1x11x4xf32>, %v: tensor<1x11x4xf32>, %o: tensor<1x9x4xf32>,
             %p: tensor<15x3x5xf32>)
    -> (tensor<5x13xf32>, tensor<7x5xf32>, tensor<5xf32>, tensor<1x9x4xf32>, tensor<13x15xf32>) {
  %r = iree_linalg_ext.sort dimension(1) outs(%k : tensor<5x13xf32>) {
  ^bb0(%a: f32, %b: f32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<5x13xf32>
  %s:2 = iree_linalg_ext.scan dimension(0) inclusive(true) ins(%x : tensor<7x5xf32>)
      outs(%y, %acc : tensor<7x5xf32>, tensor<5xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    iree_linalg_ext.yield %c : f32
  } -> tensor<7x5xf32>, tensor<5xf32>
  %scale = arith.constant 0.5 : f32
  %att = iree_linalg_ext.attention ins(%q, %kk, %v, %scale : tensor<1x9x4xf32>, tensor<1x11x4xf32>, tensor<1x11x4xf32>, f32)
      outs(%o : tensor<1x9x4xf32>) -> tensor<1x9x4xf32>
  %e = tensor.empty() : tensor<13x15xf32>
  %u = iree_linalg_ext.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [0] inner_tiles = [5] into %e
      : (tensor<15x3x5xf32> tensor<13x15xf32>) -> tensor<13x15xf32>
  return %r, %s#0, %s#1, %att, %u : tensor<5x13xf32>, tensor<7x5xf32>, tensor<5xf32>, tensor<1x9x4xf32>, tensor<13x15xf32>
}"""


def test_tensor_kernels_compile_and_match() -> None:
    keys = RNG.standard_normal((5, 13)).astype(F32)
    x = RNG.standard_normal((7, 5)).astype(F32)
    q, k, v = (RNG.standard_normal(s).astype(F32) for s in ((1, 9, 4), (1, 11, 4), (1, 11, 4)))
    packed = RNG.standard_normal((15, 3, 5)).astype(F32)
    args = [
        keys,
        x,
        np.zeros((7, 5), F32),
        np.zeros(5, F32),
        q,
        k,
        v,
        np.zeros((1, 9, 4), F32),
        packed,
    ]
    kernel = xlinalg.compile(SRC, entry="f")
    native = kernel(*[a.copy() for a in args])
    reference = run_function(xlinalg.parse(SRC), "f", [a.copy() for a in args])
    s = q.astype(np.float64) @ np.swapaxes(k, 1, 2) * 0.5
    p = np.exp(s - s.max(-1, keepdims=True))
    attention = (p / p.sum(-1, keepdims=True)) @ v
    # packed[j, i1, i0] = unpacked[i1 * 5 + i0, j]; the padding rows 13, 14 are dropped
    unpacked = packed.transpose(1, 2, 0).reshape(15, 15)[:13]
    for out in (native, reference):
        np.testing.assert_array_equal(out[0], np.sort(keys, axis=1))
        np.testing.assert_allclose(out[1], np.cumsum(x, axis=0), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(out[2], x.sum(axis=0), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(out[3], attention, rtol=1e-4, atol=1e-5)
        np.testing.assert_array_equal(out[4], unpacked)
    # the inputs (tensors) are not modified
    np.testing.assert_array_equal(args[0], keys)
