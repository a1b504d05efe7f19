"""Cheap clean-up of what tiling and unrolling emit (what xDSL's `canonicalize` lacks).

- `scf.for` with a static trip count of 1 becomes its body; with 0 it is removed
  (its results are its init values);
- `affine.apply` / `affine.min` are re-folded: constant operands substituted,
  producing `affine.apply`s composed in, duplicate/unused operands dropped,
  constant results become `arith.constant`s;
- `arith.addi/subi/muli` on two `index` constants fold to a constant;
- `memref.subview` operands that are constants move into the static lists when
  that leaves the result type unchanged;
- the pure index/view ops left without uses are erased.

Run xDSL's `canonicalize` and `cse` afterwards to hoist and merge constants.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.transforms.affine_utils import IndexBuilder, constant_index_value
from xlinalg.transforms.subview_type import subview_result_type
from xlinalg.transforms.unroll import promote_if_single_iteration, static_trip_count

_FOLDABLE_INDEX_BINOPS = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
}

_PURE = (arith.ConstantOp, affine.ApplyOp, affine.MinOp, memref.DimOp, memref.SubviewOp,
         arith.AddiOp, arith.SubiOp, arith.MuliOp)


def _as_dims(amap: AffineMap) -> list[AffineExpr]:
    """The map's results with symbol s_i renamed to dim d_{num_dims + i}."""
    dims = [AffineExpr.dimension(i) for i in range(amap.num_dims)]
    syms = [AffineExpr.dimension(amap.num_dims + i) for i in range(amap.num_symbols)]
    return [e.replace_dims_and_symbols(dims, syms) for e in amap.results]


def _refold_affine(op: affine.ApplyOp | affine.MinOp) -> bool:
    operands = list(op.operands)
    exprs = _as_dims(op.map.data)
    builder = IndexBuilder(InsertPoint.before(op))
    folded = builder.apply(exprs[0], operands) if isinstance(op, affine.ApplyOp) else builder.min(
        exprs, operands
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
    assert a is not None and b is not None
    constant = arith.ConstantOp(IntegerAttr(_FOLDABLE_INDEX_BINOPS[type(op)](a, b), IndexType()))
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

    def static_or_none(values: list[int]) -> list[int | None]:
        return [None if v == DYNAMIC_INDEX else v for v in values]

    inferred = subview_result_type(
        source_type,  # type: ignore[arg-type]
        static_or_none(offsets), static_or_none(sizes), static_or_none(strides),
    )
    if inferred != op.result.type:
        return False
    new = memref.SubviewOp(op.source, dyn_offsets, dyn_sizes, dyn_strides, offsets, sizes,
                           strides, op.result.type)
    Rewriter.replace_op(op, new)
    return True


def _erase_empty_loop(loop: scf.ForOp) -> None:
    for result, init in zip(loop.res, loop.iter_args):
        result.replace_all_uses_with(init)
    Rewriter.erase_op(loop)


def canonicalize_loops(root: Operation) -> None:
    """Apply the clean-ups of the module docstring under `root` until nothing changes."""
    for _ in range(16):
        changed = False
        for op in list(root.walk()):
            if op.parent is None and op is not root:
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
        changed |= _erase_dead_pure_ops(root)
        if not changed:
            return


def _erase_dead_pure_ops(root: Operation) -> bool:
    erased = False
    for op in reversed(list(root.walk())):
        if op is root or not isinstance(op, _PURE) or op.parent is None:
            continue
        if all(not r.uses for r in op.results):
            Rewriter.erase_op(op)
            erased = True
    return erased


@dataclass(frozen=True)
class CanonicalizeLoopsPass(ModulePass):
    """Promote trivial loops, fold index arithmetic and static subview operands."""

    name = "xlinalg-canonicalize-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        canonicalize_loops(op)
