// Cache tiles + register block + vectorization of linalg.batch_matmul (f32, AVX-512):
// matmul_vectorize.mlir with the batch loop outermost (tiled by 1).
//
// 1. batch by 1, then cache tiles (tile_m, tile_n, tile_k) in a tunable loop order;
// 2. a register block 1 × reg_m × reg_n × reg_k, the k loop innermost;
// 3. vectorize the block (vector.contract with a unit batch dim), hoist the C
//    transfers out of the k loop, cast the unit batch dim away
//    (cast_away_vector_leading_one_dim), lower the contraction to outer
//    products and those to broadcast + FMA on 1-D vectors.
// reg_m * reg_n / 16 accumulators must fit in the 32 zmm registers with the B rows and
// broadcasts: at most 16. With 24 (12 × 32, 6 × 64) LLVM spills 24-30 registers in the
// k loop (inner-loop assembly of 8 × 256³); every block of at most 16 accumulators with
// reg_k = 1 keeps them in zmm with no spill (16 × 16: one B row load and 16 FMAs with a
// broadcast memory operand per k step; 8 × 32: 2 loads, 8 broadcasts, 16 FMAs).
// pack_b = 1 copies B's cache tile (tile_k × tile_n) into a contiguous local buffer
// (`structured.promote` of operand 1, inside the cache loops): in B itself the tile's
// rows are N·4 bytes apart (1 KiB for N = 256), so a reg_n-wide panel of tile_k rows
// falls into a few L1 sets and its lines evict each other; in the buffer a tile_n = 16
// panel is one cache line per k step, contiguous. With tile_m = 256 (>= M) the copy is
// made once per (batch, n, k) tile, i.e. B is copied once per call (vectorized by LLVM:
// zmm loads/stores). 8 × 256³, same-run medians of single calls in CPU time: 3-5 % faster
// than the best unpacked block. Same run, fastest of 9 × 15 wall-clock calls (load 3-5):
// this block 0.915-0.925 of the FMA peak, the pre-packed batch_mmt4d.mlir 0.96-0.975.
// The A rows (16 broadcast rows 1 KiB apart) are not the gap: with A's rows padded to
// 257, 260, 264 or 272 floats (a strided memref argument) the block runs at the same
// speed (107-109 GFLOP/s). 4 × 64 and 8 × 32 (tile_n 32/64), unroll_k, reg_k = 2, tile_m
// 128 or tile_k 128 all measured 0.84-0.94. 8 × 16 (8 accumulators, 8 A rows; stored
// since) was ahead of 16 × 16 in four interleaved runs of 8 × 256³ (CPU time, load
// 1.4-2): fastest call 0.930-0.941 vs 0.912-0.938 of the peak, median ahead in 3 of 4.
// Cycle samples (perf record, 8 × 256³, stored knobs): 91-94 % in the FMA loop, ~4.5 % in
// the B copy (256 lines 1 KiB apart per n tile, from L3), ~4 % on the C block loads at
// the start of a block, ~1 % on its stores; with 1 batch (A, B, C in L2) the block runs
// at the same speed, so the rest is in-core. pipeline_c = 1 (below) moves the C loads
// ahead of the previous block's k loop: 8 × 16 fastest call 0.926-0.943 vs 0.922-0.938
// in five runs, medians ahead in 3 of 5 (stored: scripts/bench_templates.py FIXED).
// Shapes no block divides (8 × 250³): peel_tiles = 1 peels the partial n cache tile
// (static tile widths; with tile_n = reg_n the register n loop folds, so pipeline_c
// applies to the full n tiles' row blocks and, at width N mod 16, to the last tile's) and
// peel = 1 the partial row block; 8 × 16 pipelined this way: fastest call 0.92 of the peak vs 0.89
// for the unpipelined 16 × 16 + peel stored before (one run, load 5).
// Median vs fastest call (perf record of the stored knobs, cycles per instruction of the
// JIT code): 8 × 256³ 91 % of the cycles in the FMA loop, 4.3 % in the B copy, ~4.5 % on
// the pipelined C loads (their misses fill the reorder buffer before the k loop hides
// them); the fastest calls reach 0.95 of the peak on a quiet core, so the median's loss is
// those misses growing when the other core contends for L3 and memory. memref.prefetch
// (lowered to prefetcht0/prefetchw) of the C block two row blocks ahead and of the next n
// tile's B rows, inserted by hand into the transformed IR: B copy 4.3 -> 2.3 %, C loads
// -> ~1 %, FMA loop 93 % of the cycles, but same-run medians at load 1.1 within ±1.5 % of
// the plain kernel (no consistent winner in 5 runs). prefetch_b = 1 (below) places the B
// half after the copy (all 256 lines at once): vs the stored knobs in 6 same-run runs at
// load 1.3-1.7 (scripts/bench_batch_matmul_prefetch.py) -1.0 to +1.6 % by median, no
// consistent sign, so it is not stored; spreading the prefetches over the row blocks
// (by hand) did no better in 3 more runs.
// 8 × 250³ (B rows 1000 bytes apart) reads B in place instead (no copy at all).
// A data-tiled alternative: pack to linalg.batch_mmt4d, search_spaces/batch_mmt4d.mlir.
//
// xlinalg.constraint: tile_m % reg_m == 0
// xlinalg.constraint: tile_n % reg_n == 0
// xlinalg.constraint: tile_k % reg_k == 0
// xlinalg.constraint: reg_m * reg_n <= 256
// xlinalg.constraint: prefetch_b == 0 or pack_b == 1
// xlinalg.constraint: pipeline_c == 0 or (tile_n == reg_n and tile_m > reg_m and reg_m * reg_n <= 192)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %bmm = transform.structured.match ops{["linalg.batch_matmul"]} in %root
      : (!transform.any_op) -> !transform.any_op

    %tm = transform.tune.knob<"tile_m"> options = [32, 64, 96, 128, 256] -> !transform.param<i64>
    %tn = transform.tune.knob<"tile_n"> options = [16, 32, 64, 128, 256, 512] -> !transform.param<i64>
    %tk = transform.tune.knob<"tile_k"> options = [64, 128, 256, 512] -> !transform.param<i64>
    %rm = transform.tune.knob<"reg_m"> options = [4, 6, 8, 12, 16] -> !transform.param<i64>
    %rn = transform.tune.knob<"reg_n"> options = [16, 32, 64] -> !transform.param<i64>
    %rk = transform.tune.knob<"reg_k"> options = [1, 2, 4] -> !transform.param<i64>
    %one = transform.param.constant 1 : i64 -> !transform.param<i64>

    // loops: b, m, n, k; yields the tiled op, the n loop, and the m and n loops outer one
    // first
    %cache, %n_cache, %outer, %inner = transform.tune.alternatives<"cache_order">
        -> !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op {
      %t, %l:4 = transform.structured.tile_using_for %bmm tile_sizes [1, %tm, %tn, %tk] interchange = [0, 1, 2, 3]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t, %l#2, %l#1, %l#2 : !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op
    }, {
      %t, %l:4 = transform.structured.tile_using_for %bmm tile_sizes [1, %tm, %tn, %tk] interchange = [0, 2, 1, 3]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t, %l#1, %l#1, %l#2 : !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op
    }

    // peel_tiles = 1 (n) / 2 (m and n): the partial cache tile (tile_n not dividing N,
    // tile_m not dividing M) peeled into a loop of its own, so the main tiles have the
    // static size of the cache tile (unmasked B rows and C blocks; with tile_n = reg_n the
    // register n loop folds away, which pipeline_c needs; with m peeled the row-block
    // loops have static bounds, which pipeline_c needs too) and the last tile has the
    // static size N mod tile_n (M mod tile_m). Nothing is peeled when the tile divides
    // (upstream's loop.peel fails then: choose 0 for dividing shapes); a tile larger than
    // the dimension leaves an empty main loop (erased) and the whole range as the last
    // tile. The inner loop is peeled first (peeling consumes the handles inside a loop).
    %tiled = transform.tune.alternatives<"peel_tiles"> -> !transform.any_op {
      transform.yield %cache : !transform.any_op
    }, {
      %n_for = transform.cast %n_cache : !transform.any_op to !transform.op<"scf.for">
      %nm, %nr = transform.loop.peel %n_for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      %parts = transform.structured.match ops{["linalg.batch_matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
      transform.yield %parts : !transform.any_op
    }, {
      %in_for = transform.cast %inner : !transform.any_op to !transform.op<"scf.for">
      %im, %ir = transform.loop.peel %in_for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      %out_for = transform.cast %outer : !transform.any_op to !transform.op<"scf.for">
      %om, %or = transform.loop.peel %out_for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      %parts = transform.structured.match ops{["linalg.batch_matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
      transform.yield %parts : !transform.any_op
    }
    // tile sizes min(tile, M - 0) of one-trip cache loops (a tile larger than M or N)
    // folded to constants: static register loop bounds for peel and pipeline_c
    %f0 = transform.structured.match ops{["func.func"]} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f0 {
      transform.apply_patterns.linalg.tiling_canonicalization
    } : !transform.any_op

    // B's cache tile copied to a contiguous buffer, or used in place
    %packed = transform.tune.alternatives<"pack_b"> -> !transform.any_op {
      transform.yield %tiled : !transform.any_op
    }, {
      %p = transform.structured.promote %tiled <operands_to_promote = [1]>
        : (!transform.any_op) -> !transform.any_op
      transform.yield %p : !transform.any_op
    }

    // one op per cache tile part after peel_tiles: tiled one at a time (upstream's
    // tile_using_for wants one param value per target op)
    %reg, %rl:3 = transform.foreach %packed : !transform.any_op
        -> !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op {
    ^bb0(%blk: !transform.any_op):
      %r, %l:3 = transform.structured.tile_using_for %blk tile_sizes [0, %rm, %rn, %rk]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %r, %l#0, %l#1, %l#2
        : !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op
    }

    // the k loop of the register block unrolled by 2 (before peeling, which consumes the
    // loops around it)
    transform.tune.alternatives<"unroll_k"> {
      transform.yield
    }, {
      transform.loop.unroll %rl#2 factor = 2 : !transform.any_op
      transform.yield
    }

    // peel = 1 (m) / 2 (n, then m): partial register blocks (reg_m / reg_n not dividing
    // M / N) peeled into loops of their own, so the main blocks have static sizes and no
    // masks (8 × 250³ with a 16 × 16 block: 0.49 -> 0.80 of the FMA peak, same-run
    // medians). Each peeled loop adds masked copies of the block (compile time): peel n
    // only when tile_n > reg_n (with tile_n = reg_n the n extent is the cache tile's:
    // peel_tiles above makes it static instead). Upstream's loop.peel fails when the
    // step divides the range (iree-opt: "failed to peel the last iteration"; ours peels
    // nothing): choose 0 for dividing shapes. The alternatives yield the main loop of
    // register row blocks (the one pipeline_c pipelines).
    %m_main = transform.tune.alternatives<"peel"> -> !transform.op<"scf.for"> {
      %m_loop = transform.cast %rl#0 : !transform.any_op to !transform.op<"scf.for">
      transform.yield %m_loop : !transform.op<"scf.for">
    }, {
      %m_loop = transform.cast %rl#0 : !transform.any_op to !transform.op<"scf.for">
      %mm, %mr = transform.loop.peel %m_loop : (!transform.op<"scf.for">) -> (!transform.op<"scf.for">, !transform.any_op)
      transform.yield %mm : !transform.op<"scf.for">
    }, {
      %n_loop = transform.cast %rl#1 : !transform.any_op to !transform.op<"scf.for">
      %nm, %nr = transform.loop.peel %n_loop : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      %m_loop = transform.cast %rl#0 : !transform.any_op to !transform.op<"scf.for">
      %mm, %mr = transform.loop.peel %m_loop : (!transform.op<"scf.for">) -> (!transform.op<"scf.for">, !transform.any_op)
      transform.yield %mm : !transform.op<"scf.for">
    }
    // marks the loops of register row blocks for pipeline_c, which finds them again after
    // hoisting (that consumes the function's handle, invalidating the handles inside it)
    transform.annotate %m_main "xlinalg.row_blocks" : !transform.op<"scf.for">
    %blks = transform.structured.match ops{["linalg.batch_matmul"]} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %blks vector_sizes [%one, %rm, %rn, %rk]
      : !transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>,
        !transform.param<i64>

    %f = transform.structured.match ops{["func.func"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f
      : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f1 {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
    } : !transform.any_op
    // pipeline_c = 1: software pipelining of the loop over register row blocks -- the C
    // block of row block i + 1 is read before the k loop of row block i (its reg_m lines,
    // 1 KiB apart, arrive while block i computes instead of stalling the first FMAs of
    // block i + 1). The canonicalization first folds the one-trip n loop of register
    // blocks (tile_n = reg_n; its trip count is static only in full n tiles: with tile_n
    // not dividing N it needs peel_tiles >= 1, else nothing is pipelined) so that the C
    // read sits in the m loop's body; the next block's C values stay live across the k
    // loop: reg_m * reg_n / 16 more zmm registers (8 × 16: 8 + 8 accumulators; 12 × 16
    // and 6 × 32: 12 + 12, no zmm spill; 16 × 16 spills zmm). With peel >= 1 the main
    // loop of register row blocks is pipelined, the peeled partial block is not.
    // Pipelining needs a static trip count (tile_m dividing M, tile_m >= M: one cache
    // tile, its size folded to M above, or peel_tiles = 2) and the C read in the row
    // loop's body (tile_n dividing N or peel_tiles >= 1). transform.loop.pipeline
    // pipelines every loop it can and fails silenceably naming the others; those stay as
    // they are (failures suppressed): on such a shape pipeline_c = 1 is pipeline_c = 0
    // for those loops (the constraints cannot name payload sizes to prune it).
    transform.tune.alternatives<"pipeline_c"> {
      transform.yield
    }, {
      transform.apply_patterns to %f1 {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %rows = transform.structured.match ops{["scf.for"]} attributes {xlinalg.row_blocks} in %f1
        : (!transform.any_op) -> !transform.op<"scf.for">
      transform.sequence %rows : !transform.op<"scf.for"> failures(suppress) {
      ^bb0(%r: !transform.op<"scf.for">):
        %piped = transform.loop.pipeline %r iteration_interval = 10 read_latency = 10
          : (!transform.op<"scf.for">) -> !transform.any_op
      }
      transform.yield
    }
    transform.apply_patterns to %f1 {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
    // prefetch_b = 1 (with pack_b = 1): after each B copy, one prefetch per line of the B
    // panel the next iteration of the innermost cache loop moving it copies (the next n
    // or k tile; our extension op, transforms/scf/prefetch.py; see the header for what it
    // buys), guarded by that iteration existing; a partial tile's width min(tile, N - n)
    // is recomputed at the next n. A copy with no such loop (every cache loop around it
    // runs once and was folded) has nothing to prefetch: the op fails silenceably for it
    // and leaves it as it is (each copy on its own, the failure suppressed)
    transform.tune.alternatives<"prefetch_b"> {
      transform.yield
    }, {
      %copies = transform.structured.match ops{["linalg.copy"]} in %f1
        : (!transform.any_op) -> !transform.any_op
      transform.foreach %copies : !transform.any_op {
      ^bb0(%c: !transform.any_op):
        transform.sequence %c : !transform.any_op failures(suppress) {
        ^bb1(%copy: !transform.any_op):
          transform.xlinalg.prefetch_next_iteration %copy locality = 3 : !transform.any_op
        }
      }
      transform.yield
    }
    transform.yield
  }
}
