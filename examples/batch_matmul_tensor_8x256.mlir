// C[b] = A[b] · B[b] for 8 batches of 256×256 f32 matrices on tensors, the result a new
// tensor: the payload of search_spaces/batch_matmul_mmt4d.mlir (data tiling needs tensors:
// pack runs before bufferization).
func.func @batch_matmul(%A: tensor<8x256x256xf32>, %B: tensor<8x256x256xf32>) -> tensor<8x256x256xf32> {
  %empty = tensor.empty() : tensor<8x256x256xf32>
  %zero = arith.constant 0.0 : f32
  %C = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x256x256xf32>) -> tensor<8x256x256xf32>
  %0 = linalg.batch_matmul ins(%A, %B : tensor<8x256x256xf32>, tensor<8x256x256xf32>)
                           outs(%C : tensor<8x256x256xf32>) -> tensor<8x256x256xf32>
  return %0 : tensor<8x256x256xf32>
}
