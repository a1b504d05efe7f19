// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A buffer rewritten at each iteration of a loop gets N copies (one allocation with a
// leading dimension of N); iteration i uses copy i mod N (printed as i - (i floordiv N) * N)
// through a subview.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[BUF:.*]] = memref.alloc() : memref<2x1x4xf32>
// CHECK:         scf.for %[[I:[a-z0-9_]+]] =
// CHECK:           %[[SLOT:.*]] = affine.apply affine_map<(d0) -> ((d0 + ((d0 floordiv 2) * -2)))> (%[[I]])
// CHECK:           %[[VIEW:.*]] = memref.subview %[[BUF]][%[[SLOT]], 0, 0] [1, 1, 4] [1, 1, 1] : memref<2x1x4xf32> to memref<1x4xf32, strided<[4, 1], offset: ?>>
// CHECK:           linalg.copy ins(%{{.*}}) outs(%[[VIEW]] : memref<1x4xf32, strided<[4, 1], offset: ?>>)
// CHECK:           linalg.add ins(%[[VIEW]], %[[VIEW]] :
// CHECK:         memref.dealloc %[[BUF]] : memref<2x1x4xf32>
func.func @f(%in: memref<6x4xf32>, %out: memref<6x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %buf = memref.alloc() : memref<1x4xf32>
  scf.for %i = %c0 to %c6 step %c1 {
    %src = memref.subview %in[%i, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<1x4xf32, strided<[4, 1], offset: ?>>
    linalg.copy ins(%src : memref<1x4xf32, strided<[4, 1], offset: ?>>) outs(%buf : memref<1x4xf32>)
    %dst = memref.subview %out[%i, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<1x4xf32, strided<[4, 1], offset: ?>>
    linalg.add ins(%buf, %buf : memref<1x4xf32>, memref<1x4xf32>) outs(%dst : memref<1x4xf32, strided<[4, 1], offset: ?>>)
  }
  memref.dealloc %buf : memref<1x4xf32>
  return
}

// CHECK: transform.memref.multibuffer %{{.*}} <factor = 2> : (!transform.op<"memref.alloc">) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["memref.alloc"]} in %root : (!transform.any_op) -> !transform.op<"memref.alloc">
    %m = transform.memref.multibuffer %a <factor = 2> : (!transform.op<"memref.alloc">) -> !transform.any_op
    transform.yield
  }
}

// -----

// skip_analysis: multibuffered even though the buffer carries data across iterations
// (it is read before it is written).

// CHECK-LABEL: func.func @skip_analysis(
// CHECK:         %[[BUF:.*]] = memref.alloc() {mb} : memref<2x1x4xf32>
// CHECK:         scf.for
// CHECK:           memref.subview %[[BUF]]
// CHECK:         memref.dealloc %[[BUF]] : memref<2x1x4xf32>
func.func @skip_analysis(%in: memref<6x4xf32>, %out: memref<6x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %buf = memref.alloc() : memref<1x4xf32>
  scf.for %i = %c0 to %c6 step %c1 {
    %dst = memref.subview %out[%i, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<1x4xf32, strided<[4, 1], offset: ?>>
    linalg.add ins(%buf, %buf : memref<1x4xf32>, memref<1x4xf32>) outs(%dst : memref<1x4xf32, strided<[4, 1], offset: ?>>)
  }
  memref.dealloc %buf : memref<1x4xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %a = transform.structured.match ops{["memref.alloc"]} in %root : (!transform.any_op) -> !transform.any_op
    %m = transform.memref.multibuffer %a <factor = 2, skip_analysis> : (!transform.any_op) -> !transform.any_op
    transform.annotate %m "mb" : !transform.any_op
    transform.yield
  }
}


// -----

func.func @not_alloc() {
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expected memref.alloc ops}}
    %m = transform.memref.multibuffer %f <factor = 2> : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
