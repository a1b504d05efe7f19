// C = A · B on tensors (1024x1024 · 1024x1024, f32), the result a new tensor: the payload of
// search_spaces/matmul_mmt4d.mlir (data tiling needs tensors: pack runs before bufferization).
func.func @matmul(%A: tensor<1024x1024xf32>, %B: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %empty = tensor.empty() : tensor<1024x1024xf32>
  %zero = arith.constant 0.0 : f32
  %C = linalg.fill ins(%zero : f32) outs(%empty : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %0 = linalg.matmul ins(%A, %B : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%C : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
