// ResNet layer: 3×3 conv, 56×56×64 → 56×56×64, stride 1, batch 1, NHWC/HWCF,
// input pre-padded to 58×58 (f32, on buffers; the output is accumulated into).
func.func @conv(%I: memref<1x58x58x64xf32>, %F: memref<3x3x64x64xf32>, %O: memref<1x56x56x64xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%I, %F : memref<1x58x58x64xf32>, memref<3x3x64x64xf32>)
    outs(%O : memref<1x56x56x64xf32>)
  return
}
