// RUN: xlinalg opt %s --split-input-file -p one-shot-bufferize | filecheck %s

// The whole module bufferized (xlinalg's one-shot bufferization always converts function
// boundaries; a returned tensor becomes an output argument, named by xlinalg.results_from).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<4x8xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<4x8xf32>, %[[R:[a-zA-Z0-9_]+]]: memref<4x8xf32>)
// CHECK-SAME:      attributes {xlinalg.results_from = array<i64: 2>}
// CHECK:         linalg.add ins(%[[A]], %[[B]] : memref<4x8xf32>, memref<4x8xf32>) outs(%[[R]] : memref<4x8xf32>)
// CHECK-NOT:     tensor
func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.add ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A fill and a matmul into an empty tensor of dynamic size: one allocation, written in
// place and returned; the caller owns it (no dealloc).

// CHECK-LABEL: func.func @fill_matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>) -> memref<?x?xf32> attributes {xlinalg.owned_results} {
// CHECK-NOT:     {{tensor|memref.copy|memref.dealloc}}
// CHECK:         %[[BUF:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[BUF]] : memref<?x?xf32>)
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : memref<?x?xf32>, memref<?x?xf32>) outs(%[[BUF]] : memref<?x?xf32>)
// CHECK-NOT:     {{tensor|memref.alloc|memref.copy|memref.dealloc}}
// CHECK:         func.return %[[BUF]] : memref<?x?xf32>
func.func @fill_matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// The matmul reads its output: the read-only %c is copied into the result buffer (a new
// argument the caller allocates, the result's shape being static) and the matmul writes that.

