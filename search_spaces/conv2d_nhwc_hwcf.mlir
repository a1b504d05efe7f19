// Direct convolution: linalg.conv_2d_nhwc_hwcf (batch N, NHWC input pre-padded,
// HWCF filter, f32, AVX-512), as upstream vectorizes convolutions:
//
// 1. tile to a register block: N, OH, KH and KW to 1, OW to reg_w, F to reg_f,
//    C to reg_c; loop order: one of two orders of the parallel loops
//    (F block outermost keeps the filter slice in cache across the image;
//    image rows outermost keeps an input row band in cache across F blocks),
//    the reduction loops (KH, KW, C) innermost so the output block is
//    loop-invariant in them;
// 2. decompose the 1×1×reg_w 2-D convolution to a 1-D one (conv_1d_nwc_wcf);
// 3. vectorize it (xlinalg/transforms/vectorize_conv.py: F in vector lanes,
//    reg_w × reg_f/16 accumulators in zmm registers, one broadcast FMA per
//    input element and 16-lane filter row) with the register block as vector
//    sizes (partial blocks of non-dividing shapes get masked transfers);
// 4. hoist the output block's read/write out of the reduction loops
//    (accumulators stay in registers across KH, KW, C); optionally unroll
//    the C loop.
//
// xlinalg.constraint: reg_w * reg_f <= 448
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %conv = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root
      : (!transform.any_op) -> !transform.any_op

    %rw = transform.tune.knob<"reg_w"> options = [2, 4, 6, 7, 8, 14] -> !transform.param<i64>
    %rf = transform.tune.knob<"reg_f"> options = [16, 32, 48, 64] -> !transform.param<i64>
    %rc = transform.tune.knob<"reg_c"> options = [4, 8, 16, 32] -> !transform.param<i64>

    // loops: n, oh, ow, f, kh, kw, c (n, kh, kw tiled by 1)
    %blk = transform.tune.alternatives<"loop_order"> -> !transform.any_op {
      %t, %l:7 = transform.structured.tile_using_for %conv tile_sizes [1, 1, %rw, %rf, 1, 1, %rc]
          interchange = [3, 0, 1, 2, 4, 5, 6]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op,
            !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }, {
      %t, %l:7 = transform.structured.tile_using_for %conv tile_sizes [1, 1, %rw, %rf, 1, 1, %rc]
          interchange = [0, 1, 2, 3, 4, 5, 6]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op,
            !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }

    %c1 = transform.structured.decompose %blk : (!transform.any_op) -> !transform.any_op
    %one = transform.param.constant 1 : i64 -> !transform.param<i64>
    // conv_1d_nwc_wcf loops: n, w, f, kw, c
    transform.structured.vectorize %c1 vector_sizes [%one, %rw, %rf, %one, %rc]
      : !transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>,
        !transform.param<i64>, !transform.param<i64>

    %f = transform.structured.match ops{["func.func"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
