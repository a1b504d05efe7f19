// Data tiling of linalg.batch_matmul on tensors (f32, AVX-512): search_spaces/matmul_mmt4d.mlir
// with a batch dim (the loop over it outermost, tiled by 1) -- pack into batch_mmt4d form,
// then a register-blocked micro-kernel on the packed panels; the packs are part of the
// kernel, so every call packs A and B again (as IREE's data tiling).
//
// Why: in the unpacked batch_matmul.mlir the B panel (tile_k rows of reg_n floats) lies
// at a 1 KiB stride for 256-wide matrices, so its lines fall into 4 of the 64 L1 sets and
// keep evicting each other (0.88 of the FMA peak at best); the packed panels are
// contiguous.
// 1. pack M by m0 and N by n0 (K whole): A -> B×M1×K×m0, B -> B×K×N1×n0 then
//    pack_transpose -> B×N1×K×n0 (each n0-wide panel contiguous), C -> B×M1×N1×m0×n0
//    (the fill of C becomes a fill of the packed C);
// 2. the batch loop (tiled by 1), A's and B's packs fused into it
//    (fuse_into_containing_op): each batch's panels (2 × 256 KiB at 256³) are packed
//    right before its micro-kernels and read back from L2, not from a whole packed copy
//    of 2 × 2 MiB written to memory first (8 × 256³, same-run CPU-time medians, load
//    4-5: 0.78-0.81 -> 0.82-0.86 of the FMA peak; 8 × 250³ 0.74 -> 0.76). The packed C
//    still becomes a view of C (unpack_in_place: the packs in between only read the
//    function's arguments, which never alias its result buffer);
//    cache tiles in it (tm1 blocks of m0 rows, tn1 panels of n0 columns, in a tunable
//    order) on tensors with the fill fused (transform.structured.fuse): each cache tile
//    of C is zeroed right before its micro-kernels, while in L1/L2, instead of one pass
//    over the whole packed C first (as matmul_mmt4d.mlir); zero_c = 1 goes further: the
//    register blocks are tiled on tensors too, the fill fused into each, so that it is
//    vectorized with the block and its zeros become the accumulators' initial values (no
//    memset, no load of the C block; machine code: same 64-FMA loop, no memset call);
//    8 × 256³, 31 same-run rounds, CPU time, load 4-7: fastest call 0.913 vs 0.886,
//    median 0.828 vs 0.811 of the peak. Then the k tiles run inside each register block
//    (tk no longer blocks for the cache) and reg_order changes nothing;
// 3. bufferize; k tiles of tk, then the register block (one m0×n0 block, rk steps of k,
//    blocks in a tunable order); a partial k tile (tk not dividing K) and a partial k step
//    (rk not dividing the tile) are peeled into loops of their own (as batch_mmt4d.mlir),
//    so every block has a static shape and none is masked (8 x 250^3, rk = 4: every k step
//    was a bounds-checked read before); 4. drop the unit loops, vectorize the (k, m0, n0)
//    block, hoist the C block out of the k loop, outer products -> broadcast + FMA;
// 5. the unpack of C is left whole: when m0 and n0 divide M and N the lowering
//    (xlinalg/lowering/unpack_in_place.py) makes the packed C a strided view of C, so the
//    micro-kernels write C directly and the unpack goes; otherwise it lowers to loops
//    writing straight into C. (Tiling it by m0×n0, as before, unpacked every block into
//    a scratch tile and copied it.)
// Cost left (perf samples, 8 × 256³, zero_c = 0): ~92 % of the kernel's cycles in the FMA
// loop, ~7 % in the packs (A's transposes each m0-row panel with shuffles, B's copies its
// panels: both read A and B from L3, not overlapped with FMAs), ~2 % zeroing C (memset,
// gone with zero_c = 1); search_spaces/batch_matmul.mlir copies only B's panels. At
// 8 × 250³ the padding of M and N to 256 (m0 = 8, n0 = 32) is 4.6 % of the FMAs.
// m0 = 1 (with reg_m rows per register block): A's pack has inner tile 1, so it keeps A's
// layout; the lowering reads A in place (xlinalg/lowering/pack_in_place.py: no copy, no
// transposes) and the register block broadcasts reg_m rows of it. M is not padded (reg_m
// = 5 or 10 divides 250), and a block of reg_m rows is still written straight into C
// past a padded N edge (unpack_in_place_edges.py). Same-run CPU-time medians, 9 rounds:
// 8 × 256³ (load 1.0) 0.945 of the peak (m0 = 1, reg_m = 4, n0 = 64) vs 0.916 with A
// copied vs 0.907 for m0 = 8, n0 = 32; 8 × 250³ (load 1.3) 0.917 (reg_m = 5, n0 = 64) vs
// 0.893 with C unpacked vs 0.860. Perf (8 × 256³): ~96 % of the kernel's cycles in the FMA
// loop, ~3.5 % in B's pack; 8 × 250³ also pays 2.4 % padding of N. tm1 not dividing M
// (M1): the partial m tile is peeled into a loop of its own (static height M1 mod tm1),
// and its partial register block of (M1 mod tm1) mod reg_m rows too, so every block has a
// static shape (no masks) with m0 = 1 as well; for m0 > 1 (reg_m = 1) the peeled tile
// only gets static sizes, and C stays in place. One row (m0 = reg_m = 1) is excluded.
// m0 * reg_m * n0 / 16 accumulators at most 24; n0 a power-of-2 multiple of 16 lanes (see
// matmul_mmt4d.mlir); rk >= 2 (a k step of 1 is folded away as a unit loop: only a peeled
// last step may be one, vectorized as a broadcast block).
//
// xlinalg.constraint: m0 * reg_m * n0 <= 384
// xlinalg.constraint: m0 == 1 or reg_m == 1
// xlinalg.constraint: m0 > 1 or reg_m > 1
// xlinalg.constraint: tm1 % reg_m == 0
// xlinalg.constraint: tk % rk == 0
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %mm = transform.structured.match ops{["linalg.batch_matmul"]} in %root
      : (!transform.any_op) -> !transform.any_op

    %m0 = transform.tune.knob<"m0"> options = [1, 4, 6, 8, 12, 16] -> !transform.param<i64>
    // m0 = 1: reg_m rows of A per register block, broadcast from A's own layout
    %rm = transform.tune.knob<"reg_m"> options = [1, 4, 5, 6, 8, 10, 12] -> !transform.param<i64>
    %n0 = transform.tune.knob<"n0"> options = [16, 32, 64] -> !transform.param<i64>
    %tm = transform.tune.knob<"tm1"> options = [1, 2, 4, 8, 10, 16, 32, 50, 64] -> !transform.param<i64>
    %tn = transform.tune.knob<"tn1"> options = [1, 2, 4, 8, 16] -> !transform.param<i64>
    %tk = transform.tune.knob<"tk"> options = [64, 128, 256, 512, 1024] -> !transform.param<i64>
    %rk = transform.tune.knob<"rk"> options = [2, 4, 8] -> !transform.param<i64>

    %packed = transform.structured.pack %mm packed_sizes = [0, %m0, %n0, 0]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> !transform.op<"linalg.generic">
    %pack_b = transform.get_producer_of_operand %packed[1]
      : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
    %g, %pb, %ub = transform.structured.pack_transpose %pack_b with_compute_op(%packed) outer_perm = [0, 2, 1]
      : (!transform.op<"linalg.pack">, !transform.op<"linalg.generic">)
      -> (!transform.op<"linalg.generic">, !transform.op<"linalg.pack">, !transform.any_op)

    // cache tiles on tensors, the fill of the packed C fused into them (zeroed right
    // before its micro-kernels, while in L1/L2, not in one pass over the whole packed C)
    // the batch loop, A's and B's packs fused into it: each batch's packed panels are made
    // right before its micro-kernels and read from L2, not from a whole packed copy in memory
    %pack_a = transform.get_producer_of_operand %g[0] : (!transform.op<"linalg.generic">) -> !transform.any_op
    %gb, %batch = transform.structured.fuse %g tile_sizes [1, 0, 0, 0, 0, 0]
      : (!transform.op<"linalg.generic">) -> (!transform.any_op, !transform.any_op)
    %fa, %batch1 = transform.structured.fuse_into_containing_op %pack_a into %batch
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fb, %batch2 = transform.structured.fuse_into_containing_op %pb into %batch1
      : (!transform.op<"linalg.pack">, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    // (yields the loop over m tiles)
    %m_cache = transform.tune.alternatives<"cache_order"> -> !transform.any_op {
      %t, %l:2 = transform.structured.fuse %gb tile_sizes [0, %tm, %tn, 0, 0, 0] interchange [0, 1, 2, 3, 4, 5]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %l#0 : !transform.any_op
    }, {
      %t, %l:2 = transform.structured.fuse %gb tile_sizes [0, %tm, %tn, 0, 0, 0] interchange [0, 2, 1, 3, 4, 5]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %l#1 : !transform.any_op
    }
    // tm1 not dividing M1: the partial m tile in a loop of its own, of static height M1 mod
    // tm1 (with m0 = 1 its register blocks must be static: see the header; nothing is
    // peeled when tm1 divides M1, the failure suppressed)
    %m_cache_for = transform.cast %m_cache : !transform.any_op to !transform.op<"scf.for">
    transform.sequence %m_cache_for : !transform.op<"scf.for"> failures(suppress) {
    ^bb0(%l: !transform.op<"scf.for">):
      %m_main, %m_rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      %m_fn = transform.get_parent_op %m_rest {op_name = "func.func", deduplicate} : (!transform.any_op) -> !transform.any_op
      transform.apply_patterns to %m_fn {
        transform.apply_patterns.linalg.tiling_canonicalization
      } : !transform.any_op
    }
    %cache = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op

    // zero_c = 1: register blocks (m0 × n0) tiled on tensors, the fill fused into each and
    // marked; after bufferization the marked fills are generalized and vectorized with the
    // blocks, their zeros forwarded into the accumulators (hoist_redundant_vector_transfers
    // after CSE). The alternative yields the register tile size of m and n for the tiling
    // after bufferization: 1, or 0 when the blocks are tiled already
    %reg_m1, %reg_n1 = transform.tune.alternatives<"zero_c"> -> (!transform.param<i64>, !transform.param<i64>) {
      %r = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.yield %rm, %r : !transform.param<i64>, !transform.param<i64>
    }, {
      %t, %rows = transform.foreach %cache : !transform.any_op -> !transform.any_op, !transform.any_op {
      ^bb0(%part: !transform.any_op):
        %pt, %pl:2 = transform.structured.fuse %part tile_sizes [0, %rm, 1, 0, 0, 0]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
        transform.yield %pt, %pl#0 : !transform.any_op, !transform.any_op
      }
      // reg_m not dividing the height of the partial m tile: its last rows in a block of
      // their own
      %rows_for = transform.cast %rows : !transform.any_op to !transform.op<"scf.for">
      transform.sequence %rows_for : !transform.op<"scf.for"> failures(suppress) {
      ^bb0(%rows_loop: !transform.op<"scf.for">):
        %r_main, %r_rest = transform.loop.peel %rows_loop : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      }
      %fills = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
      transform.annotate %fills "zero_c" : !transform.any_op
      %r = transform.param.constant 0 : i64 -> !transform.param<i64>
      transform.yield %r, %r : !transform.param<i64>, !transform.param<i64>
    }

    %b = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true}
      : (!transform.any_op) -> !transform.any_op
    %mmt4d = transform.structured.match ops{["linalg.generic"]} in %b
      : (!transform.any_op) -> !transform.any_op
    %kt, %kl = transform.foreach %mmt4d : !transform.any_op -> !transform.any_op, !transform.any_op {
    ^bb0(%part: !transform.any_op):
      %pt, %pl = transform.structured.tile_using_for %part tile_sizes [0, 0, 0, %tk, 0, 0]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.yield %pt, %pl : !transform.any_op, !transform.any_op
    }
    // tk not dividing K: the partial k tile in a loop of its own, of static size K mod tk
    // (upstream's peel fails, silenceably, when the step divides the loop: suppressed)
    %k_for = transform.cast %kl : !transform.any_op to !transform.op<"scf.for">
    transform.sequence %k_for : !transform.op<"scf.for"> failures(suppress) {
    ^bb0(%l: !transform.op<"scf.for">):
      %k_main, %k_rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    }
    %k_tiles = transform.structured.match ops{["linalg.generic"]} in %b : (!transform.any_op) -> !transform.any_op
    // register blocks: m blocks outer (an A panel stays in L1 across the B panels) or n panels outer
    // (also yields the loops over register row blocks: none with zero_c = 1, where the
    // tiling makes only the k loop, in the first loop result; with zero_c = 0 the third
    // loop result is the k loop, the row loop its second parent (m, n, k) or the second
    // result (n, m, k))
    %reg_t, %reg_rows = transform.tune.alternatives<"reg_order"> -> !transform.any_op, !transform.any_op {
      %t, %rows = transform.foreach %k_tiles : !transform.any_op -> !transform.any_op, !transform.any_op {
      ^bb0(%part: !transform.any_op):
        %pt, %pl:3 = transform.structured.tile_using_for %part tile_sizes [0, %reg_m1, %reg_n1, %rk, 0, 0]
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
        %pr = transform.get_parent_op %pl#2 {op_name = "scf.for", nth_parent = 2} : (!transform.any_op) -> !transform.any_op
        transform.yield %pt, %pr : !transform.any_op, !transform.any_op
      }
      transform.yield %t, %rows : !transform.any_op, !transform.any_op
    }, {
      %t, %rows = transform.foreach %k_tiles : !transform.any_op -> !transform.any_op, !transform.any_op {
      ^bb0(%part: !transform.any_op):
        %pt, %pl:3 = transform.structured.tile_using_for %part tile_sizes [0, %reg_m1, %reg_n1, %rk, 0, 0] interchange = [0, 2, 1, 3, 4, 5]
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
        transform.yield %pt, %pl#1 : !transform.any_op, !transform.any_op
      }
      transform.yield %t, %rows : !transform.any_op, !transform.any_op
    }
    // rk not dividing a k tile: its last k steps in a block of their own
    // the k loop of each block (with zero_c = 1 the only loop the tiling makes)
    %reg_k = transform.get_parent_op %reg_t <op_name = "scf.for", deduplicate> : (!transform.any_op) -> !transform.any_op
    %reg_k_for = transform.cast %reg_k : !transform.any_op to !transform.op<"scf.for">
    transform.sequence %reg_k_for : !transform.op<"scf.for"> failures(suppress) {
    ^bb0(%l: !transform.op<"scf.for">):
      %r_main, %r_rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    }
    // zero_c = 0, reg_m not dividing the height of the partial m tile: its last rows in a
    // block of their own (after the k peel: peeling a loop consumes the handles inside it)
    %reg_rows_for = transform.cast %reg_rows : !transform.any_op to !transform.op<"scf.for">
    transform.sequence %reg_rows_for : !transform.op<"scf.for"> failures(suppress) {
    ^bb0(%l: !transform.op<"scf.for">):
      %rm_main, %rm_rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    }

    // zero_c = 1: the fills of the register blocks as generics, vectorized with them
    %zero_fills = transform.structured.match ops{["linalg.fill"]} attributes{zero_c} in %b
      : (!transform.any_op) -> !transform.any_op
    %zero_generics = transform.structured.generalize %zero_fills : (!transform.any_op) -> !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %b : (!transform.any_op) -> !transform.any_op
    // peeled tiles: their sizes are constants now, their views get static shapes
    transform.apply_patterns to %f {
      transform.apply_patterns.linalg.tiling_canonicalization
    } : !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
    } : !transform.any_op
    // the folded blocks (k, m0, n0), all of static shapes: no masks
    %block = transform.structured.match ops{["linalg.generic"]} in %b : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %block : !transform.any_op
    transform.apply_cse to %f : !transform.any_op

    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f1 {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
    transform.yield
  }
}