// CHECK-LABEL: func.func @read_only(
// CHECK-SAME:      %{{.*}}: memref<4x4xf32>, %{{.*}}: memref<4x4xf32>, %[[C:[a-zA-Z0-9_]+]]: memref<4x4xf32>, %[[OUT:[a-zA-Z0-9_]+]]: memref<4x4xf32>) attributes {xlinalg.results_from = array<i64: 3>} {
// CHECK-NEXT:    "memref.copy"(%[[C]], %[[OUT]]) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
// CHECK-NEXT:    linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xf32>, memref<4x4xf32>) outs(%[[OUT]] : memref<4x4xf32>)
// CHECK-NEXT:    func.return
func.func @read_only(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// exp does not read its output: it writes the result buffer, no copy of the read-only
// argument.

// CHECK-LABEL: func.func @overwrite(
// CHECK-SAME:      %[[X:[a-zA-Z0-9_]+]]: memref<8xf32>, %[[OUT:[a-zA-Z0-9_]+]]: memref<8xf32>)
// CHECK-NEXT:    linalg.exp ins(%[[X]] : memref<8xf32>) outs(%[[OUT]] : memref<8xf32>)
// CHECK-NEXT:    func.return
func.func @overwrite(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.exp ins(%x : tensor<8xf32>) outs(%x : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// %a (exp's buffer) is read by add and returned: negf writes a temporary, add the other
// result buffer.

// CHECK-LABEL: func.func @read_after(
// CHECK-SAME:      %[[X:[a-zA-Z0-9_]+]]: memref<6x4xf32>, %[[R0:[a-zA-Z0-9_]+]]: memref<6x4xf32>, %[[R1:[a-zA-Z0-9_]+]]: memref<6x4xf32>)
// CHECK-NEXT:    linalg.exp ins(%[[X]] : memref<6x4xf32>) outs(%[[R1]] : memref<6x4xf32>)
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() : memref<6x4xf32>
// CHECK-NEXT:    linalg.negf ins(%[[X]] : memref<6x4xf32>) outs(%[[T]] : memref<6x4xf32>)
// CHECK-NEXT:    linalg.add ins(%[[R1]], %[[T]] : memref<6x4xf32>, memref<6x4xf32>) outs(%[[R0]] : memref<6x4xf32>)
// CHECK-NEXT:    memref.dealloc %[[T]] : memref<6x4xf32>
// CHECK-NEXT:    func.return
func.func @read_after(%x: tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<6x4xf32>) {
  %e = tensor.empty() : tensor<6x4xf32>
  %a = linalg.exp ins(%x : tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) -> tensor<6x4xf32>
  %b = linalg.negf ins(%x : tensor<6x4xf32>) outs(%a : tensor<6x4xf32>) -> tensor<6x4xf32>
  %c = linalg.add ins(%a, %b : tensor<6x4xf32>, tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) -> tensor<6x4xf32>
  return %c, %a : tensor<6x4xf32>, tensor<6x4xf32>
}

// -----

// Each op is the last use of its input: the chain stays in the result buffer.

// CHECK-LABEL: func.func @last_use(
// CHECK-SAME:      %[[X:[a-zA-Z0-9_]+]]: memref<6x4xf32>, %[[OUT:[a-zA-Z0-9_]+]]: memref<6x4xf32>)
// CHECK-NEXT:    linalg.exp ins(%[[X]] : memref<6x4xf32>) outs(%[[OUT]] : memref<6x4xf32>)
// CHECK-NEXT:    linalg.negf ins(%[[OUT]] : memref<6x4xf32>) outs(%[[OUT]] : memref<6x4xf32>)
// CHECK-NEXT:    linalg.abs ins(%[[OUT]] : memref<6x4xf32>) outs(%[[OUT]] : memref<6x4xf32>)
// CHECK-NEXT:    func.return
func.func @last_use(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %e = tensor.empty() : tensor<6x4xf32>
  %a = linalg.exp ins(%x : tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) -> tensor<6x4xf32>
  %b = linalg.negf ins(%a : tensor<6x4xf32>) outs(%a : tensor<6x4xf32>) -> tensor<6x4xf32>
  %c = linalg.abs ins(%b : tensor<6x4xf32>) outs(%b : tensor<6x4xf32>) -> tensor<6x4xf32>
  return %c : tensor<6x4xf32>
}

// -----

// A transpose never writes the buffer it reads.

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:      %{{.*}}: memref<4x4xf32>, %[[OUT:[a-zA-Z0-9_]+]]: memref<4x4xf32>)
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[T]] : memref<4x4xf32>)
// CHECK-NEXT:    linalg.transpose ins(%[[T]] : memref<4x4xf32>) outs(%[[OUT]] : memref<4x4xf32>) permutation = [1, 0]
func.func @transpose(%e0: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %one = arith.constant 1.0 : f32
  %a = linalg.fill ins(%one : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = linalg.transpose ins(%a : tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) permutation = [1, 0]
  return %t : tensor<4x4xf32>
}

// -----

// The loop's init is read after the loop: the loop works on a copy of it, made before the
// loop (nothing is copied inside).

// CHECK-LABEL: func.func @loop_init(
// CHECK-SAME:      %{{.*}}: memref<4xf32>, %{{.*}}: index, %[[R0:[a-zA-Z0-9_]+]]: memref<4xf32>, %[[R1:[a-zA-Z0-9_]+]]: memref<4xf32>)
// CHECK:         linalg.exp ins(%{{.*}} : memref<4xf32>) outs(%[[R1]] : memref<4xf32>)
// CHECK-NEXT:    "memref.copy"(%[[R1]], %[[R0]])
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      linalg.add ins(%[[R0]], %{{.*}} : memref<4xf32>, memref<4xf32>) outs(%[[R0]] : memref<4xf32>)
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @loop_init(%x: tensor<4xf32>, %n: index) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<4xf32>) {
    %s = linalg.add ins(%acc, %x : tensor<4xf32>, tensor<4xf32>) outs(%acc : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r, %init : tensor<4xf32>, tensor<4xf32>
}

// -----

// The loop yields a value computed in another buffer (a per-iteration temporary): it is
// copied into the loop's buffer, the temporary freed, in each iteration.

// CHECK-LABEL: func.func @yield(
// CHECK:         scf.for
// CHECK-NEXT:      %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:      linalg.add ins(%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>) outs(%[[T]] : memref<4xf32>)
// CHECK-NEXT:      "memref.copy"(%[[T]], %{{.*}})
// CHECK-NEXT:      memref.dealloc %[[T]] : memref<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @yield(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<4xf32>) {
    %t = tensor.empty() : tensor<4xf32>
    %s = linalg.add ins(%acc, %x : tensor<4xf32>, tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// insert_slice of a value computed elsewhere: copied into a subview of the destination,
// nothing allocated.

// CHECK-LABEL: func.func @insert_slice(
// CHECK-SAME:      %[[X:[a-zA-Z0-9_]+]]: memref<2x3xf32>, %[[OUT:[a-zA-Z0-9_]+]]: memref<4x6xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[OUT]] : memref<4x6xf32>)
// CHECK-NEXT:    %[[S:.*]] = memref.subview %[[OUT]][1, 2] [2, 3] [1, 1]
// CHECK-NEXT:    "memref.copy"(%[[X]], %[[S]])
// CHECK-NEXT:    func.return
func.func @insert_slice(%x: tensor<2x3xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %r = tensor.insert_slice %x into %z[1, 2] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// A while forwarding a tensor whose sizes are computed in the loop carries a memref.

// CHECK-LABEL: func.func @while(
// CHECK:         scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (index, memref<?xf32>) -> (memref<?xf32>, index) {
// CHECK:           scf.condition(%{{.*}}) %{{.*}}, %{{.*}} : memref<?xf32>, index
// CHECK:         } do {
// CHECK-NEXT:    ^bb0(%{{.*}}: memref<?xf32>, %{{.*}}: index):
func.func @while(%x: tensor<?xf32>, %m: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %r:2 = scf.while (%i = %c0, %a = %x) : (index, tensor<?xf32>) -> (tensor<?xf32>, index) {
    %c = arith.constant false
    %s = arith.addi %i, %m : index
    %e = tensor.empty(%s) : tensor<?xf32>
    scf.condition(%c) %e, %i : tensor<?xf32>, index
  } do {
  ^bb0(%b: tensor<?xf32>, %j: index):
    scf.yield %j, %b : index, tensor<?xf32>
  }
  return %r#0 : tensor<?xf32>
}

// -----

// A payload on memrefs is left as it is.

// CHECK-LABEL: func.func @memref(%a: memref<4xf32>, %b: memref<4xf32>) {
// CHECK-NEXT:    linalg.exp ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @memref(%a: memref<4xf32>, %b: memref<4xf32>) {
  linalg.exp ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  return
}

// -----

// The result becomes a trailing out-argument, also with argument attributes present (the
// attribute list was one entry short: the printed signature dropped the argument); the
// result attributes go with the result.

// CHECK-LABEL: func.func @attrs(%a: memref<4x4xf32>, %b: memref<4x4xf32> {bufferization.writable = true}, %0: memref<4x4xf32>) attributes {xlinalg.results_from = array<i64: 2>} {
// CHECK-NEXT:    linalg.add ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%0 : memref<4x4xf32>)
func.func @attrs(%a: tensor<4x4xf32>, %b: tensor<4x4xf32> {bufferization.writable = true})
    -> (tensor<4x4xf32> {foo.bar}) {
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.add ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>)
                  outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}


