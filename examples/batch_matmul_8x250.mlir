// C[b] += A[b] · B[b] for 8 batches of 250×250 f32 matrices, on buffers: a size no
// register block divides (16 × 16 blocks leave 10 rows and columns; bench_templates.py).
func.func @batch_matmul(%A: memref<8x250x250xf32>, %B: memref<8x250x250xf32>, %C: memref<8x250x250xf32>) {
  linalg.batch_matmul ins(%A, %B : memref<8x250x250xf32>, memref<8x250x250xf32>)
                      outs(%C : memref<8x250x250xf32>)
  return
}
