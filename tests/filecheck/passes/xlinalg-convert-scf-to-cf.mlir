// RUN: xlinalg opt %s --split-input-file -p xlinalg-convert-scf-to-cf | filecheck %s

// scf.for / scf.if become blocks with cf.br / cf.cond_br.

// CHECK-LABEL: func.func @f(
// CHECK-NOT:     scf.for
// CHECK:         cf.br ^[[HEADER:.*]](%{{.*}} : index)
// CHECK:       ^[[HEADER]](%[[I:.*]]: index):
// CHECK:         %[[GO:.*]] = arith.cmpi slt, %[[I]], %{{.*}} : index
// CHECK:         cf.cond_br %[[GO]], ^{{.*}}, ^{{.*}}
func.func @f(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %a[%i] : memref<8xf32>
    memref.store %x, %a[%i] : memref<8xf32>
  }
  return
}
