"""Software prefetch of the next iteration's tile: after an op reading a tile of a memref
inside an `scf.for` (a `memref.subview` whose offsets or sizes depend on the loop's
induction variable), one `memref.prefetch` per cache line of the tile the next iteration
reads, guarded by that iteration existing:

```
scf.for %n = %lb to %ub step %s {
  %w = affine.min affine_map<(d0) -> (-d0 + 40, 16)> (%n)
  %t = memref.subview %B[%b, 0, %n] [1, 256, %w] [1, 1, 1] : ...
  linalg.copy ins(%t : ...) outs(%buf : ...)
  %next = arith.addi %n, %s : index
  %more = arith.cmpi slt, %next, %ub : index
  scf.if %more {
    %w1 = affine.min affine_map<(d0) -> (-d0 + 40, 16)> (%next)
    %t1 = memref.subview %B[%b, 0, %next] [1, 256, %w1] [1, 1, 1] : ...
    %d2 = memref.dim %t1, %c2 : ...
    scf.for %i0 = 0 to 1 { scf.for %i1 = 0 to 256 { scf.for %i2 = 0 to %d2 step 16 {
      memref.prefetch %t1[%i0, %i1, %i2], read, locality<3>, data : ...
    } } }
  }
  ...
}
```

The lines of tile n + 1 then arrive while tile n is computed (batch_matmul.mlir's B
copy: its 256 lines, 1 KiB apart, otherwise miss at the start of every n tile). The loop
is the innermost enclosing `scf.for` the tile moves with: loops in between re-read the
same tile (nothing new to fetch). The subview and the side-effect-free ops computing its
operands inside that loop (a partial tile's width `min(tile, N - n)`) are recomputed at
the next induction value; sizes that are not static are read back with `memref.dim`. The
tile's innermost stride must be 1 (one prefetch per 64-byte line: the first element of
a line, or of the tile's row, is always inside the tile); the next tile lies in the
memref whenever the next iteration runs (the subview of a loop-tiled op at the next
offset), so no address leaves the memref.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import affine, arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from xlinalg.dialects.memref_prefetch import PrefetchOp
from xlinalg.errors import TransformFailure, silenceable_failure
from xlinalg.interfaces.destination_style import DestinationStyleOpInterface
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import defined_inside

#: bytes of a cache line (x86-64, AArch64)
CACHE_LINE = 64
#: side-effect free upstream (`Pure`) but declared without traits in xDSL 0.74
_PURE_WITHOUT_TRAIT = (affine.MinOp,)


def _index(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, IndexType()))


def _slice(tile: memref.SubviewOp, loop: scf.ForOp) -> list[Operation] | None:
    """The ops inside `loop` that `tile` is computed from (`tile` last, defs before uses)
    if they can be recomputed at the next induction value and involve it: side-effect
    free, without regions, using no value bound inside the loop but its induction
    variable. None otherwise (a view of a buffer allocated in the loop, a tile fixed
    across the loop's iterations or moved by a nested loop)."""
    iv = loop.body.block.args[0]
    ops: list[Operation] = []
    seen: set[Operation] = set()
    moves = False

    def visit(op: Operation) -> bool:
        nonlocal moves
        seen.add(op)
        if op.regions or not (isinstance(op, _PURE_WITHOUT_TRAIT) or is_side_effect_free(op)):
            return False
        for value in op.operands:
            owner = value.owner
            if value is iv:
                moves = True
            elif defined_inside(value, loop) and (
                isinstance(owner, Block) or (owner not in seen and not visit(owner))
            ):
                return False
        ops.append(op)
        return True

    return ops if visit(tile) and moves else None


def _reads(op: Operation) -> Sequence[SSAValue]:
    """The operands `op` only reads: a (destination-style) linalg op's inputs, else all."""
    if isinstance(op, StructuredOpInterface):
        return op.get_inputs()
    if isinstance(op, DestinationStyleOpInterface):
        return op.get_dps_inputs()
    return op.operands


def _tile_read(op: Operation) -> tuple[scf.ForOp, list[Operation]]:
    """The innermost `scf.for` around `op` that the one memref tile `op` reads moves with,
    and the ops computing that tile inside it (the subview last)."""
    tiles = [v.owner for v in _reads(op) if isinstance(v.owner, memref.SubviewOp)]
    loop = op.parent_op()
    if not isinstance(loop, scf.ForOp):
        raise silenceable_failure(f"'{op.name}' is not directly inside an scf.for")
    while isinstance(loop, scf.ForOp):
        moving = [
            s for tile in tiles if loop.is_ancestor(tile) and (s := _slice(tile, loop)) is not None
        ]
        if len(moving) > 1:
            raise silenceable_failure(
                f"expected one operand of '{op.name}' to be a subview that moves with "
                f"its loop (found {len(moving)})"
            )
        if moving:
            return loop, moving[0]
        loop = loop.parent_op()
    raise silenceable_failure(
        f"no operand of '{op.name}' is a subview that moves with an enclosing scf.for "
        f"and can be recomputed for its next iteration (side-effect-free ops of its "
        f"induction variable and values defined outside it)"
    )


def _prefetch_nest(tile: SSAValue, locality: int) -> list[Operation]:
    """Loops over `tile` (unit innermost stride) with one prefetch per line."""
    ty = tile.type
    assert isinstance(ty, MemRefType)
    shape = ty.get_shape()
    strides = ty.get_strides()
    if not shape or (strides and strides[-1] != 1):
        raise silenceable_failure(f"prefetching needs a tile of unit innermost stride, not {ty}")
    line = max(1, CACHE_LINE // (ty.element_type.bitwidth // 8))
    blocks = [Block(arg_types=[IndexType()]) for _ in shape]
    ivs = [block.args[0] for block in blocks]
    blocks[-1].add_ops([PrefetchOp(tile, ivs, locality=locality), scf.YieldOp()])
    zero = _index(0)
    outer: list[Operation] = [zero]
    for dim in reversed(range(len(shape))):
        bound: list[Operation]
        if shape[dim] < 0:
            bound = [index := _index(dim), memref.DimOp(tile, index)]
        else:
            bound = [_index(shape[dim])]
        step = _index(line if dim == len(shape) - 1 else 1)
        loop = scf.ForOp(zero, bound[-1].results[0], step, [], Region(blocks[dim]))
        if dim:
            blocks[dim - 1].add_ops([*bound, step, loop, scf.YieldOp()])
        else:
            outer.extend([*bound, step, loop])
    return outer


def prefetch_next_iteration(op: Operation, locality: int = 3) -> scf.IfOp:
    """Prefetches, right after `op`, the tile `op` reads in the next iteration of the
    innermost enclosing `scf.for` that moves it (see the module doc). Returns the guarding
    `scf.if`."""
    if not 0 <= locality <= 3:
        raise TransformFailure(f"locality {locality} is not in [0, 3]", silenceable=False)
    loop, computed = _tile_read(op)
    iv = loop.body.block.args[0]
    next_iv = arith.AddiOp(iv, loop.step)
    more = arith.CmpiOp(next_iv, loop.ub, "slt")
    then = Block()
    mapping: dict[SSAValue, SSAValue] = {iv: next_iv.result}
    clones = [source.clone(value_mapper=mapping) for source in computed]
    then.add_ops([*clones, *_prefetch_nest(clones[-1].results[0], locality), scf.YieldOp()])
    guard = scf.IfOp(more, [], Region(then))
    Rewriter.insert_op([next_iv, more, guard], InsertPoint.after(op))
    return guard
