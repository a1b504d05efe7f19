// Data tiling of linalg.matmul on tensors (f32, AVX-512): pack into mmt4d form, then a
// register-blocked micro-kernel on the packed panels. The packs are part of the kernel
// (as IREE's data tiling), so every call packs A and B again.
//
// 1. pack M by m0 and N by n0 (K stays whole: k0 = 1): A -> M1×K×m0, B -> K×N1×n0,
//    C -> M1×N1×m0×n0; pack_transpose puts B's panels first (N1×K×n0: each n0-wide
//    panel of B is contiguous, the fix for B streamed with a large stride);
//    the fill of C becomes a fill of the packed C;
// 2. cache tiles (tm1 blocks of m0 rows × tn1 panels of n0 columns, in a tunable order)
//    on tensors with the fill fused (transform.structured.fuse): each cache tile of C is
//    zeroed right before its micro-kernels, while it is in L1/L2, instead of one pass
//    over the whole packed C first;
//    zero_c = 1 goes further (as batch_matmul_mmt4d.mlir): the register blocks are tiled
//    on tensors too, the fill fused into each, vectorized with the block, and its zeros
//    become the accumulators' initial value: no zeroing of C and no load of the C blocks
//    (same-process A/B, CPU time, load 3.5-4.8: 384x1000x256 / 512^3 / 1024^3 fastest call
//    109.2 / 108.0 / 109.3 vs 104.2 / 105.3 / 106.2 GFLOP/s). The k loop then runs inside
//    each block (tk no longer blocks K for the cache) and the blocks go m-outer (reg_order
//    changes nothing);
// 3. bufferize; k tiles of tk, then the register block: one m0×n0 block of C, rk steps
//    of k (blocks in a tunable order too);
// 4. drop the unit loops (fold_unit_extent_dims_via_slices): the block is a
//    (k, m0, n0) contraction; vectorize it, hoist the C block out of the k loop
//    (m0·n0/16 accumulators in zmm registers), outer products -> broadcast + FMA;
// 5. the unpack of C is left whole: it lowers to tile-by-tile loops writing straight into
//    C (pack_loops.py). Tiling it by its inner tiles made every m0×n0 step allocate a
//    scratch tile, unpack into it and copy it to C: ~120 µs of 2 ms at 384×1000×256.
//    The lowering (unpack_in_place.py) makes the packed C a strided view of C: the
//    micro-kernels write C directly and the unpack goes. When m0 or n0 does not divide M
//    or N (384x1000x256: N padded to 1024 by n0 = 64), the fused fill and the C block's
//    loads/stores are clamped to C's edges (masked in the last panel): the padded lanes
//    are computed but never stored (unpack_in_place_edges.py).
// m0 * n0 / 16 accumulators must leave registers for the B rows and broadcasts: at most 24.
// n0 is a power-of-2 multiple of 16 lanes: LLVM splits <32 x float> and <64 x float> evenly
// into zmm registers; with n0 = 48 the block ran at 0.14x OpenBLAS (measured at 1024^3).
// rk >= 2: a k step of 1 would be a unit loop folded away (the block becomes an
// elementwise multiply-add, mul + add instead of FMA).
//
// xlinalg.constraint: m0 * n0 <= 384
// xlinalg.constraint: tk % rk == 0
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root
      : (!transform.any_op) -> !transform.any_op

    %m0 = transform.tune.knob<"m0"> options = [4, 6, 8, 12, 16] -> !transform.param<i64>
    %n0 = transform.tune.knob<"n0"> options = [16, 32, 64] -> !transform.param<i64>
    %tm = transform.tune.knob<"tm1"> options = [1, 2, 4, 8, 16, 32] -> !transform.param<i64>
    %tn = transform.tune.knob<"tn1"> options = [1, 2, 4, 8, 16] -> !transform.param<i64>
    %tk = transform.tune.knob<"tk"> options = [64, 128, 256, 512, 1024] -> !transform.param<i64>
    %rk = transform.tune.knob<"rk"> options = [2, 4, 8] -> !transform.param<i64>

    %packed = transform.structured.pack %mm packed_sizes = [%m0, %n0, 0]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> !transform.op<"linalg.generic">
    %pack_b = transform.get_producer_of_operand %packed[1]
      : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
    %g, %pb, %ub = transform.structured.pack_transpose %pack_b with_compute_op(%packed) outer_perm = [1, 0]
      : (!transform.op<"linalg.pack">, !transform.op<"linalg.generic">)
      -> (!transform.op<"linalg.generic">, !transform.op<"linalg.pack">, !transform.any_op)

    %cache = transform.tune.alternatives<"cache_order"> -> !transform.any_op {
      %t, %l:2 = transform.structured.fuse %g tile_sizes [%tm, %tn, 0, 0, 0] interchange [0, 1, 2, 3, 4]
        : (!transform.op<"linalg.generic">, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }, {
      %t, %l:2 = transform.structured.fuse %g tile_sizes [%tm, %tn, 0, 0, 0] interchange [1, 0, 2, 3, 4]
        : (!transform.op<"linalg.generic">, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }

    // zero_c = 1: register blocks (m0 × n0, m blocks outer) tiled on tensors with the fill
    // fused into each and marked; after bufferization the marked fills are generalized and
    // vectorized, their zeros forwarded into the accumulators (CSE, then the hoisting): no
    // zeroing of C and no load of the C blocks. The alternative yields the register tile
    // size of m and n for the tiling after bufferization: 1, or 0 when already tiled.
    %reg1 = transform.tune.alternatives<"zero_c"> -> !transform.param<i64> {
      %r = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.yield %r : !transform.param<i64>
    }, {
      %t, %l:2 = transform.structured.fuse %cache tile_sizes [1, 1, 0, 0, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      %fills = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
      transform.annotate %fills "zero_c" : !transform.any_op
      %r = transform.param.constant 0 : i64 -> !transform.param<i64>
      transform.yield %r : !transform.param<i64>
    }

    %b = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true}
      : (!transform.any_op) -> !transform.any_op
    %mmt4d = transform.structured.match ops{["linalg.generic"]} in %b
      : (!transform.any_op) -> !transform.any_op
    %kt, %kl = transform.structured.tile_using_for %mmt4d tile_sizes [0, 0, %tk, 0, 0]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    // register blocks: m blocks outer (an A panel stays in L1 across the B panels) or n panels outer
    %reg = transform.tune.alternatives<"reg_order"> -> !transform.any_op {
      %t, %l:3 = transform.structured.tile_using_for %kt tile_sizes [%reg1, %reg1, %rk, 0, 0]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }, {
      %t, %l:3 = transform.structured.tile_using_for %kt tile_sizes [%reg1, %reg1, %rk, 0, 0] interchange = [1, 0, 2, 3, 4]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }
    // zero_c = 1: the fills of the register blocks as generics, vectorized with them
    %zero_fills = transform.structured.match ops{["linalg.fill"]} attributes{zero_c} in %b
      : (!transform.any_op) -> !transform.any_op
    %zero_generics = transform.structured.generalize %zero_fills : (!transform.any_op) -> !transform.any_op

    %f = transform.structured.match ops{["func.func"]} in %b : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
    } : !transform.any_op
    // the folded block (k, m0, n0); vector sizes mask a partial k step at the end of K
    // (zero_c = 1: the folded fills, m0 × n0 of static shape, first; then only the blocks are generics)
    %zero = transform.structured.match ops{["linalg.generic"]}
        attributes{iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>]} in %b
      : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %zero : !transform.any_op
    %block = transform.structured.match ops{["linalg.generic"]} in %b : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %block vector_sizes [%rk, %m0, %n0]
      : !transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>
    transform.apply_cse to %f : !transform.any_op

    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f1 {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
    transform.yield
  }
}
