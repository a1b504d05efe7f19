// Row sums: out[i] += sum_j in[i, j] for a 1024×4096 f32 matrix, on buffers.
func.func @row_sum(%in: memref<1024x4096xf32>, %out: memref<1024xf32>) {
  linalg.reduce ins(%in : memref<1024x4096xf32>) outs(%out : memref<1024xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}
