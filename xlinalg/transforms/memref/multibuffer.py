"""Multi-buffering an allocation used in a loop (upstream `memref::multiBuffer`).

```
%buf = memref.alloc() : memref<4x8xf32>          %mb = memref.alloc() : memref<2x4x8xf32>
scf.for %i = %lb to %ub step %s {          ==>    scf.for %i = %lb to %ub step %s {
  "write"(%buf) ...  "read"(%buf) ...               %k = ((%i - %lb) floordiv %s) mod 2
}                                                   %v = memref.subview %mb[%k, 0, 0] [1, 4, 8] [1, 1, 1]
                                                       : memref<2x4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: ?>>
                                                    "write"(%v) ... "read"(%v) ... }
```
Consecutive iterations then use different buffers, so the reuse of `%buf`
across iterations no longer serializes them. Unless `skip_analysis`, the
buffer must be provably overwritten before it is read in every iteration (no
data is carried from one iteration to the next): its first access in the loop
body must be a full write (`memref.store` does not count: it writes one element).
"""

from __future__ import annotations

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import MemRefType, NoneAttr, StridedLayoutAttr
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg import GenericOp
from xlinalg.dialects.memref import COPY_OPS
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import IndexBuilder, constant_index_value
from xlinalg.ir.subview_type import identity_strides


def _enclosing_loop(alloc: Operation, user: Operation) -> scf.ForOp | None:
    """The outermost `scf.for` around `user` that sits in the alloc's region."""
    region = alloc.parent_region()
    found: scf.ForOp | None = None
    current = user.parent_op()
    while current is not None and current is not alloc.parent_op():
        if isinstance(current, scf.ForOp):
            found = current
        if current.parent_region() is region:
            break
        current = current.parent_op()
    return found


def _overwrites(op: Operation, buffer: SSAValue) -> bool:
    """Whether `op` writes every element of `buffer` without reading it first."""
    if isinstance(op, COPY_OPS):
        return op.destination is buffer and op.source is not buffer
    if op.name == "linalg.fill":
        return buffer in op.operands[1:] and op.operands[0] is not buffer
    if isinstance(op, StructuredOpInterface):
        outputs = list(op.get_outputs())
        if buffer not in outputs or buffer in op.get_inputs():
            return False

        if isinstance(op, GenericOp):
            block = op.body.block
            arg = block.args[len(op.get_inputs()) + outputs.index(buffer)]
            return not arg.uses
        return op.name in ("linalg.copy", "linalg.transpose", "linalg.broadcast")
    return False


def multibuffer(
    alloc: memref.AllocOp, factor: int, *, skip_analysis: bool = False
) -> memref.AllocOp:
    """Replace `alloc` by a `factor`-times larger allocation cycled through per
    iteration of the loop using it. Raises a silenceable failure when a
    precondition does not hold."""
    typ = alloc.memref.type
    assert isinstance(typ, MemRefType)
    shape = list(typ.get_shape())
    if any(s < 0 for s in shape) or not isinstance(typ.layout, NoneAttr):
        raise silenceable_failure(
            f"multibuffer: expected a static, identity-layout allocation, got {typ}"
        )
    users = [use.operation for use in alloc.memref.uses]
    deallocs = [u for u in users if isinstance(u, memref.DeallocOp)]
    inside = [u for u in users if u not in deallocs]
    if not inside:
        raise silenceable_failure("multibuffer: the allocation is not used")
    loop = _enclosing_loop(alloc, inside[0])
    if loop is None or any(not loop.is_ancestor(u) for u in inside):
        raise silenceable_failure(
            "multibuffer: every use of the allocation must be inside one scf.for loop"
        )
    if not skip_analysis:
        first = next(op for op in loop.body.walk() if op in inside)
        if not _overwrites(first, alloc.memref):
            raise silenceable_failure(
                "multibuffer: cannot prove that the buffer is overwritten before it is read "
                f"in each iteration (first access: '{first.name}'); data may be carried "
                "across iterations (use skip_analysis to force)"
            )
    new_type = MemRefType(typ.element_type, [factor, *shape], memory_space=typ.memory_space)
    new_alloc = memref.AllocOp([], [], new_type, alloc.alignment)
    Rewriter.insert_op(new_alloc, InsertPoint.before(alloc))

    builder = IndexBuilder(InsertPoint.at_start(loop.body.block))
    iv = loop.body.block.args[0]
    lb, step = constant_index_value(loop.lb), constant_index_value(loop.step)
    if lb is not None and step is not None:
        d0 = AffineExpr.dimension(0)
        index = builder.value(builder.apply(((d0 - lb) // step) % factor, [iv]))
    else:
        diff = arith.SubiOp(iv, loop.lb)
        quot = arith.DivUIOp(diff.result, loop.step)
        rem = arith.RemUIOp(quot.result, builder.constant(factor))
        for op in (diff, quot, rem):
            builder.insert(op)
        index = rem.result
    strides = identity_strides(shape)
    view_type = MemRefType(
        typ.element_type,
        shape,
        StridedLayoutAttr(strides, None),
        typ.memory_space,
    )
    view = memref.SubviewOp.get(
        new_alloc.memref,
        [index, *([0] * len(shape))],
        [1, *shape],
        [1] * (len(shape) + 1),
        view_type,
    )
    builder.insert(view)
    alloc.memref.replace_uses_with_if(view.result, lambda use: use.operation in inside)
    for dealloc in deallocs:
        Rewriter.replace_op(dealloc, memref.DeallocOp.get(new_alloc.memref))
    Rewriter.erase_op(alloc)
    return new_alloc


__all__ = ["multibuffer"]
