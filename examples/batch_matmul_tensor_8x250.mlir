// C[b] = A[b] · B[b] for 8 batches of 250×250 f32 matrices on tensors, the result a new
// tensor: the payload of search_spaces/batch_matmul_mmt4d.mlir at a shape no m0, n0 or tk
// divides (the packs pad M and N, the partial k tiles are peeled).
func.func @batch_matmul(%A: tensor<8x250x250xf32>, %B: tensor<8x250x250xf32>) -> tensor<8x250x250xf32> {
  %empty = tensor.empty() : tensor<8x250x250xf32>
  %zero = arith.constant 0.0 : f32
  %C = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x250x250xf32>) -> tensor<8x250x250xf32>
  %0 = linalg.batch_matmul ins(%A, %B : tensor<8x250x250xf32>, tensor<8x250x250xf32>)
                           outs(%C : tensor<8x250x250xf32>) -> tensor<8x250x250xf32>
  return %0 : tensor<8x250x250xf32>
}
