// Tile-and-fuse + vectorization of an elementwise chain on 2-D tensors
// (e.g. examples/elementwise_chain.mlir: relu((a + b) * c)).
//
// 1. tile the LAST op of the chain (the one whose result is returned) into
//    tile_m x tile_n tiles;
// 2. fuse its producers into the tile loop one after the other (each computes
//    just the tile the next one reads: no full-size temporaries, one pass over
//    memory instead of three) -- either explicitly with
//    fuse_into_containing_op, or greedily with structured.fuse;
// 3. "vectorize": 0 = bufferize, then tile every op of the tile into rows of vec_n
//    lanes and vectorize them op by op (masked on the partial rows of non-dividing
//    shapes); 1 = bufferize and leave the scalar loops to LLVM's auto-vectorizer;
//    2 = fuse once more, down to rows of vec_n lanes (one loop computes the whole
//    chain on vec_n lanes), bufferize, vectorize: the producers write the output
//    tile in place (the bufferizer's empty-tensor elimination and in-place rule for
//    elementwise chains), so there is no temporary, and LLVM forwards the stored
//    intermediates in registers: 3 loads, the arithmetic and 1 store per vector.
//
// The chain's ops are matched by name: the last op is the `linalg.generic`,
// its producers `linalg.mul` and `linalg.add` (adapt the names to another chain).
//
// xlinalg.constraint: tile_m * tile_n <= 8192
// xlinalg.constraint: tile_n % vec_n == 0
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %last = transform.structured.match ops{["linalg.generic"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %mul = transform.structured.match ops{["linalg.mul"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %add = transform.structured.match ops{["linalg.add"]} in %root
      : (!transform.any_op) -> !transform.any_op

    %tm = transform.tune.knob<"tile_m"> options = [1, 2, 4, 8, 16] -> !transform.param<i64>
    %tn = transform.tune.knob<"tile_n"> options = [64, 128, 200, 256, 512, 1024] -> !transform.param<i64>
    %vn = transform.tune.knob<"vec_n"> options = [8, 16, 32, 40, 64] -> !transform.param<i64>

    %tile = transform.tune.alternatives<"fusion"> -> !transform.any_op {
      %t, %l:2 = transform.structured.tile_using_for %last tile_sizes [%tm, %tn]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
      %f1, %c1 = transform.structured.fuse_into_containing_op %mul into %l#0
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      %f2, %c2 = transform.structured.fuse_into_containing_op %add into %c1
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }, {
      %t, %l:2 = transform.structured.fuse %last tile_sizes [%tm, %tn]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.yield %t : !transform.any_op
    }

    transform.tune.alternatives<"vectorize"> {
      // register level, op by op: rows of vec_n lanes, each op of the tile in turn (its
      // operands are in L1/L2: the tile was just computed)
      %buffers = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true}
        : (!transform.any_op) -> !transform.any_op
      %ops = transform.structured.match interface{LinalgOp} in %buffers
        : (!transform.any_op) -> !transform.any_op
      %rows, %rl:2 = transform.structured.tile_using_for %ops tile_sizes [1, %vn]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %rows vector_sizes [1, %vn]
        : !transform.any_op, !transform.param<i64>
      transform.yield
    }, {
      // scalar tiles, left to LLVM's auto-vectorizer
      %buffers = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true}
        : (!transform.any_op) -> !transform.any_op
      transform.yield
    }, {
      // register level, fused: tile the tile's last op into rows of vec_n lanes and fuse
      // its producers again, so one loop computes the whole chain on vec_n lanes (the
      // intermediate values are stored to and reloaded from the same place of the output
      // tile: LLVM forwards them in registers)
      %r, %rl:2 = transform.structured.fuse %tile tile_sizes [1, %vn]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
      // the producers outside the row loop are dead once the inner loop's bound no
      // longer takes tensor.dim of one of them (a partial tile's width)
      %fn = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
      transform.apply_patterns to %fn {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %buffers = transform.bufferization.one_shot_bufferize %root {bufferize_function_boundaries = true}
        : (!transform.any_op) -> !transform.any_op
      %ops = transform.structured.match interface{LinalgOp} in %buffers
        : (!transform.any_op) -> !transform.any_op
      transform.structured.vectorize %ops vector_sizes [1, %vn]
        : !transform.any_op, !transform.param<i64>
      transform.yield
    }
    transform.yield
  }
}
