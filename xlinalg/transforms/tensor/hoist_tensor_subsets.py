"""Hoisting matching tensor subset extract/insert pairs out of `scf.for`:
the payload side of `transform.structured.hoist_redundant_tensor_subsets`.

A loop-carried tensor `%acc` that the body only reads through one subset and
writes back through the same subset -- `tensor.extract_slice %acc[..]` /
`tensor.insert_slice %x into %acc[..]` with the same offsets, sizes and
strides, or `vector.transfer_read %acc[..]` / `vector.transfer_write %v, %acc[..]`
with the same indices and permutation map, the write yielded (a pair masked by the
tensor's own sizes, as vectorize with vector sizes emits, is first rewritten to the
equivalent `in_bounds = false` pair) -- with every
offset/index invariant in the loop:

```
%r = scf.for %i = ... iter_args(%acc = %init) -> (tensor<64x64xf32>) {
  %s = tensor.extract_slice %acc[%a, %b] [4, 8] [1, 1] : tensor<64x64xf32> to tensor<4x8xf32>
  %t = linalg.matmul ins(...) outs(%s : tensor<4x8xf32>) -> tensor<4x8xf32>
  %u = tensor.insert_slice %t into %acc[%a, %b] [4, 8] [1, 1] : ...
  scf.yield %u : tensor<64x64xf32>
}
```
becomes a loop carrying the subset itself:
```
%s0 = tensor.extract_slice %init[%a, %b] [4, 8] [1, 1] : tensor<64x64xf32> to tensor<4x8xf32>
%r0 = scf.for %i = ... iter_args(%s = %s0) -> (tensor<4x8xf32>) {
  %t = linalg.matmul ins(...) outs(%s : tensor<4x8xf32>) -> tensor<4x8xf32>
  scf.yield %t : tensor<4x8xf32>
}
%r = tensor.insert_slice %r0 into %init[%a, %b] [4, 8] [1, 1] : ...
```
Repeated until nothing more can be hoisted. Applied to an `scf.for`, only that
loop is considered; applied to any other op, every `scf.for` nested in it
(innermost first).
"""

from __future__ import annotations

from xdsl.dialects import affine, arith, scf, tensor, vector
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.ir.affine_utils import defined_inside
from xlinalg.transforms.tensor.slices import same_slice
from xlinalg.transforms.vector.hoist import unmask_boundary_transfers

_INDEX_OPS = (
    affine.MinOp,
    affine.ApplyOp,
    arith.ConstantOp,
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    tensor.DimOp,
)


def _make_invariant(value: SSAValue, loop: scf.ForOp) -> bool:
    """Whether `value` is loop-invariant, moving the side-effect free index computation
    producing it (`affine.min` of an outer iv, constants...) before the loop if needed."""
    if not defined_inside(value, loop):
        return True
    owner = value.owner
    if not isinstance(owner, _INDEX_OPS) or owner.parent_block() is not loop.body.block:
        return False
    if not all(_make_invariant(v, loop) for v in owner.operands):
        return False
    owner.detach()
    Rewriter.insert_op(owner, InsertPoint.before(loop))
    return True


def _invariant(op: Operation, loop: scf.ForOp, skip: SSAValue) -> bool:
    return all(_make_invariant(v, loop) for v in op.operands if v is not skip)


def _matching_pair(loop: scf.ForOp, index: int) -> tuple[Operation, Operation] | None:
    """The (read, write) subset pair on iteration argument `index`, if hoistable."""
    arg = loop.body.block.args[1 + index]
    yield_op = loop.body.block.last_op
    assert isinstance(yield_op, scf.YieldOp)
    yielded = yield_op.operands[index]
    write = yielded.owner
    users = [u.operation for u in arg.uses]
    if len(users) != 2 or write not in users:
        return None
    read = users[0] if users[1] is write else users[1]
    if len(list(yielded.uses)) != 1:
        return None
    if isinstance(read, tensor.ExtractSliceOp) and isinstance(write, tensor.InsertSliceOp):
        if read.source is not arg or write.dest is not arg or not same_slice(read, write):
            return None
        if read.result.type != write.source.type:
            return None
        if not (
            _invariant(read, loop, arg)
            and all(
                _make_invariant(v, loop) for v in (*write.offsets, *write.sizes, *write.strides)
            )
        ):
            return None
        return read, write
    if isinstance(read, vector.TransferReadOp) and isinstance(write, vector.TransferWriteOp):
        if read.source is not arg or write.source is not arg or read.mask or write.mask:
            return None
        if (
            list(read.indices) != list(write.indices)
            or read.permutation_map != write.permutation_map
        ):
            return None
        if read.result.type != write.vector.type or read.in_bounds != write.in_bounds:
            return None
        if not _invariant(read, loop, arg):
            return None
        return read, write
    return None


