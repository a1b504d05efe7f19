// C = A · B on tensors (384x256 · 256x1000, f32), the result a new tensor: the payload of
// search_spaces/matmul_mmt4d.mlir (data tiling needs tensors: pack runs before bufferization).
func.func @matmul(%A: tensor<384x256xf32>, %B: tensor<256x1000xf32>) -> tensor<384x1000xf32> {
  %empty = tensor.empty() : tensor<384x1000xf32>
  %zero = arith.constant 0.0 : f32
  %C = linalg.fill ins(%zero : f32) outs(%empty : tensor<384x1000xf32>) -> tensor<384x1000xf32>
  %0 = linalg.matmul ins(%A, %B : tensor<384x256xf32>, tensor<256x1000xf32>) outs(%C : tensor<384x1000xf32>) -> tensor<384x1000xf32>
  return %0 : tensor<384x1000xf32>
}
