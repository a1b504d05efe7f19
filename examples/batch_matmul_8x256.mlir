// C[b] += A[b] · B[b] for 8 batches of 256×256 f32 matrices, on buffers.
func.func @batch_matmul(%A: memref<8x256x256xf32>, %B: memref<8x256x256xf32>, %C: memref<8x256x256xf32>) {
  linalg.batch_matmul ins(%A, %B : memref<8x256x256xf32>, memref<8x256x256xf32>)
                      outs(%C : memref<8x256x256xf32>)
  return
}
