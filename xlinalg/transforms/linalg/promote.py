"""Promoting the subview operands of a structured op to local buffers (upstream
`linalg::promoteSubViews`, on memrefs).

For each promoted operand `%sv = memref.subview %big[...] [%s0, %s1] [...]`:
```
%buf  = memref.alloc() : memref<B0xB1xT>            // B = constant bounds of the sizes
%view = memref.subview %buf[0, 0] [%s0, %s1] [1, 1] // the part the op uses
linalg.copy ins(%sv) outs(%view)                    // inputs and outputs are copied in
linalg.<op> ... (%view instead of %sv) ...
linalg.copy ins(%view) outs(%sv)                    // outputs are copied back
memref.dealloc %buf
```
A size's bound is its constant value, or the smallest constant among the results
of the `affine.min` producing it (tiling's partial-tile size); otherwise the buffer
is allocated with the dynamic size. `use_alloca` allocates on the stack.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType, StridedLayoutAttr, i64
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg.named import NAMED_OP_CLASSES
from xlinalg.errors import TransformFailure, silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import IndexBuilder, constant_upper_bound
from xlinalg.ir.subview_type import identity_strides


def _sizes(view: memref.SubviewOp) -> list[SSAValue | int]:
    dynamic = iter(view.sizes)
    return [next(dynamic) if s < 0 else s for s in view.static_sizes.get_values()]


def promote(
    op: Operation,
    operand_indices: Sequence[int] | None = None,
    *,
    use_alloca: bool = False,
    alignment: int | None = None,
) -> Operation:
    """Promote the chosen operands (default: all) of `op` that are subviews.
    Raises a definite failure when none can be promoted (upstream's
    `promoteSubviewsPrecondition` failing is a definite "failed to apply" in
    iree-opt 3.13, also under `failures(suppress)`)."""
    if not isinstance(op, StructuredOpInterface):
        raise silenceable_failure("promotion needs a linalg op")
    if op.results:
        # Upstream promotes memref.subview operands only; on tensors its
        # promoteSubviewsPrecondition fails and the op reports a definite failure.
        raise TransformFailure(
            "promotion works on memref.subview operands; this op is on tensors (bufferize "
            "first, e.g. with transform.bufferization.one_shot_bufferize)",
            silenceable=False,
        )

    copy_cls = NAMED_OP_CLASSES["linalg.copy"]
    operands = op.get_operands_in_order()
    num_inputs = len(op.get_inputs())
    chosen = list(range(len(operands))) if operand_indices is None else list(operand_indices)
    if any(not (0 <= i < len(operands)) for i in chosen):
        raise silenceable_failure(
            f"operand index out of range: the op has {len(operands)} operands"
        )
    candidates = [i for i in chosen if isinstance(operands[i].owner, memref.SubviewOp)]
    if not candidates:
        raise TransformFailure(
            "no operand to promote is a memref.subview (promoteSubviewsPrecondition)",
            silenceable=False,
        )
    builder = IndexBuilder(InsertPoint.before(op))
    after = InsertPoint.after(op)
    new_operands = list(operands)
    copies_back: list[Operation] = []
    frees: list[Operation] = []
    for index in candidates:
        value = operands[index]
        view = value.owner
        assert isinstance(view, memref.SubviewOp)
        typ = value.type
        assert isinstance(typ, MemRefType)
        sizes = _sizes(view)
        bounds = [constant_upper_bound(s) for s in sizes]
        shape = [b if b is not None else DYNAMIC_INDEX for b in bounds]
        dynamic_sizes = [s for s, b in zip(sizes, bounds) if isinstance(s, SSAValue) and b is None]
        buffer_type = MemRefType(typ.element_type, shape)
        align = IntegerAttr(alignment, i64) if alignment is not None else None
        if use_alloca:
            alloc: Operation = memref.AllocaOp.get(
                typ.element_type, alignment, shape, dynamic_sizes
            )
        else:
            alloc = memref.AllocOp(dynamic_sizes, [], buffer_type, align)
        builder.insert(alloc)
        buffer = alloc.results[0]
        if all(isinstance(s, int) for s in sizes) and all(b is not None for b in bounds):
            partial = buffer
        else:
            strides = identity_strides(shape)
            part_type = MemRefType(
                typ.element_type,
                [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes],
                StridedLayoutAttr(strides, 0),
            )
            sub = memref.SubviewOp.get(buffer, [0] * len(sizes), sizes, [1] * len(sizes), part_type)
            builder.insert(sub)
            partial = sub.result
        builder.insert(copy_cls([value], [partial]))
        new_operands[index] = partial
        if index >= num_inputs:
            copies_back.append(copy_cls([partial], [value]))
        if not use_alloca:
            frees.append(memref.DeallocOp.get(buffer))
    promoted = op.clone_with_operands(new_operands[:num_inputs], new_operands[num_inputs:], [])
    builder.insert(promoted)
    for extra in [*copies_back, *frees]:
        Rewriter.insert_op(extra, after)
        after = InsertPoint.after(extra)
    Rewriter.erase_op(op)
    return promoted


__all__ = ["promote"]
