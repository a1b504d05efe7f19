"""`xl-pack-in-place`: read a pack with unit inner tiles straight from its source.

A `linalg.pack` whose inner tiles are all 1 (no padding, no outer permutation) only
appends unit dims: every packed element is the source element at the same outer index.
Data tiling makes such packs for an operand it keeps in its own layout (e.g. A in
`search_spaces/batch_matmul_mmt4d.mlir` with m0 = 1):

```
%p = memref.alloc() : memref<1x256x256x1xf32>
linalg.pack %a inner_dims_pos = [1] inner_tiles = [1] into %p : memref<1x256x256xf32, strided<[65536, 256, 1], offset: ?>> -> ...
... reads of %p (subviews, vector.transfer_read, memref.load) ...
memref.dealloc %p
```

The pack is then a copy (LLVM makes it a `memcpy`) of memory that could be read in
place: the allocation becomes a `memref.reinterpret_cast` of the source with the
source's strides (a unit dim's stride is that of the dim it tiles) and offset, and the
pack and the dealloc go.

Preconditions (otherwise nothing changes), all checked before the first edit: the
allocation and the pack in one block, the source defined before the allocation with
static strides; the buffer used only by the pack, its dealloc, subviews and reads
(`vector.transfer_read`, `memref.load`); and nothing after the pack in that block
(nested ops included) writing or freeing memory that may be the source: a write must
go to a local allocation, or to a result buffer of the function
(`xlinalg.results_from`, which no argument aliases) when the source is an argument.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref, vector
from xdsl.dialects.builtin import MemRefType, ModuleOp, StridedLayoutAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import MemoryEffectKind, get_effects

from xlinalg.dialects.linalg.pack import PackOp
from xlinalg.interfaces.destination_style import DestinationStyleOpInterface
from xlinalg.ir.passes import register_pass
from xlinalg.ir.subview_type import strides_and_offset
from xlinalg.ir.walk import walk_ops
from xlinalg.lowering.unpack_in_place import (
    _between,
    _defined_before,
    _is_argument,
    _is_local,
    _is_result_buffer,
    _replace_alloc,
    _retype_subview,
    _root,
    _view_in_place,
)

_READS = (vector.TransferReadOp, memref.LoadOp)


def unit_pack_view_type(pack: PackOp) -> MemRefType[Attribute] | None:
    """The type of the packed buffer of `pack` as a view of its source, or None when the
    pack is not a plain append of unit dims of a statically strided source."""
    source_type, packed_type = pack.unpacked.type, pack.packed.type
    if not isinstance(source_type, MemRefType) or not isinstance(packed_type, MemRefType):
        return None
    perm, positions = pack.get_outer_dims_perm(), pack.get_inner_dims_pos()
    if (
        pack.has_padding()
        or perm != sorted(perm)
        or any(not isinstance(t, int) or t != 1 for t in pack.mixed_tiles())
    ):
        return None
    layout = strides_and_offset(source_type)
    if layout is None or any(s is None for s in layout[0]):
        return None
    strides, offset = layout
    shape = [*source_type.get_shape(), *[1] * len(positions)]
    if list(packed_type.get_shape()) != shape or any(s < 0 for s in shape):
        return None
    view_strides = [*strides, *[strides[d] for d in positions]]
    return MemRefType(
        packed_type.element_type,
        shape,
        StridedLayoutAttr(view_strides, offset),
        packed_type.memory_space,
    )


def _written(op: Operation) -> list[SSAValue]:
    """The memrefs `op` (without regions of its own) may write or free."""
    if isinstance(op, DestinationStyleOpInterface):
        return list(op.get_dps_inits())
    operands = [o for o in op.operands if isinstance(o.type, MemRefType)]
    effects = get_effects(op)
    if effects is None:
        return operands
    written: list[SSAValue] = []
    for effect in effects:
        if effect.kind in (MemoryEffectKind.WRITE, MemoryEffectKind.FREE):
            if not isinstance(effect.value, SSAValue):  # no value, or a symbol: unknown
                return operands
            written.append(effect.value)
    return written


@dataclass
class _Plan:
    alloc: memref.AllocOp
    pack: PackOp
    view_type: MemRefType[Attribute]
    retyped: list[tuple[memref.SubviewOp, MemRefType[Attribute]]]
    deallocs: list[memref.DeallocOp]


def _plan(pack: PackOp) -> _Plan | None:
    """What to rewrite for `pack`, or None when a precondition fails (nothing edited)."""
    alloc, block, source = pack.packed.owner, pack.parent_block(), pack.unpacked
    if not isinstance(alloc, memref.AllocOp) or block is None or alloc.parent_block() is not block:
        return None
    view_type = unit_pack_view_type(pack)
    if view_type is None:
        return None
    if not _defined_before(source, alloc):
        return None
    source_root = _root(source)
    if not (_is_local(source_root) or _is_argument(source_root)):
        return None
    for op in _between(pack):  # the ops after the pack in its block
        if isinstance(op, func.CallOp):
            return None
        if op.regions:
            continue
        for value in _written(op):
            root = _root(value)
            if root is source_root or not (_is_local(root) or _is_result_buffer(root)):
                return None
    retyped: list[tuple[memref.SubviewOp, MemRefType[Attribute]]] = []
    deallocs: list[memref.DeallocOp] = []
    work: list[tuple[SSAValue, MemRefType[Attribute]]] = [(alloc.memref, view_type)]
    while work:
        value, vtype = work.pop()
        for use in value.uses:
            user = use.operation
            if user is pack:
                continue
            if isinstance(user, memref.DeallocOp) and value is alloc.memref:
                deallocs.append(user)
            elif isinstance(user, memref.SubviewOp):
                new = _retype_subview(user, vtype)
                if new is None:
                    return None
                retyped.append((user, new))
                work.append((user.result, new))
            elif not isinstance(user, _READS) or use.index != 0:
                return None
    return _Plan(alloc, pack, view_type, retyped, deallocs)


def _apply(plan: _Plan) -> None:
    source = plan.pack.unpacked
    layout = plan.view_type.layout
    assert isinstance(layout, StridedLayoutAttr)
    static_offset = layout.get_offset()
    offset: SSAValue | int
    if isinstance(static_offset, int):
        offset = static_offset
    else:  # the source's own (dynamic) offset
        metadata = memref.ExtractStridedMetaDataOp(source)
        Rewriter.insert_op(metadata, InsertPoint.before(plan.alloc))
        offset = metadata.results[1]
    cast = _view_in_place(source, offset, plan.view_type, plan.retyped, plan.alloc)
    _replace_alloc(plan.alloc, cast, [plan.pack, *plan.deallocs])


def pack_in_place(root: Operation) -> int:
    """Rewrite every pack of `root` that qualifies; returns how many."""
    plans = [p for op in walk_ops(root) if isinstance(op, PackOp) and (p := _plan(op)) is not None]
    for plan in plans:
        _apply(plan)
    return len(plans)


@register_pass
@dataclass(frozen=True)
class PackInPlacePass(ModulePass):
    """Buffers packed with unit inner tiles and only read become views of the source."""

    name = "xl-pack-in-place"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pack_in_place(op)


__all__ = ["PackInPlacePass", "pack_in_place", "unit_pack_view_type"]
