// linalg.mmt4d on pre-packed operands: a 1024x1024x1024 f32 matmul in data-tiled form
// (m0 = 8, n0 = 32, k0 = 1: lhs 128x1024x8x1, rhs 32x1024x32x1, accum 128x32x8x32), on buffers.
// The payload of search_spaces/mmt4d.mlir.
func.func @mmt4d(%lhs: memref<128x1024x8x1xf32>, %rhs: memref<32x1024x32x1xf32>, %acc: memref<128x32x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<128x32x8x32xf32>)
  linalg.mmt4d ins(%lhs, %rhs : memref<128x1024x8x1xf32>, memref<32x1024x32x1xf32>)
               outs(%acc : memref<128x32x8x32xf32>)
  return
}
