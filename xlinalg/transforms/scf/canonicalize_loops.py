"""Cheap clean-up of what tiling and unrolling emit (what xDSL's `canonicalize` lacks).

- `scf.for` with a static trip count of 1 becomes its body; with 0 it is removed
  (its results are its init values);
- `affine.apply` / `affine.min` are re-folded: constant operands substituted,
  producing `affine.apply`s composed in, duplicate/unused operands dropped,
  constant results become `arith.constant`s;
- `arith.addi/subi/muli/remsi` on two `index` constants fold to a constant (what peeling
  a loop with constant bounds not known when it was peeled leaves);
- `memref.subview` operands that are constants move into the static lists; when that
  makes the (non-rank-reducing) result type more static, the new view is cast back to the
  old type (upstream's `SubViewOpConstantArgumentFolder`) and the cast is folded into the
  views and linalg ops that use it (upstream's `SubViewOpMemRefCastFolder` and the
  memref.cast folding of linalg ops), e.g. a peeled tile of constant size becomes a
  statically shaped tile;
- `memref.dim` of a memref.cast is that of the cast's source, of a static size that size
  (upstream's `memref::DimOp::fold`), e.g. the row count of a one-trip tile loop's
  statically sized slice, cast back to a dynamic type by bufferization;
- the pure index/view ops left without uses are erased.

Run xDSL's `canonicalize` and `cse` afterwards to hoist and merge constants.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.memref import CAST_OPS, CastOp
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import IndexBuilder, constant_index_value
from xlinalg.ir.passes import register_pass
from xlinalg.ir.subview_type import static_or_none, strides_and_offset, subview_result_type
from xlinalg.ir.walk import walk_ops
from xlinalg.transforms.scf.unroll import promote_if_single_iteration, static_trip_count


def _remsi(a: int, b: int) -> int | None:
    """`arith.remsi`: the remainder of division truncated toward zero (the dividend's
    sign); none for a zero divisor (undefined behaviour: left alone, as upstream)."""
    if b == 0:
        return None
    return (abs(a) % abs(b)) * (1 if a >= 0 else -1)


_FOLDABLE_INDEX_BINOPS: dict[type[Operation], Callable[[int, int], int | None]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.RemSIOp: _remsi,
}

_PURE = (
    arith.ConstantOp,
    affine.ApplyOp,
    affine.MinOp,
    memref.DimOp,
    memref.SubviewOp,
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.RemSIOp,
    *CAST_OPS,
)


def _as_dims(amap: AffineMap) -> list[AffineExpr]:
    """The map's results with symbol s_i renamed to dim d_{num_dims + i}."""
    dims = [AffineExpr.dimension(i) for i in range(amap.num_dims)]
    syms = [AffineExpr.dimension(amap.num_dims + i) for i in range(amap.num_symbols)]
    return [e.replace_dims_and_symbols(dims, syms) for e in amap.results]


def _refold_affine(op: affine.ApplyOp | affine.MinOp) -> bool:
    operands = list(op.operands)
    exprs = _as_dims(op.map.data)
    builder = IndexBuilder(InsertPoint.before(op))
    folded = (
        builder.apply(exprs[0], operands)
        if isinstance(op, affine.ApplyOp)
        else builder.min(exprs, operands)
    )
    if isinstance(folded, SSAValue):
        new = folded.owner
        if (
            isinstance(new, type(op))
            and new is not op
            and new.map == op.map
            and list(new.operands) == operands
        ):
            Rewriter.erase_op(new)
            return False
    op.result.replace_all_uses_with(builder.value(folded))
    Rewriter.erase_op(op)
    return True


def _fold_index_binop(op: Operation) -> bool:
    if not isinstance(op.results[0].type, IndexType):
        return False
    values = [constant_index_value(v) for v in op.operands]
    if any(v is None for v in values):
        return False
    a, b = values
    assert a is not None
    assert b is not None
    folded = _FOLDABLE_INDEX_BINOPS[type(op)](a, b)
    if folded is None:
        return False
    constant = arith.ConstantOp(IntegerAttr(folded, IndexType()))
    Rewriter.replace_op(op, constant)
    return True


def _fold_subview(op: memref.SubviewOp) -> bool:
    lists: list[tuple[list[int], list[SSAValue]]] = []
    changed = False
    for static, dynamic in (
        (op.static_offsets.get_values(), op.offsets),
        (op.static_sizes.get_values(), op.sizes),
        (op.static_strides.get_values(), op.strides),
    ):
        it = iter(dynamic)
        new_static: list[int] = []
        new_dynamic: list[SSAValue] = []
        for s in static:
            if s != DYNAMIC_INDEX:
                new_static.append(s)
                continue
            value = next(it)
            constant = constant_index_value(value)
            if constant is None:
                new_static.append(DYNAMIC_INDEX)
                new_dynamic.append(value)
            else:
                new_static.append(constant)
                changed = True
        lists.append((new_static, new_dynamic))
    if not changed:
        return False
    source_type = op.source.type
    assert isinstance(source_type, MemRefType)
    (offsets, dyn_offsets), (sizes, dyn_sizes), (strides, dyn_strides) = lists
    inferred = subview_result_type(
        source_type,
        static_or_none(offsets),
        static_or_none(sizes),
        static_or_none(strides),
    )
    old_type = op.result.type
    assert isinstance(old_type, MemRefType)
    if inferred is None or (inferred != old_type and len(old_type.get_shape()) != len(sizes)):
        return False  # not strided, or rank-reducing: left as it is
    _replace_view(
        op,
        memref.SubviewOp(
            op.source, dyn_offsets, dyn_sizes, dyn_strides, offsets, sizes, strides, inferred
        ),
    )
    return True


