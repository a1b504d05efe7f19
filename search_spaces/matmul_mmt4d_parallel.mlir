// matmul_mmt4d.mlir on `threads` cores: the same data tiling (pack A into M1×K×m0 row
// panels and B into N1×K×n0 column panels every call, an m0×n0 register block of the packed
// C in zmm), with every stage split over `threads` workers by `tile_using_forall` on the
// bufferized ops (each forall runs on xlinalg's persistent native thread pool,
// `xlinalg/lowering/forall_to_threads.py` + `xlinalg/backend/thread_pool.py`; the thread
// count is also capped at run time by the CPUs the caller may use):
//
// 1. pack A (split over its M1 panels) and pack B (over its N1 panels), the fill of the
//    packed C (over M1);
// 2. the mmt4d contraction split over M1 row blocks or N1 column panels (alternatives
//    "parallel_dim"), then, in each worker, the cache tiles / register block / vectorization
//    of matmul_mmt4d.mlir (same knob names and constraints);
// 3. the unpack of C (alternatives "unpack_c"): 0 leaves it whole, and the lowering
//    (unpack_in_place.py) makes the packed C a strided view of C, its edge tiles clamped
//    when m0 or n0 does not divide M or N: the micro-kernels write C and no unpack runs
//    (384x1000x256: 205 vs 189 GFLOP/s for 1, same-process A/B, load 4.7); 1 splits it over
//    M (a worker's rows start on an m0 boundary when M / threads is a multiple of m0: then
//    it unpacks straight into C, otherwise through a scratch tile) for when the packed C
//    cannot be a view of C.
// The stages are separate foralls (each hands its parts to the pool's already running
// workers: a few us): tiling on buffers keeps every stage in place (a forall on tensors
// with the packs fused in is bufferized with a copy of each worker's C block today).
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

    %b = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true}
      : (!transform.any_op) -> !transform.any_op
    %threads = transform.tune.knob<"threads"> options = [1, 2] -> !transform.param<i64>
    %mm4 = transform.structured.match ops{["linalg.generic"]} in %b
      : (!transform.any_op) -> !transform.any_op
    %packs = transform.structured.match ops{["linalg.pack"]} in %b : (!transform.any_op) -> !transform.any_op
    %tp, %fp = transform.structured.tile_using_forall %packs num_threads [%threads, 0]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fills = transform.structured.match ops{["linalg.fill"]} in %b : (!transform.any_op) -> !transform.any_op
    %tf, %ff = transform.structured.tile_using_forall %fills num_threads [%threads, 0, 0, 0]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %mmt4d = transform.tune.alternatives<"parallel_dim"> -> !transform.any_op {
      %t, %forall = transform.structured.tile_using_forall %mm4 num_threads [%threads, 0, 0, 0, 0]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }, {
      %t, %forall = transform.structured.tile_using_forall %mm4 num_threads [0, %threads, 0, 0, 0]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }

    %cache = transform.tune.alternatives<"cache_order"> -> !transform.any_op {
      %t, %l:3 = transform.structured.tile_using_for %mmt4d tile_sizes [%tm, %tn, %tk, 0, 0] interchange = [0, 1, 2, 3, 4]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }, {
      %t, %l:3 = transform.structured.tile_using_for %mmt4d tile_sizes [%tm, %tn, %tk, 0, 0] interchange = [1, 0, 2, 3, 4]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }
    // register blocks: m blocks outer (an A panel stays in L1 across the B panels) or n panels outer
    %reg = transform.tune.alternatives<"reg_order"> -> !transform.any_op {
      %t, %l:3 = transform.structured.tile_using_for %cache tile_sizes [1, 1, %rk, 0, 0]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }, {
      %t, %l:3 = transform.structured.tile_using_for %cache tile_sizes [1, 1, %rk, 0, 0] interchange = [1, 0, 2, 3, 4]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }

    %f = transform.structured.match ops{["func.func"]} in %b : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
    } : !transform.any_op
    // the folded block (k, m0, n0); vector sizes mask a partial k step at the end of K
    %block = transform.structured.match ops{["linalg.generic"]} in %b : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %block vector_sizes [%rk, %m0, %n0]
      : !transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>

    // the unpack of C: left whole (the lowering makes the packed C a view of C, edge tiles
    // clamped: no unpack pass at all) or split over the threads by rows, tile by tile
    transform.tune.alternatives<"unpack_c"> {
      transform.yield
    }, {
      %unpack0 = transform.structured.match ops{["linalg.unpack"]} in %b : (!transform.any_op) -> !transform.any_op
      %unpack, %fu = transform.structured.tile_using_forall %unpack0 num_threads [%threads, 0]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %ut, %ul:2 = transform.structured.tile_using_for %unpack tile_sizes [%m0, %n0]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield
    }

    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f1 {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
    transform.yield
  }
}
