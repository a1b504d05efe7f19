// linalg.batch_mmt4d (data-tiled batch matmul, f32, k0 = 1) to register-blocked FMA code
// on AVX-512: search_spaces/mmt4d.mlir with the batch loop outermost (tiled by 1).
//
// accum[b, m, n, m0, n0] += lhs[b, m, k, m0, k0] * rhs[b, n, k, n0, k0]: each (b, m, n)
// step is one m0×n0 block of the result, from an m0-wide column panel of lhs and an
// n0-wide one of rhs (each contiguous in memory: the packed layout).
// 1. generalize; batch by 1, then cache tiles (tm1 row blocks, tn1 column panels, tk steps
//    of k) in a tunable order; the register block: one (m, n) block and rk steps of k,
//    blocks in a tunable order too;
// 2. when tk does not divide K, the k loop of cache tiles is peeled (the last, partial k
//    tile gets a loop of its own, its size K mod tk static), and so is the register k loop
//    of that partial tile when rk does not divide K mod tk: every block keeps a static
//    shape, so it vectorizes without masks (K = 250, tk = 64, rk = 4: 3 tiles of 64 k
//    steps, then 14 blocks of 4 and one of 2). Peeling a loop its step divides changes
//    nothing (dividing shapes get the same code as without it);
// 3. drop the unit loops (b, m, n, k0): the block is a (k, m0, n0) contraction;
// 4. vectorize it, hoist the accumulator block out of the k loop (m0·n0/16 zmm
//    registers), outer products -> broadcast + FMA.
// The payload's m0 × n0 block must fit the registers (m0·n0 <= 384 floats; 16 accumulators,
// m0·n0 = 256, measured best).
//
// xlinalg.constraint: tk % rk == 0
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linalg.batch_mmt4d"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %tm = transform.tune.knob<"tm1"> options = [1, 2, 4, 8, 16, 32] -> !transform.param<i64>
    %tn = transform.tune.knob<"tn1"> options = [1, 2, 4, 8, 16] -> !transform.param<i64>
    %tk = transform.tune.knob<"tk"> options = [64, 128, 256, 512, 1024] -> !transform.param<i64>
    %rk = transform.tune.knob<"rk"> options = [2, 4, 8] -> !transform.param<i64>
    %one = transform.param.constant 1 : i64 -> !transform.param<i64>

    %g = transform.structured.generalize %op : (!transform.any_op) -> !transform.any_op
    // loops: b, m, n, k, m0, n0, k0
    %cache_k = transform.tune.alternatives<"cache_order"> -> !transform.any_op {
      %t, %l:4 = transform.structured.tile_using_for %g tile_sizes [%one, %tm, %tn, %tk, 0, 0, 0] interchange = [0, 1, 2, 3, 4, 5, 6]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %l#3 : !transform.any_op
    }, {
      %t, %l:4 = transform.structured.tile_using_for %g tile_sizes [%one, %tm, %tn, %tk, 0, 0, 0] interchange = [0, 2, 1, 3, 4, 5, 6]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %l#3 : !transform.any_op
    }
    // tk not dividing K: the partial k tile in a loop of its own, of static size K mod tk
    // (upstream's peel fails, silenceably, when the step divides the loop: suppressed)
    %cache_k_for = transform.cast %cache_k : !transform.any_op to !transform.op<"scf.for">
    transform.sequence %cache_k_for : !transform.op<"scf.for"> failures(suppress) {
    ^bb0(%l: !transform.op<"scf.for">):
      %k_main, %k_rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    }
    %cache = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %reg_k = transform.tune.alternatives<"reg_order"> -> !transform.any_op {
      %t, %l:3 = transform.structured.tile_using_for %cache tile_sizes [0, 1, 1, %rk, 0, 0, 0]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %l#2 : !transform.any_op
    }, {
      %t, %l:3 = transform.structured.tile_using_for %cache tile_sizes [0, 1, 1, %rk, 0, 0, 0] interchange = [0, 2, 1, 3, 4, 5, 6]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %l#2 : !transform.any_op
    }
    // rk not dividing that partial tile: its last k steps in a block of their own
    %reg_k_for = transform.cast %reg_k : !transform.any_op to !transform.op<"scf.for">
    transform.sequence %reg_k_for : !transform.op<"scf.for"> failures(suppress) {
    ^bb0(%l: !transform.op<"scf.for">):
      %r_main, %r_rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    }

    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // peeled tiles: their sizes are constants now, their views get static shapes
    transform.apply_patterns to %f {
      transform.apply_patterns.linalg.tiling_canonicalization
    } : !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
    } : !transform.any_op
    %block = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %block : !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f1 {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
    transform.yield
  }
}
