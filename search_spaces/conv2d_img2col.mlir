// Convolution as im2col + matmul: linalg.conv_2d_nhwc_hwcf / nhwc_fhwc /
// nchw_fchw on tensors (f32, AVX-512), the alternative to the direct
// conv2d_nhwc_hwcf.mlir.
//
// 1. convert_conv2d_to_img2col: the im2col copy (a linalg.generic) and a
//    batched matmul-like linalg.generic on reshaped operands (as upstream);
// 2. bufferize (one_shot_bufferize, function boundaries too);
// 3. the matmul-like op is tiled and vectorized like matmul_vectorize.mlir:
//    cache tiles (tile_m, tile_n, tile_k), a reg_m × reg_n × reg_k register
//    block with the batch dim tiled by 1, vector.contract with its unit batch
//    dim cast away, accumulators hoisted, contraction lowered to broadcast +
//    FMA; the im2col copy stays a scalar loop nest (its input map is not a
//    projected permutation, so it is not vectorized).
//
// xlinalg.constraint: tile_m % reg_m == 0
// xlinalg.constraint: tile_n % reg_n == 0
// xlinalg.constraint: tile_k % reg_k == 0
// xlinalg.constraint: reg_m * reg_n <= 384
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %conv = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf", "linalg.conv_2d_nhwc_fhwc"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %col, %res = transform.structured.convert_conv2d_to_img2col %conv
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %m = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true}
      : (!transform.any_op) -> !transform.any_op
    %generics = transform.structured.match ops{["linalg.generic"]} in %m
      : (!transform.any_op) -> !transform.any_op
    %copy, %mm = transform.split_handle %generics
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)

    %tm = transform.tune.knob<"tile_m"> options = [32, 64, 112, 128, 196] -> !transform.param<i64>
    %tn = transform.tune.knob<"tile_n"> options = [64, 128, 256] -> !transform.param<i64>
    %tk = transform.tune.knob<"tile_k"> options = [64, 128, 192, 256, 576] -> !transform.param<i64>
    %rm = transform.tune.knob<"reg_m"> options = [4, 6, 7, 8, 14] -> !transform.param<i64>
    %rn = transform.tune.knob<"reg_n"> options = [16, 32, 64] -> !transform.param<i64>
    %rk = transform.tune.knob<"reg_k"> options = [1, 2, 4] -> !transform.param<i64>
    %one = transform.param.constant 1 : i64 -> !transform.param<i64>

    // matmul-like op loops: n, m = oh·ow, f, k = kh·kw·c
    %cache, %l:4 = transform.structured.tile_using_for %mm tile_sizes [1, %tm, %tn, %tk]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
      -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %reg, %rl:3 = transform.structured.tile_using_for %cache tile_sizes [0, %rm, %rn, %rk]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
      -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %reg vector_sizes [%one, %rm, %rn, %rk]
      : !transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>,
        !transform.param<i64>

    %f = transform.structured.match ops{["func.func"]} in %m
      : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f
      : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f1 {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
    } : !transform.any_op
    transform.apply_patterns to %f1 {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
    transform.yield
  }
}
