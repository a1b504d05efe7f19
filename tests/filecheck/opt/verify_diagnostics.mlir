// RUN: not xlinalg opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s

// --verify-diagnostics compares the errors with the expected-error comments, as mlir-opt
// does: a missing or an unexpected error is reported, one line each, and the command
// fails. (The chunks below are wrong on purpose; the last one is right.)

// An error expected on a line where none is produced.
// CHECK-DAG: verify_diagnostics.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: expected error "never" was not produced
func.func @missing() {
  // expected-error @below {{never}}
  return
}

// -----

// An error produced with no comment expecting it.
// CHECK-DAG: verify_diagnostics.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: unexpected error: op does not verify: 'linalg.matmul'
func.func @unexpected(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x17xf32>) -> tensor<4x17xf32> {
  // a comment that is not an expected-error
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x17xf32>) -> tensor<4x17xf32>
  return %r : tensor<4x17xf32>
}

// -----

// The right message on the wrong line: both are reported.
// CHECK-DAG: verify_diagnostics.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: unexpected error: op does not verify
// CHECK-DAG: verify_diagnostics.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: expected error "has size 17" was not produced
func.func @wrong_line(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x17xf32>) -> tensor<4x17xf32> {
  // expected-error @+2 {{has size 17}}
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x17xf32>) -> tensor<4x17xf32>
  return %r : tensor<4x17xf32>
}

// -----

// A comment on the line itself, @-1 and @above designate the line of the op: no report.
func.func @same_line(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x17xf32>) -> tensor<4x17xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x17xf32>) -> tensor<4x17xf32> // expected-error {{has size 17}}
  return %r : tensor<4x17xf32>
}

// -----

func.func @minus_one(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x17xf32>) -> tensor<4x17xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x17xf32>) -> tensor<4x17xf32>
  // expected-error @-1 {{operand #2}}
  return %r : tensor<4x17xf32>
}

// -----

func.func @above(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x17xf32>) -> tensor<4x17xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x17xf32>) -> tensor<4x17xf32>
  // expected-error @above {{loop dimension d1 has size 16}}
  return %r : tensor<4x17xf32>
}

// CHECK-NOT: error:
