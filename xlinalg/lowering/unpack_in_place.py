"""`xl-unpack-in-place`: compute a packed buffer directly in the memory of its unpack.

Data tiling computes into a packed scratch buffer and copies it back with
`linalg.unpack`:

```
%p = memref.alloc() : memref<128x32x8x32xf32>
... writes and reads of %p (fill, the mmt4d micro-kernel, their subviews) ...
linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [8, 32] into %C : ... -> memref<1024x1024xf32>
memref.dealloc %p
```

When the inner tiles divide the destination (no padding), every packed element
is exactly one element of `%C`, so the packed buffer *is* a strided view of
`%C`: outer dim `j` (unpacked dim `d = outer_dims_perm[j]`) steps by
`stride(d) * tile(d)`, inner tile `i` by `stride(inner_dims_pos[i])`
(`memref<128x32x8x32xf32, strided<[8192, 32, 1024, 1]>>` above). The
allocation becomes that `memref.reinterpret_cast` of `%C`, the unpack and the
dealloc go, and the subviews of the buffer get the view's strides: the
micro-kernel writes its register block straight into `C` (as BLIS does), and a
pass over the packed result (read + write of all of `C`) and its allocation
disappear.

Preconditions (otherwise nothing changes), all checked before the first edit:
static shapes and tiles that divide; the destination's layout strided with
static strides and offset, defined before the allocation; the allocation, the
unpack and everything in between in one block; the buffer used only by ops in
between (through subviews: any op that only reads or writes memory through its
operands, e.g. `linalg`, `vector.transfer_*`, `memref.load/store`), by the
unpack and by its dealloc; and no op in between touching memory that is not a
local allocation (so nothing there can read or write `%C` early: a function
argument may alias it) -- except the function's arguments when `%C` is one of its
result buffers (`xlinalg.results_from`: every caller allocates it anew, so no
argument aliases it; e.g. the packs of A and B inside a batch loop).

With padding (a tile that does not divide its dimension) the view's edge tiles
reach past `%C`'s rows; the rewrite then also needs every access to be a fill of
whole tiles or a transfer of one whole tile that can be clamped to `%C`
(`unpack_in_place_edges.py`), and clamps them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import DenseArrayBase, MemRefType, ModuleOp, StridedLayoutAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg.pack import UnPackOp
from xlinalg.dialects.memref import CastOp
from xlinalg.ir.passes import register_pass
from xlinalg.ir.subview_type import static_or_none, strides_and_offset, subview_result_type
from xlinalg.ir.walk import walk_ops
from xlinalg.lowering.unpack_in_place_edges import EdgeAccess, Place, clamped_access, rewrite_access
from xlinalg.transforms.bufferization.one_shot import RESULTS_FROM_ATTR

# Ops that are views: their result aliases their first operand (with xlinalg's own
# memref.cast, which bufferization makes for a tensor cast).
_VIEWS = (memref.SubviewOp, memref.ReinterpretCastOp, memref.CastOp, CastOp)


def _root(value: SSAValue) -> SSAValue:
    """The buffer a view chain starts from."""
    while isinstance(value.owner, _VIEWS):
        value = value.owner.operands[0]
    return value


def _is_local(value: SSAValue) -> bool:
    return isinstance(value.owner, memref.AllocOp | memref.AllocaOp)


def _is_argument(value: SSAValue) -> bool:
    """An argument of the function the value is in."""
    owner = value.owner
    return isinstance(owner, Block) and isinstance(owner.parent_op(), func.FuncOp)


def _is_result_buffer(value: SSAValue) -> bool:
    """A result buffer of a bufferized tensor function (listed in `xlinalg.results_from`):
    every caller allocates it anew (`lowering/bufferize`, `lowering/abi.py`), so no other
    argument aliases it and ops in between may touch the arguments."""
    if not _is_argument(value):
        return False
    assert isinstance(value, BlockArgument)
    function = value.block.parent_op()
    where = function.attributes.get(RESULTS_FROM_ATTR) if function is not None else None
    return isinstance(where, DenseArrayBase) and value.index in where.get_values()


def packed_view_type(unpack: UnPackOp, padded: bool = False) -> MemRefType[Attribute] | None:
    """The type of the packed buffer of `unpack` as a view of its destination, or None
    when the packed elements are not exactly the destination's (padding, dynamic sizes,
    a layout that is not statically strided). With `padded`, tiles that do not divide
    are allowed: the view's edge tiles then reach past the destination's rows."""
    dest_type, packed_type = unpack.unpacked.type, unpack.packed.type
    if not isinstance(dest_type, MemRefType) or not isinstance(packed_type, MemRefType):
        return None
    shape, tiles = dest_type.get_shape(), unpack.get_static_tiles()
    layout = strides_and_offset(dest_type)
    if layout is None:
        return None
    strides = [s for s in layout[0] if s is not None]
    offset = layout[1]
    if len(strides) != len(layout[0]) or offset is None:
        return None
    positions, perm = unpack.get_inner_dims_pos(), unpack.get_outer_dims_perm()
    tile_of = dict(zip(positions, tiles, strict=True))
    if any(t <= 0 or shape[d] < 0 or (shape[d] % t and not padded) for d, t in tile_of.items()):
        return None
    expected = [-(-shape[d] // tile_of.get(d, 1)) for d in perm] + list(tiles)
    if list(packed_type.get_shape()) != expected:
        return None
    view_strides = [strides[d] * tile_of.get(d, 1) for d in perm] + [strides[d] for d in positions]
    return MemRefType(
        packed_type.element_type,
        expected,
        StridedLayoutAttr(view_strides, offset),
        packed_type.memory_space,
    )


def _between(first: Operation, last: Operation | None = None) -> Iterator[Operation]:
    """The ops of `first`'s block strictly between `first` and `last` (None: the block's
    end), nested ops included (also used by pack_in_place.py)."""
    op = first.next_op
    while op is not None and op is not last:
        yield from op.walk()
        op = op.next_op


def _defined_before(value: SSAValue, alloc: memref.AllocOp) -> bool:
    """Whether `value` is a block argument, or the result of an op before `alloc` in its
    block (also used by pack_in_place.py)."""
    owner, block = value.owner, alloc.parent_block()
    return not isinstance(owner, Operation) or (
        block is not None
        and owner.parent_block() is block
        and block.get_operation_index(owner) <= block.get_operation_index(alloc)
    )


def _kept_dims(view: memref.SubviewOp, sizes: Sequence[int]) -> list[int] | None:
    """The dims of `view`'s source that its (rank-reduced) result keeps, in order: every
    size but 1, and unit dims too where the result has them (told apart by their stride in
    the current types, as upstream's rank-reduction mask); None if that is ambiguous."""
    old, source = view.result.type, view.source.type
    if not isinstance(old, MemRefType) or not isinstance(source, MemRefType):
        return None
    shape = list(old.get_shape())
    kept = [i for i, size in enumerate(sizes) if size != 1]
    if len(kept) == len(shape):
        return kept
    full = subview_result_type(
        source,
        static_or_none(view.static_offsets.get_values()),
        static_or_none(sizes),
        static_or_none(view.static_strides.get_values()),
    )
    layouts = (strides_and_offset(full) if full is not None else None), strides_and_offset(old)
    if layouts[0] is None or layouts[1] is None:
        return None
    full_strides, old_strides = layouts[0][0], layouts[1][0]
    kept = []
    for i, size in enumerate(sizes):
        j = len(kept)
        same_stride = (
            j < len(shape) and old_strides[j] is not None and full_strides[i] == old_strides[j]
        )
        if j < len(shape) and size == shape[j] and (size != 1 or same_stride):
            kept.append(i)
        elif size != 1:
            return None
    return kept if len(kept) == len(shape) else None


def _retype_subview(
    view: memref.SubviewOp, source_type: MemRefType[Attribute]
) -> MemRefType[Attribute] | None:
    """The result type of `view` on a source of `source_type`, or None when its rank
    reduction cannot be told (`_kept_dims`)."""
    old = view.result.type
    sizes = view.static_sizes.get_values()
    full = subview_result_type(
        source_type,
        static_or_none(view.static_offsets.get_values()),
        static_or_none(sizes),
        static_or_none(view.static_strides.get_values()),
    )
    if full is None or not isinstance(old, MemRefType):
        return None
    if full.get_num_dims() == old.get_num_dims():
        return full
    kept = _kept_dims(view, sizes)
    layout = strides_and_offset(full)
    if kept is None or layout is None or [sizes[i] for i in kept] != list(old.get_shape()):
        return None
    return MemRefType(
        full.element_type,
        [sizes[i] for i in kept],
        StridedLayoutAttr([layout[0][i] for i in kept], layout[1]),
        full.memory_space,
    )


@dataclass
class _Plan:
    alloc: memref.AllocOp
    unpack: UnPackOp
    view_type: MemRefType[Attribute]
    retyped: list[tuple[memref.SubviewOp, MemRefType[Attribute]]]
    deallocs: list[memref.DeallocOp]
    edges: list[EdgeAccess]
    """With padding: every access, to be clamped to the destination (unpack_in_place_edges.py)."""


def _plan(unpack: UnPackOp) -> _Plan | None:
    """What to rewrite for `unpack`, or None when a precondition fails (nothing edited)."""
    alloc, block = unpack.packed.owner, unpack.parent_block()
    if not isinstance(alloc, memref.AllocOp) or alloc.parent_block() is not block or block is None:
        return None
    view_type = packed_view_type(unpack)
    padded = view_type is None
    if padded:
        view_type = packed_view_type(unpack, padded=True)
    dest = unpack.unpacked
    if view_type is None or not (_is_local(_root(dest)) or isinstance(_root(dest).owner, Block)):
        return None
    if not _defined_before(dest, alloc):
        return None
    inside = set(_between(alloc, unpack))
    unaliased = _is_result_buffer(_root(dest))
    for op in inside:
        for operand in op.operands:
            if (
                isinstance(operand.type, MemRefType)
                and _root(operand) is not alloc.memref
                and not _is_local(_root(operand))
                and not (unaliased and _is_argument(_root(operand)))
            ):
                return None
            if isinstance(operand.type, MemRefType) and _root(operand) is _root(dest):
                return None
        if isinstance(op, func.CallOp):
            return None
    retyped: list[tuple[memref.SubviewOp, MemRefType[Attribute]]] = []
    deallocs: list[memref.DeallocOp] = []
    edges: list[EdgeAccess] = []
    # the buffer's uses, through subviews, with the types they get on the view (and with
    # padding where they lie in the packed buffer)
    work: list[tuple[SSAValue, MemRefType[Attribute], Place]] = [
        (alloc.memref, view_type, Place.whole(view_type.get_shape()))
    ]
    while work:
        value, vtype, place = work.pop()
        for use in value.uses:
            user = use.operation
            if user is unpack:
                continue
            if isinstance(user, memref.DeallocOp) and value is alloc.memref:
                deallocs.append(user)
                continue
            if user not in inside or isinstance(
                user,
                scf.YieldOp
                | func.ReturnOp
                | memref.CastOp
                | memref.ReinterpretCastOp
                | memref.CollapseShapeOp
                | memref.ExpandShapeOp,
            ):
                return None
            if isinstance(user, memref.SubviewOp):
                new = _retype_subview(user, vtype)
                sub_place = place.subview(user) if padded else place
                if new is None or sub_place is None:
                    return None
                retyped.append((user, new))
                work.append((user.result, new, sub_place))
            elif padded:
                access = clamped_access(user, value, place, unpack)
                if access is None:
                    return None
                edges.append(access)
    return _Plan(alloc, unpack, view_type, retyped, deallocs, edges)


def _view_in_place(
    base: SSAValue,
    offset: SSAValue | int,
    view_type: MemRefType[Attribute],
    retyped: list[tuple[memref.SubviewOp, MemRefType[Attribute]]],
    alloc: memref.AllocOp,
) -> memref.ReinterpretCastOp:
    """The `view_type` reinterpret cast of `base` that takes the place of `alloc` (inserted
    before it), with the subviews of `retyped` rebuilt on their new types (also used by
    pack_in_place.py)."""
    layout = view_type.layout
    assert isinstance(layout, StridedLayoutAttr)
    strides = [s for s in layout.get_strides() if s is not None]
    assert len(strides) == len(layout.strides)  # a static view type
    cast = memref.ReinterpretCastOp.from_dynamic(
        base, [offset], list(view_type.get_shape()), strides, view_type
    )
    Rewriter.insert_op(cast, InsertPoint.before(alloc))
    for view, new_type in retyped:  # parents first: a rebuilt view feeds the next ones
        new = memref.SubviewOp(
            view.source,
            view.offsets,
            view.sizes,
            view.strides,
            view.static_offsets,
            view.static_sizes,
            view.static_strides,
            new_type,
        )
        Rewriter.replace_op(view, new)
    return cast


def _replace_alloc(
    alloc: memref.AllocOp, cast: memref.ReinterpretCastOp, erased: list[Operation]
) -> None:
    """Erase `erased` (the pack/unpack and the deallocs), then `alloc`, its uses moved to `cast`."""
    for op in erased:
        Rewriter.erase_op(op)
    alloc.memref.replace_all_uses_with(cast.result)
    Rewriter.erase_op(alloc)


def _apply(plan: _Plan) -> None:
    layout = plan.view_type.layout
    assert isinstance(layout, StridedLayoutAttr)
    offset = layout.get_offset()
    assert offset is not None  # a static view type
    cast = _view_in_place(plan.unpack.unpacked, offset, plan.view_type, plan.retyped, plan.alloc)
    for access in plan.edges:
        rewrite_access(access, plan.unpack)
    for view, _ in reversed(plan.retyped if plan.edges else []):  # views only the accesses used
        if not view.result.uses:
            Rewriter.erase_op(view)
    _replace_alloc(plan.alloc, cast, [plan.unpack, *plan.deallocs])


def unpack_in_place(root: Operation) -> int:
    """Rewrite every unpack of `root` that qualifies; returns how many."""
    plans = [
        p for op in walk_ops(root) if isinstance(op, UnPackOp) and (p := _plan(op)) is not None
    ]
    for plan in plans:
        _apply(plan)
    return len(plans)


@register_pass
@dataclass(frozen=True)
class UnpackInPlacePass(ModulePass):
    """Packed buffers that are unpacked without padding become views of the destination."""

    name = "xl-unpack-in-place"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        unpack_in_place(op)


__all__ = ["UnpackInPlacePass", "packed_view_type", "unpack_in_place"]