def _replace_view(op: memref.SubviewOp, new: memref.SubviewOp) -> None:
    """Replace `op` by `new`, a view of the same elements whose type may be more static:
    then cast back to `op`'s type for its users (upstream's canonicalizations do so)."""
    if new.result.type == op.result.type:
        Rewriter.replace_op(op, new)
        return
    Rewriter.insert_op(new, InsertPoint.before(op))
    Rewriter.replace_op(op, CastOp(operands=[new.result], result_types=[op.result.type]))


def _more_static(source: MemRefType, dest: MemRefType) -> bool:
    """Whether `dest` only makes dynamic what `source` knows (upstream's
    `memref::CastOp::canFoldIntoConsumerOp`): same rank and element type, each size, stride
    and the offset of `dest` dynamic or equal to `source`'s."""
    if source.element_type != dest.element_type or len(source.get_shape()) != len(dest.get_shape()):
        return False
    src_layout, dst_layout = strides_and_offset(source), strides_and_offset(dest)
    if src_layout is None or dst_layout is None:
        return False
    (src_strides, src_offset), (dst_strides, dst_offset) = src_layout, dst_layout
    sizes = zip(source.get_shape(), dest.get_shape(), strict=True)
    return (
        all(d == DYNAMIC_INDEX or s == d for s, d in sizes)
        and all(d is None or s == d for s, d in zip(src_strides, dst_strides, strict=True))
        and (dst_offset is None or src_offset == dst_offset)
    )


def _fold_cast(cast: Operation) -> bool:
    """Fold a refining memref.cast into its subview and linalg users."""
    source, dest = cast.operands[0].type, cast.results[0].type
    if not (
        isinstance(source, MemRefType)
        and isinstance(dest, MemRefType)
        and _more_static(source, dest)
    ):
        return False
    changed = False
    for use in list(cast.results[0].uses):
        user = use.operation
        if isinstance(user, StructuredOpInterface):
            user.operands[use.index] = cast.operands[0]
            changed = True
        elif (
            isinstance(user, memref.SubviewOp)
            and use.index == 0
            and len(user.result.type.get_shape()) == len(source.get_shape())
        ):
            inferred = subview_result_type(
                source,
                *(
                    static_or_none(a.get_values())
                    for a in (user.static_offsets, user.static_sizes, user.static_strides)
                ),
            )
            if inferred is None:
                continue
            _replace_view(
                user,
                memref.SubviewOp(
                    cast.operands[0],
                    user.offsets,
                    user.sizes,
                    user.strides,
                    user.static_offsets,
                    user.static_sizes,
                    user.static_strides,
                    inferred,
                ),
            )
            changed = True
    return changed


def _fold_dim(op: memref.DimOp) -> bool:
    """`memref.dim` of a cast reads the cast's source; of a static size is that size."""
    source = op.source.owner
    if isinstance(source, CAST_OPS):
        op.operands[0] = source.operands[0]
        return True
    index, source_type = constant_index_value(op.index), op.source.type
    if index is None or not isinstance(source_type, MemRefType):
        return False
    shape = source_type.get_shape()
    if not 0 <= index < len(shape) or shape[index] == DYNAMIC_INDEX:
        return False
    Rewriter.replace_op(op, arith.ConstantOp(IntegerAttr(shape[index], IndexType())))
    return True


def _erase_empty_loop(loop: scf.ForOp) -> None:
    for result, init in zip(loop.res, loop.iter_args):
        result.replace_all_uses_with(init)
    Rewriter.erase_op(loop)


def canonicalize_loops(root: Operation) -> None:
    """Apply the clean-ups of the module docstring to the ops nested in `root` until nothing
    changes. `root` itself is never rewritten (as upstream's greedy driver on its body: a
    one-trip `scf.for` root stays a loop, so a transform handle to it stays valid)."""
    for _ in range(16):
        changed = False
        for op in walk_ops(root)[1:]:
            if op.parent is None:
                continue  # erased earlier in this sweep
            if isinstance(op, scf.ForOp):
                trip = static_trip_count(op)
                if trip == 0:
                    _erase_empty_loop(op)
                    changed = True
                elif trip == 1:
                    changed |= promote_if_single_iteration(op)
            elif isinstance(op, (affine.ApplyOp, affine.MinOp)):
                changed |= _refold_affine(op)
            elif type(op) in _FOLDABLE_INDEX_BINOPS:
                changed |= _fold_index_binop(op)
            elif isinstance(op, memref.SubviewOp):
                changed |= _fold_subview(op)
            elif isinstance(op, CAST_OPS):
                changed |= _fold_cast(op)
            elif isinstance(op, memref.DimOp):
                changed |= _fold_dim(op)
        changed |= _erase_dead_pure_ops(root)
        if not changed:
            return


def _erase_dead_pure_ops(root: Operation) -> bool:
    erased = False
    for op in reversed(walk_ops(root)):
        if op is root or not isinstance(op, _PURE) or op.parent is None:
            continue
        if all(not r.uses for r in op.results):
            Rewriter.erase_op(op)
            erased = True
    return erased


@register_pass
@dataclass(frozen=True)
class CanonicalizeLoopsPass(ModulePass):
    """Promote trivial loops, fold index arithmetic and static subview operands."""

    name = "xlinalg-canonicalize-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        canonicalize_loops(op)
