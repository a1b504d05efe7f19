// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// The Winograd F(4, 3) output transform; on memrefs too (an xlinalg extension).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: tensor<6x6x3x3x2x2xf32>, %[[O:[a-zA-Z0-9_]+]]: tensor<2x12x12x2xf32>) -> tensor<2x12x12x2xf32>
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = linalg.winograd_output_transform fmr(F_4_3) ins(%[[M]] : tensor<6x6x3x3x2x2xf32>) outs(%[[O]] : tensor<2x12x12x2xf32>) -> tensor<2x12x12x2xf32>
func.func @f(%m: tensor<6x6x3x3x2x2xf32>, %o: tensor<2x12x12x2xf32>) -> tensor<2x12x12x2xf32> {
  %r = linalg.winograd_output_transform fmr(F_4_3) ins(%m : tensor<6x6x3x3x2x2xf32>) outs(%o : tensor<2x12x12x2xf32>) -> tensor<2x12x12x2xf32>
  return %r : tensor<2x12x12x2xf32>
}

// -----

// CHECK-LABEL: func.func @memrefs(
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: memref<6x6x3x3x2x2xf32>, %[[O:[a-zA-Z0-9_]+]]: memref<2x12x12x2xf32>)
// CHECK:         linalg.winograd_output_transform fmr(F_4_3) ins(%[[M]] : memref<6x6x3x3x2x2xf32>) outs(%[[O]] : memref<2x12x12x2xf32>)
func.func @memrefs(%m: memref<6x6x3x3x2x2xf32>, %o: memref<2x12x12x2xf32>) {
  linalg.winograd_output_transform fmr(F_4_3) ins(%m : memref<6x6x3x3x2x2xf32>) outs(%o : memref<2x12x12x2xf32>)
  return
}

// -----

// The older attribute form `m(4) r(3)` is kept as written.

// CHECK-LABEL: func.func @legacy_form(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<6x6x2x2x2x2xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<2x8x8x2xf32>) -> tensor<2x8x8x2xf32>
// CHECK:         %{{.*}} = linalg.winograd_output_transform m(4) r(3) ins(%[[X]] : tensor<6x6x2x2x2x2xf32>) outs(%[[Y]] : tensor<2x8x8x2xf32>) -> tensor<2x8x8x2xf32>
func.func @legacy_form(%x: tensor<6x6x2x2x2x2xf32>, %y: tensor<2x8x8x2xf32>) -> tensor<2x8x8x2xf32> {
  %r = linalg.winograd_output_transform m(4) r(3) ins(%x : tensor<6x6x2x2x2x2xf32>) outs(%y : tensor<2x8x8x2xf32>) -> tensor<2x8x8x2xf32>
  return %r : tensor<2x8x8x2xf32>
}
