// RUN: not xlinalg opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix UNKNOWN
// RUN: not xlinalg opt %s -p 'cse{no-such-option=1}' 2>&1 | filecheck %s --check-prefix OPTION
// RUN: xlinalg opt %s -p linalg-generalize-named-ops --transform-interpreter | filecheck %s --check-prefix BEFORE
// RUN: xlinalg opt %s --transform-interpreter -p linalg-generalize-named-ops | filecheck %s --check-prefix AFTER

// -p runs passes of the registry by name; an unknown name or option is a usage error that
// lists the passes. -p and --transform-interpreter run in command-line order: the schedule
// below tiles matmuls, so it finds one only if it runs before the generalization.

// UNKNOWN: xlinalg: error: unknown pass 'no-such-pass'; the passes are: {{.*}}canonicalize, {{.*}}lower-affine
// OPTION: xlinalg: error: bad options for pass 'cse'

// BEFORE-LABEL: func.func @f(
// BEFORE-NOT:     scf.for
// BEFORE:         linalg.generic

// AFTER-LABEL: func.func @f(
// AFTER:         scf.for
// AFTER:           linalg.generic
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
