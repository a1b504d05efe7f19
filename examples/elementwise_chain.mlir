// An elementwise chain on 2-D tensors: relu((a + b) * c), f32.
func.func @chain(%a: tensor<1024x1000xf32>, %b: tensor<1024x1000xf32>, %c: tensor<1024x1000xf32>) -> tensor<1024x1000xf32> {
  %e = tensor.empty() : tensor<1024x1000xf32>
  %0 = linalg.add ins(%a, %b : tensor<1024x1000xf32>, tensor<1024x1000xf32>) outs(%e : tensor<1024x1000xf32>) -> tensor<1024x1000xf32>
  %1 = linalg.mul ins(%0, %c : tensor<1024x1000xf32>, tensor<1024x1000xf32>) outs(%e : tensor<1024x1000xf32>) -> tensor<1024x1000xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<1024x1000xf32>) outs(%e : tensor<1024x1000xf32>) {
  ^bb0(%x: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1024x1000xf32>
  return %2 : tensor<1024x1000xf32>
}
