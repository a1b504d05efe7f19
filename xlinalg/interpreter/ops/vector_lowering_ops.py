"""The vector lowerings of `xlinalg.dialects.transform.vector_lowering_ops`: seed 002's
`transform.vector.*` ops and current upstream's `transform.apply_patterns.vector.*`
descriptors run the same payload rewrite (`REWRITES`, by the op's last name component),
with the op's options (`option_values()`) as its arguments.

The `transform.vector.*` ops (FunctionalStyle + TransformEach + TransformWithPatterns)
return their targets. Upstream's TransformWithPatternsOpTrait applies patterns greedily,
which needs an isolated-from-above target (a function, a module): anything else is a
definite failure, as upstream's "applies only to isolated-from-above targets". Patterns
that do not apply leave their op alone (no failure); an error inside a rewrite is a
definite failure naming the target.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation
from xdsl.traits import IsolatedFromAbove

from xlinalg.dialects.transform.vector_lowering_ops import (
    VECTOR_LOWERING_OPS,
    VECTOR_PATTERN_DESCRIPTORS,
    VectorRewriteOptions,
)
from xlinalg.dialects.transform.vector_ops import FunctionalTransform
from xlinalg.errors import XlinalgError
from xlinalg.interpreter.diagnostics import describe_payload, failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.ops.patterns import tracking
from xlinalg.interpreter.registry import PatternSet, register, register_patterns
from xlinalg.transforms.vector import lower_multi_reduction
from xlinalg.transforms.vector.cast_away_unit_dim import cast_away_leading_one_dims
from xlinalg.transforms.vector.lower_broadcast import lower_broadcasts
from xlinalg.transforms.vector.lower_mask import lower_create_masks, lower_mask_ops, lower_masks
from xlinalg.transforms.vector.lower_shape_cast import lower_shape_casts
from xlinalg.transforms.vector.lower_transfer import lower_transfers
from xlinalg.transforms.vector.lower_transpose import lower_transposes
from xlinalg.transforms.vector.transfer_drop_unit_dims import apply_rank_reducing_subview_patterns
from xlinalg.transforms.vector.transfer_permutation import apply_transfer_permutation_patterns
from xlinalg.transforms.vector.transfer_split import split_transfers
from xlinalg.transforms.vector.transfer_to_scf import transfer_to_scf


def _multi_reduction_stage(stage: Callable[..., object]) -> Callable[[Operation, str], None]:
    def run(target: Operation, strategy: str) -> None:
        lower_multi_reduction.apply_stage(target, stage, strategy)

    return run


REWRITES: dict[str, Callable[..., object]] = {
    "lower_multi_reduction": lower_multi_reduction.lower_multi_reductions,
    # Current upstream splits lower_multi_reduction into these three stages.
    "reorder_multi_reduction_dims": _multi_reduction_stage(lower_multi_reduction.reorder_dims),
    "multi_reduction_flattening": _multi_reduction_stage(lower_multi_reduction.flatten),
    "multi_reduction_unrolling": _multi_reduction_stage(lower_multi_reduction.unroll),
    "lower_transpose": lower_transposes,
    "lower_broadcast": lower_broadcasts,
    "lower_shape_cast": lower_shape_casts,
    "lower_masks": lower_create_masks,
    "lower_masked_transfers": lower_mask_ops,
    "lower_mask": lower_masks,
    "lower_transfer": lower_transfers,
    "transfer_to_scf": transfer_to_scf,
    "split_transfer_full_partial": split_transfers,
    "transfer_permutation_patterns": apply_transfer_permutation_patterns,
    "apply_transfer_permutation_patterns": apply_transfer_permutation_patterns,
    "rank_reducing_subview_patterns": apply_rank_reducing_subview_patterns,
    "cast_away_vector_leading_one_dim": cast_away_leading_one_dims,
    "apply_rank_reducing_subview_patterns": apply_rank_reducing_subview_patterns,
}
"""The payload rewrite of each op, by the last component of its name:
`rewrite(target, *op.option_values())`."""


def rewrite_vector(op: Operation, target: Operation) -> None:
    """Run `op`'s payload rewrite on the ops nested in `target`."""
    assert isinstance(op, VectorRewriteOptions)
    REWRITES[op.name.rsplit(".", 1)[-1]](target, *op.option_values())


def apply_vector_lowering(op: Operation, interp: Interpreter) -> None:
    assert isinstance(op, VectorRewriteOptions)
    assert isinstance(op, FunctionalTransform)  # every VECTOR_LOWERING_OPS class is both
    targets = interp.state.get_ops(op.target, op)
    for target in targets:
        if target.get_trait(IsolatedFromAbove) is None:
            raise failure(
                op,
                f"applies only to isolated-from-above targets (it applies "
                f"patterns greedily), got {describe_payload(target)}",
                silenceable=False,
            )
    with tracking(interp, targets):
        for target in targets:
            try:
                rewrite_vector(op, target)
            except XlinalgError as err:
                raise failure(
                    op,
                    f"pattern application failed on {describe_payload(target)}: {err}",
                    silenceable=False,
                ) from err
    interp.state.bind(op.transformed, targets)


for _op in VECTOR_LOWERING_OPS:
    register(_op)(apply_vector_lowering)
for _descriptor in VECTOR_PATTERN_DESCRIPTORS:
    register_patterns(_descriptor, PatternSet(rewrite=rewrite_vector))
