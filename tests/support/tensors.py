"""Tensor payloads several test files share (with the same kernels written on memrefs), the
one-shot bufferization of a payload, and the payload of the analysis-only bufferization."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

import xlinalg
from xlinalg.dialects.context import make_context
from xlinalg.transforms.bufferization import OneShotBufferizePass


def bufferize(text: str) -> ModuleOp:
    """`text` parsed, one-shot bufferized and verified."""
    module = xlinalg.parse(text)
    OneShotBufferizePass().apply(make_context(), module)
    module.verify()
    return module


FILL_MATMUL_TENSOR = """
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


FILL_MATMUL_MEMREF = """
func.func @f(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}
"""


# 3x3 "valid" convolution of the input padded by 1 on each side (a "same" convolution).
PAD_CONV_TENSOR = """
#in = affine_map<(d0, d1, d2, d3) -> (d0 + d2, d1 + d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @conv(%x: tensor<11x9xf32>, %w: tensor<3x3xf32>) -> tensor<11x9xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<11x9xf32> to tensor<13x11xf32>
  %e = tensor.empty() : tensor<11x9xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<11x9xf32>) -> tensor<11x9xf32>
  %r = linalg.generic {indexing_maps = [#in, #w, #out],
                       iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%p, %w : tensor<13x11xf32>, tensor<3x3xf32>) outs(%f : tensor<11x9xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<11x9xf32>
  return %r : tensor<11x9xf32>
}
"""


PAD_CONV_MEMREF = """
#in = affine_map<(d0, d1, d2, d3) -> (d0 + d2, d1 + d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @conv(%x: memref<11x9xf32>, %w: memref<3x3xf32>, %out: memref<11x9xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<13x11xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<13x11xf32>)
  %interior = memref.subview %p[1, 1] [11, 9] [1, 1] : memref<13x11xf32> to memref<11x9xf32, strided<[11, 1], offset: 12>>
  "memref.copy"(%x, %interior) : (memref<11x9xf32>, memref<11x9xf32, strided<[11, 1], offset: 12>>) -> ()
  linalg.fill ins(%zero : f32) outs(%out : memref<11x9xf32>)
  linalg.generic {indexing_maps = [#in, #w, #out],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%p, %w : memref<13x11xf32>, memref<3x3xf32>) outs(%out : memref<11x9xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  memref.dealloc %p : memref<13x11xf32>
  return
}
"""


READ_AFTER_OVERWRITE = """
func.func @f(%x: tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<6x4xf32>) {
  %e = tensor.empty() : tensor<6x4xf32>
  %a = linalg.exp ins(%x : tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) -> tensor<6x4xf32>
  %b = linalg.negf ins(%x : tensor<6x4xf32>) outs(%a : tensor<6x4xf32>) -> tensor<6x4xf32>
  %c = linalg.add ins(%a, %b : tensor<6x4xf32>, tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) -> tensor<6x4xf32>
  return %c, %a : tensor<6x4xf32>, tensor<6x4xf32>
}
"""


# a fill and two generics whose destination is the fill (analysis-only bufferization)
ANALYSIS_PAYLOAD = """
func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.fill ins(%c : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}
"""
