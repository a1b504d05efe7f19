"""`transform.structured.pack_greedily`: find the matmul in a linalg op and pack it
(upstream `linalg::packMatmulGreedily`).

Contraction dims are inferred from the indexing maps of an op with two inputs
and one output (upstream `inferContractionDims`): m = parallel dims used by
the lhs and the output but not the rhs, n = parallel dims used by the rhs and
the output but not the lhs, k = reduction dims used by both inputs but not the
output; the innermost (last) candidate of each is taken. Then:

1. the op is generalized;
2. its loops are interchanged so that m, n, k are the most minor, ordered by
   `inner_dims_order`: `inner_dims_order[i]` is the position among the three
   minor dims of (m, n, k)[i] — with [1, 2, 0] the minor dims are k, m, n
   (checked against iree-opt; the spec's prose says only "ordered according
   to inner_dims_order");
3. it is packed with `packed_sizes` (for m, n, k) on those dims; a 0 size
   with a non-zero `padded_sizes_next_multiple_of` packs the whole dim rounded
   up to that multiple (a static dim only).

Returns None when no matmul is found (the transform op then returns the
original op, as the spec says).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Operation
from xdsl.ir.affine import AffineDimExpr, AffineMap

from xlinalg.errors import TransformFailure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.transforms.linalg.generalize import generalize
from xlinalg.transforms.linalg.interchange import interchange
from xlinalg.transforms.linalg.pack import PackResult, pack_op


def _dims(map_: AffineMap) -> set[int] | None:
    if not all(isinstance(e, AffineDimExpr) for e in map_.results):
        return None
    return {e.position for e in map_.results if isinstance(e, AffineDimExpr)}


def infer_matmul_dims(op: StructuredOpInterface) -> tuple[int, int, int] | None:
    """(m, n, k) loop dims of the matmul embedded in `op`, or None."""
    if len(op.get_inputs()) != 2 or len(op.get_outputs()) != 1:
        return None
    lhs, rhs, out = (_dims(m) for m in op.get_indexing_maps())
    if lhs is None or rhs is None or out is None:
        return None
    iterators = op.get_iterator_types()
    parallel = {d for d, it in enumerate(iterators) if it == IteratorType.PARALLEL}
    m = sorted(d for d in parallel if d in lhs and d in out and d not in rhs)
    n = sorted(d for d in parallel if d in rhs and d in out and d not in lhs)
    k = sorted(
        d
        for d in range(len(iterators))
        if d not in parallel and d in lhs and d in rhs and d not in out
    )
    if not m or not n or not k:
        return None
    return m[-1], n[-1], k[-1]


def pack_greedily(
    op: Operation,
    packed_sizes: Sequence[int],
    padded_next_multiple_of: Sequence[int],
    inner_dims_order: Sequence[int],
) -> PackResult | None:
    if not isinstance(op, StructuredOpInterface):
        return None
    order = list(inner_dims_order) or [0, 1, 2]
    if sorted(order) != [0, 1, 2]:
        raise TransformFailure(
            f"pack_greedily: matmul_inner_dims_order {order} is not a permutation of [0, 1, 2]",
            silenceable=False,
        )
    sizes = list(packed_sizes) + [0] * (3 - len(packed_sizes))
    multiples = list(padded_next_multiple_of) + [0] * (3 - len(padded_next_multiple_of))
    if len(sizes) != 3 or len(multiples) != 3:
        raise TransformFailure(
            "pack_greedily: expected at most 3 matmul sizes (m, n, k)", silenceable=False
        )
    mnk = infer_matmul_dims(op)
    if mnk is None:
        return None
    ranges = op.get_static_loop_ranges()
    for i, dim in enumerate(mnk):
        extent = ranges[dim]
        if sizes[i] == 0 and multiples[i] and extent is not None:
            sizes[i] = -(-extent // multiples[i]) * multiples[i]
    if not any(sizes):
        return None
    minor = [0, 0, 0]
    for i, position in enumerate(order):
        minor[position] = mnk[i]
    num_loops = op.get_num_loops()
    permutation = [d for d in range(num_loops) if d not in mnk] + minor
    generic = generalize(op)
    if permutation != list(range(num_loops)):
        generic = interchange(generic, permutation)
    loop_sizes = [0] * (num_loops - 3) + [sizes[mnk.index(d)] for d in minor]
    return pack_op(generic, loop_sizes)


__all__ = ["infer_matmul_dims", "pack_greedily"]
