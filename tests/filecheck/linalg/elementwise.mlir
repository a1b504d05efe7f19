// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// The elementwise op of the newer spec: its kind (the spec's `kind=#...<k>` or upstream's
// printed `<k>`; printed as `kind = #...<k>`).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: memref<4xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<4xf32>, %[[C:[a-zA-Z0-9_]+]]: memref<4xf32>)
// CHECK:         linalg.elementwise kind = #linalg.elementwise_kind<exp> ins(%[[A]] : memref<4xf32>) outs(%[[B]] : memref<4xf32>)
// CHECK:         linalg.elementwise kind = #linalg.elementwise_kind<add> ins(%[[A]], %[[B]] : memref<4xf32>, memref<4xf32>) outs(%[[C]] : memref<4xf32>)
// CHECK:         linalg.elementwise kind = #linalg.elementwise_kind<exp> ins(%[[A]] : memref<4xf32>) outs(%[[B]] : memref<4xf32>)
func.func @f(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
  linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  linalg.elementwise <add> ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%c : memref<4xf32>)
  linalg.elementwise <exp> ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  return
}
