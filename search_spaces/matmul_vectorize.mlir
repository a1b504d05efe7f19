// Cache tiles + register block + vectorization of linalg.matmul (f32, AVX-512).
//
// 1. cache tiles (tile_m, tile_n, tile_k) in a tunable loop order;
// 2. a register block reg_m × reg_n (reg_n a power-of-2 multiple of 16 lanes: LLVM splits <32 x float> and
//    <64 x float> evenly into zmm registers, <48 x float> it spills) with a k
//    step reg_k, the k loop innermost;
// 3. vectorize the block (transfer_read / vector.contract / transfer_write),
//    hoist the C transfers out of the k loop (accumulators stay in registers),
//    lower the contraction to outer products and those to broadcast + FMA
//    on 1-D vectors; optionally unroll the k loop and peel the partial register
//    blocks (n; n and m; or k, n and m) so that the main blocks are unmasked.
// reg_m * reg_n / 16 accumulators must fit in the 32 zmm registers with room
// for the B rows and broadcasts: at most 24 (384 floats).
//
// xlinalg.constraint: tile_m % reg_m == 0
// xlinalg.constraint: tile_n % reg_n == 0
// xlinalg.constraint: tile_k % reg_k == 0
// xlinalg.constraint: reg_m * reg_n <= 384
// xlinalg.constraint: unroll_k == 0 or peel != 3
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root
      : (!transform.any_op) -> !transform.any_op

    %tm = transform.tune.knob<"tile_m"> options = [32, 64, 96, 128] -> !transform.param<i64>
    %tn = transform.tune.knob<"tile_n"> options = [64, 128, 256, 512] -> !transform.param<i64>
    %tk = transform.tune.knob<"tile_k"> options = [64, 128, 256, 512] -> !transform.param<i64>
    %rm = transform.tune.knob<"reg_m"> options = [4, 6, 8, 12, 16] -> !transform.param<i64>
    %rn = transform.tune.knob<"reg_n"> options = [16, 32, 64] -> !transform.param<i64>
    %rk = transform.tune.knob<"reg_k"> options = [1, 2, 4] -> !transform.param<i64>

    %cache = transform.tune.alternatives<"cache_order"> -> !transform.any_op {
      %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [%tm, %tn, %tk] interchange = [0, 1, 2]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }, {
      %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [%tm, %tn, %tk] interchange = [1, 0, 2]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }

    // Register block: loops m, n, then k innermost (the C block is loop-invariant in k).
    %reg, %rl:3 = transform.structured.tile_using_for %cache tile_sizes [%rm, %rn, %rk]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
      -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)

    // the k loop of the register block unrolled by 2 (before peeling, which consumes the
    // loops around it)
    transform.tune.alternatives<"unroll_k"> {
      transform.yield
    }, {
      transform.loop.unroll %rl#2 factor = 2 : !transform.any_op
      transform.yield
    }

    // peel = 1 (n) / 2 (n, then m) / 3 (k, n, then m): the partial register blocks of a
    // cache tile (reg_n / reg_m / reg_k not dividing what is left of N / M / K) peeled
    // into loops of their own. Without it, a cache tile that does not divide N makes the
    // n extent of every block of every tile dynamic (min(reg_n, ...)), so every block is
    // masked; peeled, the main blocks are static and unmasked and only the last block of
    // a row of tiles is masked (384x1000x256, 6x32 block, tile_n 256: the FMA loop 108
    // instructions, 32 of them masked -> 84, none masked; 0.55x -> 0.97x OpenBLAS). A
    // loop the step already divides is left as it is (on dividing shapes peel = 0 gives
    // the same code). Each peeled loop adds masked copies of the block (compile time). A
    // partial k step (K = 255, reg_k = 4) masks the k extent of every block: peel = 3
    // (383x999x255, 6x32 block: 0.63x -> 1.0x OpenBLAS; peel = 2 alone 0.58x). Not with
    // unroll_k = 1: the unroll consumed the k loop's handle (constraint).
    transform.tune.alternatives<"peel"> {
      transform.yield
    }, {
      %n_loop = transform.cast %rl#1 : !transform.any_op to !transform.op<"scf.for">
      %nm, %nr = transform.loop.peel %n_loop : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      transform.yield
    }, {
      %n_loop = transform.cast %rl#1 : !transform.any_op to !transform.op<"scf.for">
      %nm, %nr = transform.loop.peel %n_loop : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      %m_loop = transform.cast %rl#0 : !transform.any_op to !transform.op<"scf.for">
      %mp, %mr = transform.loop.peel %m_loop : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      transform.yield
    }, {
      %k_loop = transform.cast %rl#2 : !transform.any_op to !transform.op<"scf.for">
      %kp, %kr = transform.loop.peel %k_loop : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      %n_loop = transform.cast %rl#1 : !transform.any_op to !transform.op<"scf.for">
      %nm, %nr = transform.loop.peel %n_loop : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      %m_loop = transform.cast %rl#0 : !transform.any_op to !transform.op<"scf.for">
      %mp, %mr = transform.loop.peel %m_loop : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      transform.yield
    }

    // vector sizes = the register block: partial blocks at the edges of
    // non-dividing shapes get out-of-bounds (masked) transfers.
    %blks = transform.structured.match ops{["linalg.matmul"]} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %blks vector_sizes [%rm, %rn, %rk]
      : !transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>

    %f = transform.structured.match ops{["func.func"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f
      : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f1 {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
    transform.yield
  }
}
