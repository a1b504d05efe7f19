// RUN: not xlinalg opt %s --split-input-file 2>&1 | filecheck %s

// Each chunk between `// -----` lines is its own module; the outputs are separated by the
// same line; an error in a chunk is reported at its line in the whole file and the other
// chunks still go through (the command fails).

// CHECK: split_input_file.mlir:[[# @LINE + 13]]:{{[0-9]+}}: error: op does not verify: 'linalg.matmul'
// CHECK: func.func @first(
// CHECK: // -----
// CHECK-EMPTY:
// CHECK-NEXT: // -----
// CHECK: func.func @third(
func.func @first(%a: memref<4xf32>) {
  return
}

// -----

func.func @second(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x17xf32>) -> tensor<4x17xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x17xf32>) -> tensor<4x17xf32>
  return %r : tensor<4x17xf32>
}

// -----

func.func @third(%a: memref<4xf32>) {
  return
}
