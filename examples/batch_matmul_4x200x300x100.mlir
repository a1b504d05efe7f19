// C[b] += A[b] · B[b] for 4 batches of (200×100) · (100×300) f32 matrices, on buffers: an odd
// shape (B's rows 1200 bytes apart, N not a multiple of 16, short K; bench_templates.py).
func.func @batch_matmul(%A: memref<4x200x100xf32>, %B: memref<4x100x300xf32>, %C: memref<4x200x300xf32>) {
  linalg.batch_matmul ins(%A, %B : memref<4x200x100xf32>, memref<4x100x300xf32>)
                      outs(%C : memref<4x200x300xf32>)
  return
}
