"""Software prefetch of the next iteration's tile: after an op reading a tile of a memref
inside an `scf.for` (`memref.subview` of a memref defined outside the loop, offsets
depending on the loop's induction variable), one `memref.prefetch` per cache line of the
same tile in the next iteration, guarded by that iteration existing:

```
scf.for %n = %lb to %ub step %s {
  %t = memref.subview %B[%b, 0, %n] [1, 256, 16] [1, 1, 1] : ...
  linalg.copy ins(%t : ...) outs(%buf : ...)
  %next = arith.addi %n, %s : index
  %more = arith.cmpi slt, %next, %ub : index
  scf.if %more {
    %t1 = memref.subview %B[%b, 0, %next] [1, 256, 16] [1, 1, 1] : ...
    scf.for %i0 = 0 to 1 { scf.for %i1 = 0 to 256 { scf.for %i2 = 0 to 16 step 16 {
      memref.prefetch %t1[%i0, %i1, %i2], read, locality<3>, data : ...
    } } }
  }
  ...
}
```

The lines of tile n + 1 then arrive while tile n is computed (batch_matmul.mlir's B
copy: its 256 lines, 1 KiB apart, otherwise miss at the start of every n tile). The
tile's sizes must be static and its innermost stride 1 (one prefetch per 64-byte line);
the next tile lies in the memref whenever the next iteration runs (the subview of a
loop-tiled op at the next offset), so no address leaves the memref.
"""

from __future__ import annotations

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.memref_prefetch import PrefetchOp
from xlinalg.errors import TransformFailure

#: bytes of a cache line (x86-64, AArch64)
CACHE_LINE = 64


def _index(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, IndexType()))


def _tile_read(op: Operation, loop: scf.ForOp) -> memref.SubviewOp:
    """The one memref operand of `op` that is a subview depending on `loop`'s iv."""
    iv = loop.body.block.args[0]
    tiles = [v.owner for v in op.operands
             if isinstance(v.owner, memref.SubviewOp) and iv in v.owner.operands
             and v.owner.parent_block() is loop.body.block]
    if len(tiles) != 1:
        raise TransformFailure(
            f"expected one operand of '{op.name}' to be a subview at the induction variable of "
            f"its loop (found {len(tiles)})", silenceable=True)
    tile = tiles[0]
    inside = [v for v in tile.operands if v is not iv and isinstance(v.owner, Operation)
              and loop.is_ancestor(v.owner)]
    if inside:
        raise TransformFailure("the tile's memref or offsets are computed inside the loop (only "
                               "the induction variable may vary)", silenceable=True)
    return tile


def _prefetch_nest(tile: SSAValue, locality: int) -> list[Operation]:
    """Loops over `tile` (static shape, unit innermost stride) with one prefetch per line."""
    ty = tile.type
    assert isinstance(ty, MemRefType)
    shape = ty.get_shape()
    strides = ty.get_strides()
    if not shape or any(d < 0 for d in shape) or (strides and strides[-1] != 1):
        raise TransformFailure(f"prefetching needs a tile of static shape and unit innermost "
                               f"stride, not {ty}", silenceable=True)
    line = max(1, CACHE_LINE // (ty.element_type.bitwidth // 8))  # type: ignore[attr-defined]
    blocks = [Block(arg_types=[IndexType()]) for _ in shape]
    ivs = [block.args[0] for block in blocks]
    blocks[-1].add_ops([PrefetchOp(tile, ivs, locality=locality), scf.YieldOp()])
    zero = _index(0)
    outer: list[Operation] = [zero]
    for dim in reversed(range(len(shape))):
        ub, step = _index(shape[dim]), _index(line if dim == len(shape) - 1 else 1)
        loop = scf.ForOp(zero, ub, step, [], Region(blocks[dim]))
        target = blocks[dim - 1] if dim else None
        if target is None:
            outer.extend([ub, step, loop])
        else:
            target.add_ops([ub, step, loop, scf.YieldOp()])
    return outer


def prefetch_next_iteration(op: Operation, locality: int = 3) -> scf.IfOp:
    """Prefetches, right after `op`, the tile `op` reads in the next iteration of its
    enclosing `scf.for` (see the module doc). Returns the guarding `scf.if`."""
    loop = op.parent_op()
    if not isinstance(loop, scf.ForOp):
        raise TransformFailure(f"'{op.name}' is not directly inside an scf.for", silenceable=True)
    if not 0 <= locality <= 3:
        raise TransformFailure(f"locality {locality} is not in [0, 3]", silenceable=False)
    tile = _tile_read(op, loop)
    iv = loop.body.block.args[0]
    next_iv = arith.AddiOp(iv, loop.step)
    more = arith.CmpiOp(next_iv, loop.ub, "slt")
    then = Block()
    next_tile = tile.clone()
    next_tile.operands = [next_iv.result if v is iv else v for v in next_tile.operands]
    then.add_ops([next_tile, *_prefetch_nest(next_tile.result, locality), scf.YieldOp()])
    guard = scf.IfOp(more, [], Region(then))
    Rewriter.insert_op([next_iv, more, guard], InsertPoint.after(op))
    return guard
