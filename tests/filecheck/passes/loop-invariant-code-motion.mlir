// RUN: xlinalg opt %s --split-input-file -p loop-invariant-code-motion | filecheck %s
// RUN: xlinalg opt %s --split-input-file -p licm | filecheck %s

// Loop-invariant ops move out of loops (`licm` is upstream's alias).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<8xindex>, %[[N:[a-zA-Z0-9_]+]]: index
// CHECK:         %[[X:.*]] = arith.muli %[[N]], %[[N]] : index
// CHECK:         scf.for %[[I:[a-zA-Z0-9_]+]] =
// CHECK-NEXT:      memref.store %[[X]], %[[A]][%[[I]]] : memref<8xindex>
func.func @f(%a: memref<8xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %x = arith.muli %n, %n : index
    memref.store %x, %a[%i] : memref<8xindex>
  }
  return
}