def _hoist_pair(loop: scf.ForOp, index: int, read: Operation, write: Operation) -> scf.ForOp:
    """Carry the subset instead of the full tensor in iteration argument `index`."""
    init = loop.iter_args[index]
    hoisted_read = read.clone()
    hoisted_read.operands[0] = init
    Rewriter.insert_op(hoisted_read, InsertPoint.before(loop))
    subset_type = hoisted_read.results[0].type

    inits = list(loop.iter_args)
    inits[index] = hoisted_read.results[0]
    body = loop.body.block
    loop.body.detach_block(body)
    old_arg = body.args[1 + index]
    new_arg = body.insert_arg(subset_type, 1 + index)
    read.results[0].replace_all_uses_with(new_arg)
    Rewriter.erase_op(read)
    written = write.operands[0]  # insert_slice source / transfer_write vector
    yield_op = body.last_op
    assert isinstance(yield_op, scf.YieldOp)
    yield_op.operands[index] = written
    Rewriter.erase_op(write)
    assert not old_arg.uses
    body.erase_arg(old_arg)
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, inits, Region(body))
    Rewriter.insert_op(new_loop, InsertPoint.before(loop))

    after = InsertPoint.after(new_loop)
    if isinstance(read, tensor.ExtractSliceOp):
        insert = tensor.InsertSliceOp.build(
            operands=[
                new_loop.results[index],
                init,
                list(read.offsets),
                list(read.sizes),
                list(read.strides),
            ],
            properties={
                "static_offsets": read.static_offsets,
                "static_sizes": read.static_sizes,
                "static_strides": read.static_strides,
            },
            result_types=[init.type],
        )
    else:
        assert isinstance(read, vector.TransferReadOp)
        init_type = init.type
        assert isinstance(init_type, TensorType)
        insert = vector.TransferWriteOp(
            new_loop.results[index],
            init,
            list(read.indices),
            read.in_bounds,
            permutation_map=read.permutation_map,
            result_type=init_type,
        )
    Rewriter.insert_op(insert, after)
    for position, (old, new) in enumerate(zip(loop.results, new_loop.results)):
        old.replace_all_uses_with(insert.results[0] if position == index else new)
    Rewriter.erase_op(loop)
    return new_loop


def hoist_loop(loop: scf.ForOp) -> scf.ForOp:
    """Hoist every hoistable pair out of `loop` (repeatedly); returns the final loop."""
    changed = True
    while changed:
        changed = False
        for index in range(len(loop.iter_args)):
            pair = _matching_pair(loop, index)
            if pair is not None:
                loop = _hoist_pair(loop, index, *pair)
                changed = True
                break
    return loop


def hoist_redundant_tensor_subsets(target: Operation) -> None:
    """See the module docstring. Always succeeds."""
    # transfers masked by their tensor's own sizes (vectorize with vector sizes) become
    # `in_bounds = false` transfers, the same lanes, which pair up below
    unmask_boundary_transfers(target)
    if isinstance(target, scf.ForOp):
        hoist_loop(target)
        return
    loops = [op for op in target.walk(reverse=True) if isinstance(op, scf.ForOp)]
    # innermost first: a loop is visited before any loop containing it
    loops.sort(key=lambda loop: -sum(1 for _ in _ancestors(loop)))
    for loop in loops:
        if loop.parent is not None:
            hoist_loop(loop)


def _ancestors(op: Operation):
    parent = op.parent_op()
    while parent is not None:
        yield parent
        parent = parent.parent_op()


__all__ = ["hoist_loop", "hoist_redundant_tensor_subsets"]
