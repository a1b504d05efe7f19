// Direct convolution: linalg.conv_2d_nhwc_hwcf (batch N, NHWC input pre-padded,
// HWCF filter, f32, AVX-512), vectorized the way upstream vectorizes convolutions
// (a register-blocked broadcast + FMA micro-kernel), over 2-D pixel blocks.
//
// 1. cache blocks (alternatives "cache_order"): an F block of reg_f and a C
//    block of cache_c outermost (the [KH, KW, cache_c, reg_f] filter slice is
//    reused across the whole image), or only C blocks outermost, or none;
// 2. optionally copy that filter slice into a contiguous local buffer
//    ("pack_filter": `structured.promote` of the filter operand) — the HWCF
//    filter's rows are F·4 bytes apart, which for F = 256/512 maps a block's
//    rows onto a few cache sets;
// 3. optionally copy the input's C block likewise ("pack_input"): NHWC pixels
//    are C·4 bytes apart, at C = 512 every pixel of a block falls into the same
//    2 of the 64 L1 sets; the copy's pixels are cache_c·4 bytes apart;
// 4. register block: N, KH, KW to 1, OH to reg_h, OW to reg_w, F to reg_f, C to
//    reg_c, the F block outside the pixel block or inside it ("reg_order"), the
//    reduction loops (KH, KW, C) innermost so the output block is
//    loop-invariant in them; the partial column and row blocks of sizes the
//    block does not divide are peeled into loops of their own, so the main
//    blocks' transfers are static and in bounds;
// 5. vectorize the reg_h x reg_w x reg_f block directly (an extension of
//    upstream's 1-D conv vectorizer, xlinalg/transforms/linalg/vectorize_conv.py:
//    F in vector lanes, reg_h * reg_w * reg_f/16 accumulators in zmm registers,
//    one broadcast FMA per input element and 16-lane filter row; partial
//    blocks get out-of-bounds transfers);
// 6. hoist the output block's read/write out of the reduction loops
//    (accumulators stay in registers across KH, KW, C).
//
// Fast settings on the five ResNet layers of issue 3 (scripts/bench_conv.py
// STORED_KNOBS, from interleaved sweeps with 64-byte aligned arrays): 16-lane
// blocks. One row of 7 or 8 pixels, reg_c = 16, C blocks of 64 (filter packed
// when F <= 128) on 56x56, 28x28 and the strided layer; 2-D blocks, reg_c = 8,
// over a packed input with F blocks outermost on 14x14x256 (2 x 14) and 7x7x512
// (4 x 7 = 28 FMAs per filter load instead of 7 for the old 1 x 7 x 32 block,
// whose filter loads and input broadcasts all hit 2 L1 sets). reg_f = 48 leaves
// a masked partial block whenever 48 does not divide F (all five layers: about
// 0.6x). tests/test_conv_perf.py checks the inner loops' asm.
//
// Register budget (32 zmm): reg_h * reg_w * reg_f/16 accumulators + reg_f/16
// filter rows + one broadcast; 7 x 64 (28 + 4 + 1) spills accumulators every k
// step. Blocks of several rows with reg_f > 16 keep more broadcasts live
// (2 x 7 x 32 = 28 + 2 spills, 1 x 14 x 32 does not): 2 more registers.
// xlinalg.constraint: reg_h * reg_w * (reg_f // 16) + reg_f // 16 <= 31
// xlinalg.constraint: reg_h == 1 or reg_h * reg_w * (reg_f // 16) + reg_f // 16 <= 29
// xlinalg.constraint: cache_c % reg_c == 0
// A C-block loop of exactly 2 register steps: LLVM unrolls it into the KW loop
// and spills the accumulators (7x32: ~70-210 stack accesses among the FMAs,
// 0.1-0.6x; tests/test_conv_perf.py). Only orders 0 and 1 have that loop.
// xlinalg.constraint: cache_order == 2 or cache_c != 2 * reg_c
// xlinalg.constraint: cache_order != 2 or pack_filter == 0
// xlinalg.constraint: cache_order != 2 or pack_input == 0
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %conv = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root
      : (!transform.any_op) -> !transform.any_op

    %rh = transform.tune.knob<"reg_h"> options = [1, 2, 3, 4, 7] -> !transform.param<i64>
    %rw = transform.tune.knob<"reg_w"> options = [2, 4, 7, 8, 14] -> !transform.param<i64>
    %rf = transform.tune.knob<"reg_f"> options = [16, 32, 48, 64] -> !transform.param<i64>
    %rc = transform.tune.knob<"reg_c"> options = [4, 8, 16, 32] -> !transform.param<i64>
    %cc = transform.tune.knob<"cache_c"> options = [32, 64, 128, 256, 512] -> !transform.param<i64>

    // loops: n, oh, ow, f, kh, kw, c
    %outer = transform.tune.alternatives<"cache_order"> -> !transform.any_op {
      %t, %l:2 = transform.structured.tile_using_for %conv tile_sizes [0, 0, 0, %rf, 0, 0, %cc]
          interchange = [3, 6, 0, 1, 2, 4, 5]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }, {
      %t, %l = transform.structured.tile_using_for %conv tile_sizes [0, 0, 0, 0, 0, 0, %cc]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }, {
      transform.yield %conv : !transform.any_op
    }

    %packed = transform.tune.alternatives<"pack_filter"> -> !transform.any_op {
      transform.yield %outer : !transform.any_op
    }, {
      %p = transform.structured.promote %outer <operands_to_promote = [1]>
        : (!transform.any_op) -> !transform.any_op
      transform.yield %p : !transform.any_op
    }

    %packed2 = transform.tune.alternatives<"pack_input"> -> !transform.any_op {
      transform.yield %packed : !transform.any_op
    }, {
      %p = transform.structured.promote %packed <operands_to_promote = [0]>
        : (!transform.any_op) -> !transform.any_op
      transform.yield %p : !transform.any_op
    }

    // register blocks: N, OH, KH, KW to 1, OH to reg_h, OW to reg_w, F to reg_f, C to
    // reg_c; the F blocks outside the pixel blocks or inside them ("reg_order"). A
    // partial row block (reg_h not dividing OH) is peeled into a loop of its own, so
    // the main blocks have static, in-bounds transfers.
    %w_loop, %h_loop = transform.tune.alternatives<"reg_order"> -> !transform.any_op, !transform.any_op {
      %blk, %rl:7 = transform.structured.tile_using_for %packed2 tile_sizes [1, %rh, %rw, %rf, 1, 1, %rc]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op,
            !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %rl#2, %rl#1 : !transform.any_op, !transform.any_op
    }, {
      %blk, %rl:7 = transform.structured.tile_using_for %packed2 tile_sizes [1, %rh, %rw, %rf, 1, 1, %rc]
          interchange = [3, 0, 1, 2, 4, 5, 6]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op,
            !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %rl#3, %rl#2 : !transform.any_op, !transform.any_op
    }
    // Peel the column loop, then the row loop (which then holds both column loops).
    // Upstream's peel fails (silenceably) when the block divides the loop: suppressed.
    %w_for = transform.cast %w_loop : !transform.any_op to !transform.op<"scf.for">
    transform.sequence %w_for : !transform.op<"scf.for"> failures(suppress) {
    ^bb0(%l: !transform.op<"scf.for">):
      %main, %rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    }
    %h_for = transform.cast %h_loop : !transform.any_op to !transform.op<"scf.for">
    transform.sequence %h_for : !transform.op<"scf.for"> failures(suppress) {
    ^bb0(%l: !transform.op<"scf.for">):
      %main, %rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    }
    %blks = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %one = transform.param.constant 1 : i64 -> !transform.param<i64>
    // loops: n, oh, ow, f, kh, kw, c
    transform.structured.vectorize %blks vector_sizes [%one, %rh, %rw, %rf, %one, %one, %rc]
      : !transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>,
        !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>

    %f = transform.structured.match ops{["func.func"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f
      : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
