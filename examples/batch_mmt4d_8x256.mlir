// linalg.batch_mmt4d on pre-packed operands: 8 batches of a 256×256×256 f32 matmul in
// data-tiled form, m0 = 16 rows × n0 = 16 columns per block, k0 = 1 (lhs: 8×16×256×16×1,
// rhs: 8×16×256×16×1, accum: 8×16×16×16×16).
func.func @batch_mmt4d(%lhs: memref<8x16x256x16x1xf32>, %rhs: memref<8x16x256x16x1xf32>,
                       %acc: memref<8x16x16x16x16xf32>) {
  linalg.batch_mmt4d ins(%lhs, %rhs : memref<8x16x256x16x1xf32>, memref<8x16x256x16x1xf32>)
                     outs(%acc : memref<8x16x16x16x16xf32>)
  return
}
