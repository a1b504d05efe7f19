// Data tiling of a matmul whose operands carry #iree_linalg_ext.encoding's
// (set_encoding LHS/RHS/RESULT -> linalg.matmul -> unset_encoding), f32 on AVX-512.
//
// 1. materialize the encodings into iree_linalg_ext.pack / linalg.mmt4d / unpack with
//    inner tiles (tile_m, tile_n, 1) chosen by knobs, passed as param-valued options of
//    transform.apply_registered_pass (upstream's syntax; the pass is
//    xlinalg/transforms/iree_linalg_ext/materialize_encoding.py). k0 = 1 as IREE's x86 f32 tiles
//    (16x16x1 on AVX-512): the RHS panel row n0 is contiguous and one LHS element is
//    broadcast per FMA row;
// 2. bufferize;
// 3. then the steps of search_spaces/mmt4d.mlir / matmul_mmt4d.mlir: generalize the
//    mmt4d; cache tiles (tm1 row blocks, tn1 column panels, tk steps of k) in a tunable
//    order; the register block: one (m, n) block and rk steps of k (blocks in a tunable
//    order too); drop the unit loops (m, n, k0): the block is a (k, m0, n0) contraction;
//    vectorize it (vector sizes mask a partial k step), hoist the accumulator block out of
//    the k loop (m0*n0/16 zmm registers), outer products -> broadcast + FMA.
// The packs and the unpack lower tile by tile (linalg's pack_loops.py); they are part of
// the kernel, as in IREE's data tiling when the operands are not constants.
//
// xlinalg.constraint: tile_m * tile_n <= 384
// xlinalg.constraint: tk % rk == 0
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %func = transform.structured.match ops{["func.func"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %tm0 = transform.tune.knob<"tile_m"> options = [4, 6, 8, 12, 16] -> !transform.param<i64>
    %tn0 = transform.tune.knob<"tile_n"> options = [16, 32, 64] -> !transform.param<i64>
    %tk0 = transform.param.constant 1 : i64 -> !transform.param<i64>
    %tm = transform.tune.knob<"tm1"> options = [1, 2, 4, 8, 16, 32] -> !transform.param<i64>
    %tn = transform.tune.knob<"tn1"> options = [1, 2, 4, 8, 16] -> !transform.param<i64>
    %tk = transform.tune.knob<"tk"> options = [64, 128, 256, 512, 1024] -> !transform.param<i64>
    %rk = transform.tune.knob<"rk"> options = [2, 4, 8] -> !transform.param<i64>

    %done = transform.apply_registered_pass "iree-codegen-materialize-encoding"
        with options = {"tile-m" = %tm0, "tile-n" = %tn0, "tile-k" = %tk0} to %func
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
      -> !transform.any_op
    %b = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true}
      : (!transform.any_op) -> !transform.any_op
    %mmt4d = transform.structured.match ops{["linalg.mmt4d"]} in %b
      : (!transform.any_op) -> !transform.any_op
    %g = transform.structured.generalize %mmt4d : (!transform.any_op) -> !transform.any_op

    %cache = transform.tune.alternatives<"cache_order"> -> !transform.any_op {
      %t, %l:3 = transform.structured.tile_using_for %g tile_sizes [%tm, %tn, %tk, 0, 0, 0]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }, {
      %t, %l:3 = transform.structured.tile_using_for %g tile_sizes [%tm, %tn, %tk, 0, 0, 0] interchange = [1, 0, 2, 3, 4, 5]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }
    %reg = transform.tune.alternatives<"reg_order"> -> !transform.any_op {
      %t, %l:3 = transform.structured.tile_using_for %cache tile_sizes [1, 1, %rk, 0, 0, 0]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }, {
      %t, %l:3 = transform.structured.tile_using_for %cache tile_sizes [1, 1, %rk, 0, 0, 0] interchange = [1, 0, 2, 3, 4, 5]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }

    %f = transform.structured.match ops{["func.func"]} in %b : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
    } : !transform.any_op
    %block = transform.structured.match ops{["linalg.generic"]} in %b : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %block vector_sizes [%rk, %tm0, %tn0]
      : !transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f1 {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
    transform.yield
  }
}
