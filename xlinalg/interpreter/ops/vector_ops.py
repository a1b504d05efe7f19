"""Vectorization transform ops: structured.vectorize(_children_and_apply_patterns),
structured.masked_vectorize,
hoist_redundant_vector_transfers, vector.lower_contraction, vector.lower_outerproduct."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.dialects.transform import TransformParamHandleType
from xdsl.ir import Operation

from xlinalg.dialects.transform.vector_ops import (
    ApplyLowerContractionPatternsOp,
    ApplyLowerOuterProductPatternsOp,
    HoistRedundantVectorTransfersOp,
    LowerContractionOp,
    LowerOuterProductOp,
    MaskedVectorizeOp,
    VectorizeChildrenAndApplyPatternsOp,
    VectorizeOp,
)
from xlinalg.dialects.vector import ContractionOp, OuterProductOp
from xlinalg.errors import TransformFailure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.interpreter.diagnostics import (
    Lazy,
    describe_handle,
    describe_payload,
    failure,
    failure_of,
)
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import PatternSet, register, register_patterns
from xlinalg.ir.walk import walk_ops
from xlinalg.transforms.linalg.vectorize import check_vectorizable, vectorize
from xlinalg.transforms.linalg.vectorize_pad import check_pad_vectorizable
from xlinalg.transforms.vector.hoist import hoist_redundant_vector_transfers
from xlinalg.transforms.vector.lower_contraction import lower_contraction_to_outerproducts
from xlinalg.transforms.vector.lower_outerproduct import lower_outerproduct


def _vector_sizes(op: VectorizeOp | MaskedVectorizeOp, interp: Interpreter) -> list[int] | None:
    mixed = op.get_mixed_vector_sizes()
    if mixed is None:
        return None
    sizes: list[int] = []
    for v in mixed:
        if isinstance(v, int):
            sizes.append(v)
            continue
        if isinstance(v.type, TransformParamHandleType):
            params = interp.state.get_params(v, op)
            if len(params) != 1 or not isinstance(params[0], IntegerAttr):
                raise failure(
                    op,
                    f"vector size {describe_handle(v)} must hold one integer param",
                    silenceable=False,
                )
            sizes.append(params[0].value.data)
            continue
        sizes.append(_size_from_op_handle(op, v, interp))
    return sizes


def _size_from_op_handle(op: VectorizeOp | MaskedVectorizeOp, v, interp: Interpreter) -> int:
    """A vector size given by a handle: exactly one payload op with one index result, a
    constant (upstream's definite failures otherwise)."""
    payload = interp.state.get_ops(v, op)
    if len(payload) != 1:
        raise failure(
            op,
            f"requires vector size handle {describe_handle(v)} that is mapped "
            f"to 1 payload op, got {len(payload)}",
            silenceable=False,
        )
    (p,) = payload
    if len(p.results) != 1 or not isinstance(p.results[0].type, IndexType):
        raise failure(
            op,
            f"requires vector size payload op with 1 index result, got {describe_payload(p)}",
            silenceable=False,
        )
    if not isinstance(p, arith.ConstantOp) or not isinstance(p.value, IntegerAttr):
        raise failure(
            op, f"requires constant vector size, got {describe_payload(p)}", silenceable=False
        )
    return p.value.value.data


def apply_vectorize(op: VectorizeOp | MaskedVectorizeOp, interp: Interpreter) -> None:
    """structured.vectorize and structured.masked_vectorize (the same transform; the
    seed's masked_vectorize always has vector sizes)."""
    sizes = _vector_sizes(op, interp)
    for target in interp.state.get_ops(op.target, op):
        with failure_of(op, Lazy("cannot vectorize {}: ", target)):
            vectorize(target, sizes, op.vectorize_nd_extract is not None)


register(VectorizeOp)(apply_vectorize)
register(MaskedVectorizeOp)(apply_vectorize)


def _isolated(
    op: VectorizeChildrenAndApplyPatternsOp
    | HoistRedundantVectorTransfersOp
    | LowerContractionOp
    | LowerOuterProductOp,
    interp: Interpreter,
) -> list[Operation]:
    return interp.state.get_ops(op.target, op)


@register(VectorizeChildrenAndApplyPatternsOp)
def apply_vectorize_children(op: VectorizeChildrenAndApplyPatternsOp, interp: Interpreter) -> None:
    """Vectorize the structured ops inside the targets (and, with `vectorize_padding`, the
    `tensor.pad` ops of static shape, as upstream's pad vectorization patterns)."""

    nd_extract = op.vectorize_nd_extract is not None
    targets = _isolated(op, interp)
    for target in targets:
        for inner in [
            o
            for o in walk_ops(target)
            if isinstance(o, StructuredOpInterface)
            or (op.vectorize_padding is not None and isinstance(o, tensor.PadOp))
        ]:
            try:
                if isinstance(inner, tensor.PadOp):
                    check_pad_vectorizable(inner, None)
                else:
                    check_vectorizable(inner, None, nd_extract)
            except TransformFailure:
                continue  # upstream: ops that cannot be vectorized are left alone
            vectorize(inner, None, nd_extract)
    interp.state.bind(op.transformed, targets)


@register(HoistRedundantVectorTransfersOp)
def apply_hoist_vector_transfers(op: HoistRedundantVectorTransfersOp, interp: Interpreter) -> None:
    targets = _isolated(op, interp)
    for target in targets:
        hoist_redundant_vector_transfers(target)
    interp.state.bind(op.transformed, targets)


@register(LowerContractionOp)
def apply_lower_contraction(op: LowerContractionOp, interp: Interpreter) -> None:
    if op.strategy() != "outerproduct":
        raise failure(
            op,
            f"lowering strategy '{op.strategy()}' is not supported yet (only outerproduct)",
            silenceable=False,
        )
    targets = _isolated(op, interp)
    for target in targets:
        for contract in [o for o in walk_ops(target) if isinstance(o, ContractionOp)]:
            try:
                lower_contraction_to_outerproducts(contract)
            except TransformFailure:
                continue  # a pattern that does not apply leaves the op alone
    interp.state.bind(op.transformed, targets)


@register(LowerOuterProductOp)
def apply_lower_outerproduct(op: LowerOuterProductOp, interp: Interpreter) -> None:
    targets = _isolated(op, interp)
    for target in targets:
        for outer in [o for o in walk_ops(target) if isinstance(o, OuterProductOp)]:
            try:
                lower_outerproduct(outer)
            except TransformFailure:
                continue
    interp.state.bind(op.transformed, targets)


def _lower_all(target: Operation, op_type: type[Operation], lower: Callable[[Any], object]) -> None:
    """Apply `lower` to every `op_type` op nested in `target` (not `target`: patterns apply to
    its body); forms it rejects stay (as a pattern)."""
    for inner in [o for o in walk_ops(target)[1:] if isinstance(o, op_type)]:
        try:
            lower(inner)
        except TransformFailure:
            continue


def _lower_contractions(descriptor: Operation, target: Operation) -> None:
    _lower_all(target, ContractionOp, lower_contraction_to_outerproducts)


def _lower_outerproducts(descriptor: Operation, target: Operation) -> None:
    _lower_all(target, OuterProductOp, lower_outerproduct)


register_patterns(ApplyLowerContractionPatternsOp, PatternSet(rewrite=_lower_contractions))
register_patterns(ApplyLowerOuterProductPatternsOp, PatternSet(rewrite=_lower_outerproducts))
