// RUN: xlinalg opt %s --split-input-file -p linalg-generalize-named-ops,convert-linalg-to-loops | filecheck %s

// A linalg.generic on memrefs becomes scf.for loops over its iteration space (outermost
// first) around the body on loaded scalars. Differences from upstream's pass: it takes
// generics (named ops are generalized first, here by the pass before it), and an innermost
// reduction loop carries the accumulator (one load and one store of C per (i, j)).

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<4x8xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<8x16xf32>, %[[C:[a-zA-Z0-9_]+]]: memref<4x16xf32>
// CHECK:         scf.for %[[I:[a-zA-Z0-9_]+]] =
// CHECK:           scf.for %[[J:[a-zA-Z0-9_]+]] =
// CHECK:             %[[Z:.*]] = memref.load %[[C]][%[[I]], %[[J]]] : memref<4x16xf32>
// CHECK:             %[[SUM:.*]] = scf.for %[[K:[a-zA-Z0-9_]+]] = {{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (f32) {
// CHECK:               %[[X:.*]] = memref.load %[[A]][%[[I]], %[[K]]] : memref<4x8xf32>
// CHECK:               %[[Y:.*]] = memref.load %[[B]][%[[K]], %[[J]]] : memref<8x16xf32>
// CHECK:               %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK:               %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK:               scf.yield %[[S]] : f32
// CHECK:             memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]] : memref<4x16xf32>
// CHECK-NOT:     linalg.
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
