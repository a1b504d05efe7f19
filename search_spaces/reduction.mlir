// Reduction over the last axis (row sums, row max, ...) of a linalg.reduce or
// an equivalent linalg.generic (f32, AVX-512), generalized first.
//
// Two strategies ("strategy"):
// 0. tile rows by reg_m and columns by tile_n, vectorize each block as one
//    vector.multi_reduction over the columns into the reg_m accumulators
//    (each row of a block folded with a horizontal vector.reduction);
// 1. split the reduction (split_reduction by 16, inner_parallel: column j
//    goes to lane j mod 16 of a partial row, so the partial sums are lane-wise
//    vector adds with no horizontal step in the loop): tile the split op to
//    reg_m rows × reg_k groups of 16 columns and vectorize it (a
//    multi_reduction over the groups: plain vector adds), then fold the 16
//    lanes per row in the combining op (vectorized by rows of reg_m).
//    Only where 16 divides the reduction extent: elsewhere split_reduction fails
//    definitely (as upstream; neither failures(suppress) nor transform.alternatives
//    recovers from that, and a constraint cannot see the payload's sizes), so on
//    such payloads strategy 1 samples are compile errors, found before LLVM runs
//    (scripts/sweep_templates.py --templates reduction).
// The accumulator block is hoisted out of the column loop either way.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match interface{LinalgOp} in %root
      : (!transform.any_op) -> !transform.any_op
    %red = transform.structured.generalize %op : (!transform.any_op) -> !transform.any_op

    %rm = transform.tune.knob<"reg_m"> options = [1, 2, 4, 8] -> !transform.param<i64>
    %tn = transform.tune.knob<"tile_n"> options = [64, 128, 256, 512] -> !transform.param<i64>
    %rk = transform.tune.knob<"reg_k"> options = [1, 2, 4, 8, 16] -> !transform.param<i64>
    %lanes = transform.param.constant 16 : i64 -> !transform.param<i64>

    transform.tune.alternatives<"strategy"> {
      %t, %l:2 = transform.structured.tile_using_for %red tile_sizes [%rm, %tn]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %t vector_sizes [%rm, %tn]
        : !transform.any_op, !transform.param<i64>, !transform.param<i64>
      transform.yield
    }, {
      %init, %fill, %split, %combine = transform.structured.split_reduction %red
        { split_factor = 16, insert_split_dimension = 1, inner_parallel }
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // split op loops: i, j / 16 (reduction), j mod 16 (parallel)
      %t, %l:2 = transform.structured.tile_using_for %split tile_sizes [%rm, %rk, 0]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %t vector_sizes [%rm, %rk, %lanes]
        : !transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>
      %c, %cl = transform.structured.tile_using_for %combine tile_sizes [%rm, 0]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.structured.vectorize %c vector_sizes [%rm, %lanes]
        : !transform.any_op, !transform.param<i64>, !transform.param<i64>
      transform.yield
    }

    %f = transform.structured.match ops{["func.func"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
