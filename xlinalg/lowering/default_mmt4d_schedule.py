"""The built-in schedule of the `linalg.mmt4d` ops that `xlinalg.compile` materializes from
leftover encodings (`materialize_remaining_encodings`), as IREE gives a materialized mmt4d
its register-blocked, vectorized micro-kernel: without it they lowered to scalar loops
(0.4-2 GFLOP/s).

It is `search_spaces/encoding_matmul.mlir` with its knobs fixed, applied only to the
mmt4d ops the materialization made (they carry `DEFAULT_SCHEDULE_ATTR`; any other op,
also one the user's schedule made, is left alone): with the host tiles (m0, n0, 1)
(16x16x1 on AVX-512) the mmt4d is tiled into cache blocks (4 m0-rows x 4 n0-panels x
512 steps of k), then register blocks of 4 k steps; its unit dims are dropped and the
(k, m0, n0) block is vectorized, the accumulator hoisted out of the k loop (m0*n0/16
zmm registers) and the outer products become broadcast + FMA. The module is bufferized
first (the vector hoisting works on memrefs), as compile's lowering would do anyway.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from xlinalg.dialects.context import make_context, parse_module
from xlinalg.interpreter import apply_schedule
from xlinalg.ir.walk import walk_ops
from xlinalg.transforms.iree_linalg_ext.materialize_encoding import (
    DEFAULT_SCHEDULE_ATTR,
    ENCODING_OPS,
    MaterializeEncodingPass,
    host_tile_sizes,
)

_BLOCK_ATTR = "xlinalg.default_mmt4d_block"

#: Cache blocks (tm1 m0-rows, tn1 n0-panels, tk steps of k) and register-block k steps.
CACHE_TILES = (4, 4, 512)
REGISTER_K = 4


def schedule_text(tile_m: int, tile_n: int) -> str:
    tm1, tn1, tk = CACHE_TILES
    return f"""module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.consumed}}) {{
    %b = transform.bufferization.one_shot_bufferize %root {{bufferize_function_boundaries = true}}
      : (!transform.any_op) -> !transform.any_op
    %mmt4d = transform.structured.match ops{{["linalg.mmt4d"]}} attributes{{{DEFAULT_SCHEDULE_ATTR}}} in %b
      : (!transform.any_op) -> !transform.any_op
    %g = transform.structured.generalize %mmt4d : (!transform.any_op) -> !transform.any_op
    %cache, %l:3 = transform.structured.tile_using_for %g tile_sizes [{tm1}, {tn1}, {tk}, 0, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %reg, %r:3 = transform.structured.tile_using_for %cache tile_sizes [1, 1, {REGISTER_K}, 0, 0, 0] interchange = [1, 0, 2, 3, 4, 5]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %reg "{_BLOCK_ATTR}" : !transform.any_op
    %f = transform.structured.match ops{{["func.func"]}} in %b : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {{
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
    }} : !transform.any_op
    %block = transform.structured.match ops{{["linalg.generic"]}} attributes{{{_BLOCK_ATTR}}} in %b
      : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %block vector_sizes [{REGISTER_K}, {tile_m}, {tile_n}] : !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f1 {{
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    }} : !transform.any_op
    transform.yield
  }}
}}
"""


def apply_default_mmt4d_schedule(module: ModuleOp, tile_m: int, tile_n: int) -> bool:
    """Run the default schedule on the marked mmt4d ops of `module` (in place); whether
    there were any."""
    if not any(DEFAULT_SCHEDULE_ATTR in op.attributes for op in module.walk()):
        return False
    apply_schedule(module, parse_module(schedule_text(tile_m, tile_n), "<default mmt4d schedule>"))
    for op in module.walk():
        op.attributes.pop(DEFAULT_SCHEDULE_ATTR, None)
        op.attributes.pop(_BLOCK_ATTR, None)
    return True


def materialize_remaining_encodings(module: ModuleOp, ctx: Context | None = None) -> bool:
    """Materialize the encodings a (scheduled) payload still holds with the host's tiles
    (`host_tile_sizes`) and give the mmt4d ops this makes the default vectorized schedule
    (`default_mmt4d_schedule.py`; ops the user's schedule made are not touched):
    `xlinalg.compile` calls it before lowering, so a kernel written with set_encoding /
    unset_encoding / upper_bound_tile_size runs fast without a schedule naming the pass.
    Returns whether anything was rewritten."""
    if not any(isinstance(op, ENCODING_OPS) for op in walk_ops(module)):
        return False
    tile_m, tile_n, tile_k = host_tile_sizes()
    MaterializeEncodingPass(tile_m, tile_n, tile_k, mark_default=True).apply(
        ctx or make_context(), module
    )
    apply_default_mmt4d_schedule(module, tile_m, tile_n)
    return True


__all__ = [
    "CACHE_TILES",
    "REGISTER_K",
    "apply_default_mmt4d_schedule",
    "materialize_remaining_encodings",
    "schedule_text",
]
