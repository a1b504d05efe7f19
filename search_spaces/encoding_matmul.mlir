// Data tiling of a matmul whose operands carry #iree_linalg_ext.encoding's
// (set_encoding LHS/RHS/RESULT -> linalg.matmul -> unset_encoding): the encodings
// are materialized into pack / linalg.mmt4d / unpack with inner tiles
// (tile_m, tile_n, tile_k) chosen by knobs, passed as param-valued options of
// transform.apply_registered_pass (upstream's syntax; the pass is
// xlinalg/dialects/iree_linalg_ext/materialize.py). The mmt4d's outer M1 x N1
// loops are then tiled by one packed tile each, so one m0 x n0 accumulator tile
// is computed over the whole K at a time.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %tm = transform.tune.knob<"tile_m"> options = [2, 4, 8, 16] -> !transform.param<i64>
    %tn = transform.tune.knob<"tile_n"> options = [4, 8, 16, 32] -> !transform.param<i64>
    %tk = transform.tune.knob<"tile_k"> options = [1, 2, 4, 8] -> !transform.param<i64>
    %done = transform.apply_registered_pass "iree-codegen-materialize-encoding"
        with options = {"tile-m" = %tm, "tile-n" = %tn, "tile-k" = %tk} to %func
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
      -> !transform.any_op
    %mmt4d = transform.structured.match ops{["linalg.mmt4d"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %mmt4d tile_sizes [1, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
