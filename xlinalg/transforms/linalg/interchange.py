"""Loop interchange of a `linalg.generic` (upstream's `interchangeGenericOp`).

With `permutation = [2, 0, 1]`, new loop `i` is old loop `permutation[i]`:
every indexing map `m` becomes `m ∘ P⁻¹` where `P = (d0..dn) -> (d_perm[0], ...)`,
the iterator types are permuted the same way, and `linalg.index k` in the body
becomes `linalg.index j` with `permutation[j] == k`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import Rewriter

from xlinalg.dialects.linalg import GenericOp, IndexOp
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface


def permutation_map(permutation: Sequence[int]) -> AffineMap:
    """`(d0, ..., dn-1) -> (d_perm[0], ..., d_perm[n-1])` (upstream's `getPermutationMap`)."""
    n = len(permutation)
    return AffineMap(n, 0, tuple(AffineExpr.dimension(p) for p in permutation))


def inverse_permutation(permutation: Sequence[int]) -> list[int]:
    inverse = [0] * len(permutation)
    for new_position, old_position in enumerate(permutation):
        inverse[old_position] = new_position
    return inverse


def interchange(op: Operation, permutation: Sequence[int]) -> Operation:
    """Replace the `linalg.generic` `op` by one whose loops are permuted; return the new op.

    An empty permutation is a no-op (as upstream's transform op). A named op, a
    wrong-length vector or a non-permutation is a silenceable `TransformFailure`.
    """
    if not isinstance(op, GenericOp):
        if isinstance(op, StructuredOpInterface):
            raise silenceable_failure(
                f"interchange: '{op.name}' is a named op; only 'linalg.generic' can be "
                "interchanged (apply generalize first)"
            )
        raise silenceable_failure(f"interchange: '{op.name}' is not a 'linalg.generic'")
    perm = list(permutation)
    if not perm:
        return op
    num_loops = op.get_num_loops()
    if len(perm) != num_loops:
        raise silenceable_failure(
            f"interchange: the permutation {perm} has {len(perm)} entries but the op has "
            f"{num_loops} loop(s)"
        )
    if sorted(perm) != list(range(num_loops)):
        raise silenceable_failure(f"interchange: {perm} is not a permutation of 0..{num_loops - 1}")

    inverse = inverse_permutation(perm)
    # P⁻¹ maps new loop dims to old ones: old dim k is new dim inverse[k].
    inverse_map = permutation_map(inverse)
    new_maps = [m.compose(inverse_map) for m in op.get_indexing_maps()]
    old_iterators = op.get_iterator_types()
    new_iterators = [old_iterators[p] for p in perm]

    body = op.body.clone()
    for index_op in [o for o in body.walk() if isinstance(o, IndexOp)]:
        replacement = IndexOp(inverse[index_op.dim.value.data])
        Rewriter.replace_op(index_op, replacement)

    new_op = GenericOp(
        list(op.inputs),
        list(op.outputs),
        body,
        new_maps,
        new_iterators,
        op.res.types,
        op.doc,
        op.library_call,
    )
    new_op.attributes.update(op.attributes)
    Rewriter.replace_op(op, new_op)
    return new_op
