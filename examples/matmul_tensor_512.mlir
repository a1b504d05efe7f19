// C = A · B on tensors (512x512 · 512x512, f32), the result a new tensor: the payload of
// search_spaces/matmul_mmt4d.mlir (data tiling needs tensors: pack runs before bufferization).
func.func @matmul(%A: tensor<512x512xf32>, %B: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %empty = tensor.empty() : tensor<512x512xf32>
  %zero = arith.constant 0.0 : f32
  %C = linalg.fill ins(%zero : f32) outs(%empty : tensor<512x512xf32>) -> tensor<512x512xf32>
  %0 = linalg.matmul ins(%A, %B : tensor<512x512xf32>, tensor<512x512xf32>) outs(%C : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}
