// Two-level tiling of linalg.matmul: cache tiles (tile_m, tile_n, tile_k) in a
// tunable loop order, then register tiles (reg_m, reg_n) of the cache tile,
// whose body is generalized and interchanged so that the innermost loop runs
// along n (contiguous in B and C: LLVM vectorizes it), then optionally unrolled.
//
// xlinalg.constraint: tile_m % reg_m == 0
// xlinalg.constraint: tile_n % reg_n == 0
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root
      : (!transform.any_op) -> !transform.any_op

    %tm = transform.tune.knob<"tile_m"> options = [16, 32, 64, 128] -> !transform.param<i64>
    %tn = transform.tune.knob<"tile_n"> options = [64, 128, 256, 512] -> !transform.param<i64>
    %tk = transform.tune.knob<"tile_k"> options = [32, 64, 128, 256] -> !transform.param<i64>
    %rm = transform.tune.knob<"reg_m"> options = [1, 2, 4, 8] -> !transform.param<i64>
    %rn = transform.tune.knob<"reg_n"> options = [16, 32, 64] -> !transform.param<i64>

    // Cache tiles, loop order m-n-k, n-m-k or m-k-n.
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
    }, {
      %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [%tm, %tn, %tk] interchange = [0, 2, 1]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }

    // Register tiles of the cache tile.
    %reg, %rl:2 = transform.structured.tile_using_for %cache tile_sizes [%rm, %rn, 0]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
      -> (!transform.any_op, !transform.any_op, !transform.any_op)

    // Loop order inside the register tile: k-m-n (outer products) or m-k-n.
    %generic = transform.structured.generalize %reg : (!transform.any_op) -> !transform.any_op
    transform.tune.alternatives<"micro_order"> {
      %i = transform.structured.interchange %generic iterator_interchange = [2, 0, 1]
        : (!transform.any_op) -> !transform.any_op
      transform.yield
    }, {
      %i = transform.structured.interchange %generic iterator_interchange = [0, 2, 1]
        : (!transform.any_op) -> !transform.any_op
      transform.yield
    }

    // Unroll the register-tile loop along n.
    transform.tune.alternatives<"unroll_n"> {
      transform.yield
    }, {
      transform.loop.unroll %rl#1 factor = 2 : !transform.any_op
      transform.yield
    }
    transform.yield
  }
}
