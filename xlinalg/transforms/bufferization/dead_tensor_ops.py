"""Before one-shot bufferization: drop destination-style ops whose results only give shapes.

On tensors a `linalg` op is pure: if its results are only read by `tensor.dim`,
the op computes nothing anybody needs. This happens after a second level of
tile-and-fuse on a partial tile: the producers were fused into the inner loop,
but the inner loop's bound is `tensor.dim` of the original producer's result (the
tile's width). Bufferized as it stands, the dead producer would write its buffer
(a side effect on memrefs) and cost a pass over the tile. Upstream folds
`tensor.dim` of a destination-style op's result to `tensor.dim` of its init
(the `DimOfDestStyleOp` canonicalization) and then erases the dead op; this does
the same, transitively (the dead op's inputs may become dead in turn). A
structured op on tensors whose results are not used at all goes too.
"""

from __future__ import annotations

from xdsl.dialects import func, tensor
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter

from xlinalg.interfaces.structured import StructuredOpInterface


def _fold_dims_and_erase(op: Operation) -> bool:
    """Fold `tensor.dim` of `op`'s results to its inits; erase `op` if then unused."""
    if not isinstance(op, StructuredOpInterface):
        return False
    outputs = list(op.get_outputs())
    if len(outputs) != len(op.results) or not all(
        isinstance(r.type, TensorType) for r in op.results
    ):
        return False
    if not all(isinstance(use.operation, tensor.DimOp) for r in op.results for use in r.uses):
        return False
    for result, init in zip(op.results, outputs):
        for use in list(result.uses):
            use.operation.operands[use.index] = init
    Rewriter.erase_op(op)
    return True


def erase_shape_only_ops(fn: func.FuncOp) -> None:
    """Erase the structured ops on tensors whose results are only used by `tensor.dim`
    (those uses now take the init's dim), until none is left."""
    changed = True
    while changed:
        changed = False
        for op in reversed(list(fn.walk())):
            changed = _fold_dims_and_erase(op) or changed
