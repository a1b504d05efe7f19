"""Rewriting tensor ops into destination-passing style (upstream
`linalg::rewriteInDestinationPassingStyle`).

- `tensor.from_elements %a, %b, ... : tensor<2x2xT>` becomes a `tensor.empty`
  and one `tensor.insert` per element (row-major); the last insert replaces it.
- `tensor.pad %src low[..] high[..] { yield %v }` with a padding value defined
  outside the pad becomes `tensor.empty` of the padded shape, `linalg.fill`
  with the value, and a `tensor.insert_slice` of the source at the low
  offsets (the op that replaces the pad).
- `tensor.generate` is not in xDSL's tensor dialect, so it cannot occur.
Anything else is a silenceable failure.
"""

from __future__ import annotations

import itertools

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg.named import NAMED_OP_CLASSES
from xlinalg.errors import silenceable_failure
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, mixed_values


def _from_elements(op: tensor.FromElementsOp) -> Operation:
    typ = op.result.type
    assert isinstance(typ, TensorType)
    shape = list(typ.get_shape())
    if any(s < 0 for s in shape):
        raise silenceable_failure("tensor.from_elements with a dynamic shape")
    builder = IndexBuilder(InsertPoint.before(op))
    empty = tensor.EmptyOp([], typ)
    builder.insert(empty)
    current: SSAValue = empty.tensor
    last: Operation = empty
    for element, index in zip(op.elements, itertools.product(*(range(s) for s in shape))):
        insert = tensor.InsertOp(element, current, [builder.constant(i) for i in index])
        builder.insert(insert)
        current, last = insert.result, insert
    Rewriter.replace_op(op, [], [current])
    return last


def _pad(op: tensor.PadOp) -> Operation:
    block = op.region.block
    terminator = block.last_op
    if terminator is None or len(terminator.operands) != 1:
        raise silenceable_failure("tensor.pad without a single yielded value")
    value = terminator.operands[0]
    owner = value.owner
    defined_inside = (
        isinstance(owner, Operation) and owner.parent_block() is block
    ) or value in block.args
    if defined_inside:
        raise silenceable_failure(
            "tensor.pad whose padding value depends on the position is not supported"
        )
    source_type = op.source.type
    result_type = op.result.type
    assert isinstance(source_type, TensorType)
    assert isinstance(result_type, TensorType)
    builder = IndexBuilder(InsertPoint.before(op))
    low = mixed_values(op.static_low.get_values(), list(op.low))
    high = mixed_values(op.static_high.get_values(), list(op.high))
    d0, d1, d2 = (AffineExpr.dimension(i) for i in range(3))
    source_sizes: list[OpFoldResult] = []
    for index, extent in enumerate(source_type.get_shape()):
        if extent >= 0:
            source_sizes.append(extent)
        else:
            dim = tensor.DimOp(op.source, builder.constant(index))
            builder.insert(dim)
            source_sizes.append(dim.result)
    dynamic: list[SSAValue] = []
    for index, extent in enumerate(result_type.get_shape()):
        if extent < 0:
            size = builder.apply(d0 + d1 + d2, [low[index], source_sizes[index], high[index]])
            dynamic.append(builder.value(size))
    empty = tensor.EmptyOp(dynamic, result_type)
    builder.insert(empty)
    fill = NAMED_OP_CLASSES["linalg.fill"]([value], [empty.tensor], [result_type])
    builder.insert(fill)
    rank = len(source_sizes)
    offsets_static = [o if isinstance(o, int) else DYNAMIC_INDEX for o in low]
    sizes_static = [s if isinstance(s, int) else DYNAMIC_INDEX for s in source_sizes]
    insert = tensor.InsertSliceOp.get(
        op.source,
        fill.results[0],
        sizes_static,
        offsets_static,
        [1] * rank,
        offsets=[o for o in low if not isinstance(o, int)],
        sizes=[s for s in source_sizes if not isinstance(s, int)],
        result_type=result_type,
    )
    builder.insert(insert)
    Rewriter.replace_op(op, [], [insert.result])
    return insert


def rewrite_in_destination_passing_style(op: Operation) -> Operation:
    """Rewrite `op`; returns the op that now produces its result."""
    if isinstance(op, tensor.FromElementsOp):
        return _from_elements(op)
    if isinstance(op, tensor.PadOp):
        return _pad(op)
    raise silenceable_failure(f"'{op.name}' has no destination-passing-style rewrite")


__all__ = ["rewrite_in_destination_passing_style"]
