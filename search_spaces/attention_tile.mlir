// FlashAttention-2 style tiling of iree_linalg_ext.attention (B x N x d queries,
// B x L x d keys/values): one batch at a time, query blocks of tile_n rows, and
// key/value blocks of tile_l rows folded in with the online softmax (tiling the
// key loop first rewrites the op into its running-max/running-sum form, see
// xlinalg/dialects/iree_linalg_ext/attention.py). The loop order chooses whether
// a query block stays resident while the key/value blocks stream past it
// (queries outer, FlashAttention-2's order) or the other way round.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %att = transform.structured.match ops{["iree_linalg_ext.attention"]} in %root
      : (!transform.any_op) -> !transform.any_op

    %tn = transform.tune.knob<"tile_n"> options = [4, 8, 16, 32, 64] -> !transform.param<i64>
    %tl = transform.tune.knob<"tile_l"> options = [16, 32, 64, 128, 256] -> !transform.param<i64>
    %tb = transform.param.constant 1 : i64 -> !transform.param<i64>

    transform.tune.alternatives<"loop_order"> {
      %t, %l:3 = transform.structured.tile_using_for %att tile_sizes [%tb, %tn, %tl] interchange = [0, 1, 2]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield
    }, {
      %t, %l:3 = transform.structured.tile_using_for %att tile_sizes [%tb, %tn, %tl] interchange = [0, 2, 1]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield
    }
    transform.yield
  }
}
