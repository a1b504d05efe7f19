"""`xl-vector-unroll-to-1d`: n-D vectors become rows of 1-D vectors (before scf → cf).

LLVM gets only 1-D vectors (`<16 x float>`), so every vector value of rank ≥ 2
is replaced by its rows (row-major over the leading dims), op by op:

- `vector.contract` / `vector.outerproduct` are first lowered to outer products
  and per-row FMAs (`xlinalg.transforms.vector_lower_*`), as upstream's
  convert-vector-to-llvm does by default;
- `transfer_read`/`transfer_write` of rank n become one 1-D transfer per row
  (leading dims add offsets to the indices; broadcast dims reuse the row);
  a row along a non-contiguous memref dim, or a broadcast minor dim, becomes
  scalar `memref.load`/`store` (+ `vector.broadcast`/`insert`), each lane
  under `scf.if` when it may be out of bounds or is masked;
- elementwise arith/math ops, `vector.fma` and `vector.gather` apply row by row; splat
  constants and `vector.broadcast` share one row;
- `vector.extract`/`vector.insert` pick or replace rows (or elements of a row);
  `vector.transpose` is resolved lazily per element, so an element extracted
  from a transposed value reads the source element directly;
- `vector.shape_cast` regroups rows (or moves elements); `create_mask` /
  `constant_mask` give one 1-D mask per row; masked transfers use the rows
  of their mask;
- `vector.multi_reduction` folds rows together (kept minor dim) or reduces
  each row with a 1-D `vector.reduction` (reduced minor dim);
- first, `vector.mask` regions become masked ops (`lower_mask_ops`), shuffles
  become extracts/inserts, n-D and masked `vector.load/store` become transfers;
- `scf.for` loops carrying n-D vectors carry their rows instead, so
  accumulators stay in registers across iterations; an `scf.if` yielding n-D
  vectors (an out-of-bounds part of `transfer_to_scf`) yields their rows.

An n-D value used by anything else (a function argument or result, `scf.while`
values, ...) raises `LoweringError`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TypeGuard

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    BoolAttr,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    VectorType,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.arith import SelectOp
from xlinalg.dialects.vector import (
    ConstantMaskOp,
    MultiDimReductionOp,
    ShapeCastOp,
    TransposeOp,
    vector_shape,
)
from xlinalg.dialects.vector_gather import GatherOp
from xlinalg.errors import LoweringError, TransformFailure
from xlinalg.ir.affine_utils import constant_index_value
from xlinalg.ir.dense_arrays import i32_array
from xlinalg.ir.diagnostics import lowering_error
from xlinalg.ir.passes import register_pass
from xlinalg.ir.walk import walk_ops
from xlinalg.lowering.to_llvm.types import vector_type
from xlinalg.transforms.vector.builders import broadcast, extract, insert
from xlinalg.transforms.vector.lower_broadcast import lower_broadcast
from xlinalg.transforms.vector.lower_contraction import lower_contractions
from xlinalg.transforms.vector.lower_mask import lower_mask_ops
from xlinalg.transforms.vector.lower_multi_reduction import combine_op
from xlinalg.transforms.vector.lower_outerproduct import lower_outerproducts
from xlinalg.transforms.vector.rewrite import VectorBuilder, replace_op


def is_nd(t: Attribute) -> TypeGuard[VectorType]:
    return isinstance(t, VectorType) and t.get_num_dims() >= 2


# Attributes are immutable: the ones every unrolled row's transfer carries are built once
# (constructing and verifying them per row was a few % of the whole compile).
@cache
def _in_bounds_1d(in_bounds: bool) -> ArrayAttr[BoolAttr]:
    return ArrayAttr([BoolAttr.from_bool(in_bounds)])


@cache
def _one_d_map(num_dims: int, last: AffineExpr) -> AffineMapAttr:
    """The permutation map of a row's 1-D transfer: the original map's last result."""
    return AffineMapAttr(AffineMap(num_dims, 0, (last,)))


def _row_read(
    source: SSAValue,
    indices: Sequence[SSAValue],
    padding: SSAValue,
    result_type: VectorType,
    in_bounds: ArrayAttr[BoolAttr],
    permutation_map: AffineMapAttr,
    mask: SSAValue | None,
) -> vector.TransferReadOp:
    """`vector.TransferReadOp(...)`, built with `create` (the IRDL constructor costs ~10x:
    the unrolled rows of a register block are hundreds of transfers)."""
    return vector.TransferReadOp.create(
        operands=[source, *indices, padding, *(() if mask is None else (mask,))],
        result_types=[result_type],
        properties={
            "in_bounds": in_bounds,
            "permutation_map": permutation_map,
            "operandSegmentSizes": i32_array((1, len(indices), 1, int(mask is not None))),
        },
    )


def _row_write(
    value: SSAValue,
    dest: SSAValue,
    indices: Sequence[SSAValue],
    in_bounds: ArrayAttr[BoolAttr],
    mask: SSAValue | None,
    permutation_map: AffineMapAttr,
) -> vector.TransferWriteOp:
    """`vector.TransferWriteOp(...)` into a memref, built with `create` (see `_row_read`)."""
    if not isinstance(dest.type, MemRefType):  # a tensor destination has a result
        return vector.TransferWriteOp(
            value, dest, indices, in_bounds, mask, permutation_map=permutation_map
        )
    return vector.TransferWriteOp.create(
        operands=[value, dest, *indices, *(() if mask is None else (mask,))],
        properties={
            "in_bounds": in_bounds,
            "permutation_map": permutation_map,
            "operandSegmentSizes": i32_array((1, 1, len(indices), int(mask is not None))),
        },
    )


def _dense(t: VectorType, values: Sequence[int] | Sequence[float]) -> DenseIntOrFPElementsAttr:
    """A dense constant of the vector type `t`, of an integer or float element type."""
    # xDSL's overloads want that element type in the static type of `t`
    return DenseIntOrFPElementsAttr.from_list(t, values)  # pyright: ignore[reportCallIssue, reportArgumentType]


def _row_type(t: VectorType) -> VectorType:
    return vector_type(t.element_type, (t.get_shape()[-1],))


def _leading(t: VectorType) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(s) for s in t.get_shape()[:-1])))


def _linear(shape: Sequence[int], pos: Sequence[int]) -> int:
    index = 0
    for s, p in zip(shape, pos):
        index = index * s + p
    return index


class _Unroller:
    def __init__(self) -> None:
        self.rows: dict[SSAValue, list[SSAValue]] = {}
        self.lazy: dict[SSAValue, TransposeOp] = {}
        self.dead: list[Operation] = []
        self.at: InsertPoint | None = None
        self._consts: dict[int, SSAValue] = {}  # index constants inserted at `_consts_at`
        self._consts_at: tuple[Block, Operation | None] | None = None

    # --- helpers --------------------------------------------------------
    def insert(self, op: Operation) -> None:
        assert self.at is not None
        Rewriter.insert_op(op, self.at)

    def add(self, op: Operation) -> SSAValue:
        """Insert `op` and return its (first) result."""
        self.insert(op)
        return op.results[0]

    def index(self, value: int) -> SSAValue:
        """An index constant, shared by everything inserted at the same insertion point
        (one op's expansion asks for the same few constants many times)."""
        assert self.at is not None
        at = self._consts_at
        if at is None or at[0] is not self.at.block or at[1] is not self.at.insert_before:
            self._consts_at = (self.at.block, self.at.insert_before)
            self._consts = {}
        if value not in self._consts:
            self._consts[value] = self.add(arith.ConstantOp(IntegerAttr(value, IndexType())))
        return self._consts[value]

    def offset(self, base: SSAValue, delta: int) -> SSAValue:
        if delta == 0:
            return base
        known = static_index(base)
        if known is not None:
            return self.index(known + delta)
        return self.add(arith.AddiOp(base, self.index(delta)))

    def dim(self, source: SSAValue, d: int) -> SSAValue:
        """`memref.dim source, d`, or its constant size (see `static_dim`)."""
        known = static_dim(source, d)
        if known is not None:
            return self.index(known)
        return self.add(memref.DimOp(source, self.index(d)))

    def in_dim(
        self, i: SSAValue, source: SSAValue, d: int, size: SSAValue | None = None
    ) -> SSAValue | None:
        """`i < dim(source, d)` (`arith.cmpi slt`; `size` is that dim if already built),
        or None when both are constants and it holds."""
        known, at = static_dim(source, d), static_index(i)
        if known is not None and at is not None and at < known:
            return None
        return self.add(arith.CmpiOp(i, size if size is not None else self.dim(source, d), "slt"))

    def conjoin(self, cond: SSAValue | None, other: SSAValue | None) -> SSAValue | None:
        """`cond && other`, None standing for true."""
        if cond is None or other is None:
            return other if cond is None else cond
        return self.add(arith.AndIOp(cond, other))

    def get_rows(self, v: SSAValue) -> list[SSAValue]:
        if v in self.rows:
            return self.rows[v]
        if v in self.lazy:
            self.rows[v] = self._materialize_transpose(v)
            return self.rows[v]
        owner = v.owner
        op = owner if isinstance(owner, Operation) else owner.parent_op()
        message = f"n-D vector value of type {v.type} cannot be unrolled to 1-D vectors here"
        raise LoweringError(message) if op is None else lowering_error(op, message)

    def element(self, v: SSAValue, pos: Sequence[int]) -> SSAValue:
        """The scalar at `pos` of vector `v` (rank ≥ 1)."""
        if v in self.lazy:
            t = self.lazy[v]
            perm = t.get_permutation()
            src_pos = [0] * len(perm)
            for i, p in enumerate(perm):
                src_pos[p] = pos[i]
            return self.element(t.vector, src_pos)
        if is_nd(v.type):
            assert isinstance(v.type, VectorType)
            row = self.get_rows(v)[_linear(v.type.get_shape()[:-1], pos[:-1])]
            return self.add(extract(row, [pos[-1]]))
        return self.add(extract(v, [pos[-1]]))

    def _materialize_transpose(self, v: SSAValue) -> list[SSAValue]:
        t = v.type
        assert isinstance(t, VectorType)
        rt = _row_type(t)
        rows: list[SSAValue] = []
        for lead in _leading(t):
            row = self.add(arith.ConstantOp(_dense(rt, [0])))
            for j in range(rt.get_shape()[0]):
                row = self.add(insert(self.element(v, [*lead, j]), row, [j]))
            rows.append(row)
        return rows

    # --- driver ---------------------------------------------------------
    def run_block(self, block: Block) -> None:
        for op in list(block.ops):
            self.run_op(op)

    def run_op(self, op: Operation) -> None:
        if isinstance(op, scf.ForOp) and any(is_nd(a.type) for a in op.iter_args):
            self._for(op)
            return
        if isinstance(op, scf.IfOp) and any(is_nd(r.type) for r in op.results):
            self._if(op)
            return
        if isinstance(op, MultiDimReductionOp):
            self.at = InsertPoint.before(op)
            self._multi_reduction(op)
            self.dead.append(op)
            return
        for region in op.regions:
            for block in region.blocks:
                self.run_block(block)
        touches = any(is_nd(v.type) for v in (*op.operands, *op.results))
        self.at = InsertPoint.before(op)
        if not touches and isinstance(op, ShapeCastOp | ConstantMaskOp):
            self._nd(op)  # 1-D forms: a no-op cast, a constant
            return
        if isinstance(op, vector.TransferReadOp | vector.TransferWriteOp) and not touches:
            self._transfer_1d(op)
            return
        if not touches:
            return
        self._nd(op)

    def _nd(self, op: Operation) -> None:
        name = op.name
        if isinstance(op, TransposeOp):
            self.lazy[op.result] = op
        elif name == "arith.constant":
            self._constant(op)
        elif isinstance(op, vector.TransferReadOp):
            self._read(op)
        elif isinstance(op, vector.TransferWriteOp):
            self._write(op)
        elif isinstance(op, vector.BroadcastOp):
            self._broadcast(op)
        elif isinstance(op, vector.ExtractOp):
            self._extract(op)
        elif isinstance(op, vector.InsertOp):
            self._insert(op)
        elif isinstance(op, ShapeCastOp):
            self._shape_cast(op)
        elif isinstance(op, vector.CreateMaskOp):
            self._create_mask(op)
        elif isinstance(op, ConstantMaskOp):
            self._constant_mask(op)
        elif name.startswith(("arith.", "math.")) or isinstance(op, vector.FMAOp | GatherOp):
            self._elementwise(op)  # a gather: row by row (its indices are linear offsets)
        else:
            raise lowering_error(op, "op on n-D vectors is not supported by the vector lowering")
        self.dead.append(op)

    # --- ops ------------------------------------------------------------
    def _constant(self, op: Operation) -> None:
        value = op.properties.get("value", op.attributes.get("value"))
        t = op.results[0].type
        assert isinstance(t, VectorType)
        assert isinstance(value, DenseIntOrFPElementsAttr)
        rt = _row_type(t)
        values = list(value.get_values())
        n = rt.get_shape()[0]
        if len(set(values)) == 1:
            row = self.add(arith.ConstantOp(_dense(rt, values[:1])))
            self.rows[op.results[0]] = [row] * len(_leading(t))
        else:
            self.rows[op.results[0]] = [
                self.add(arith.ConstantOp(_dense(rt, values[i : i + n])))
                for i in range(0, len(values), n)
            ]

    def _transfer_parts(
        self, op: vector.TransferReadOp | vector.TransferWriteOp
    ) -> tuple[AffineMap, list[bool]]:
        amap = op.permutation_map.data
        in_bounds = [bool(b.value.data) for b in op.in_bounds.data] if op.in_bounds else []
        return amap, in_bounds

    def _mask_rows(
        self, op: vector.TransferReadOp | vector.TransferWriteOp, count: int
    ) -> list[SSAValue | None]:
        """The mask's rows, one per vector row (the mask has the vector's shape)."""
        if op.mask is None:
            return [None] * count
        return list(self.get_rows(op.mask)) if is_nd(op.mask.type) else [op.mask]

    def _row_indices(
        self, op: Operation, amap: AffineMap, lead: Sequence[int], indices: Sequence[SSAValue]
    ) -> list[SSAValue]:
        out = list(indices)
        for j, e in enumerate(amap.results[:-1]):
            if isinstance(e, AffineDimExpr) and lead[j]:
                out[e.position] = self.offset(out[e.position], lead[j])
        return out

    def _one_d_map(self, amap: AffineMap) -> AffineMapAttr:
        return _one_d_map(amap.num_dims, amap.results[-1])

    def _row_condition(
        self,
        op: vector.TransferReadOp | vector.TransferWriteOp,
        amap: AffineMap,
        in_bounds: Sequence[bool],
        indices: Sequence[SSAValue],
    ) -> SSAValue | None:
        """`i_d < dim(source, d)` for every out-of-bounds leading dim (None if all in bounds)."""
        cond: SSAValue | None = None
        for j, e in enumerate(amap.results[:-1]):
            if not isinstance(e, AffineDimExpr) or (in_bounds and in_bounds[j]):
                continue
            cond = self.conjoin(cond, self.in_dim(indices[e.position], op.source, e.position))
        return cond

    def _guarded(
        self,
        cond: SSAValue | None,
        build: Callable[[], SSAValue | None],
        result_type: Attribute | None,
        otherwise: Callable[[], SSAValue] | None = None,
    ) -> SSAValue | None:
        """Run `build()` (returning the value to yield) under `scf.if cond` when cond is given."""
        if cond is None:
            return build()
        then_block, else_block = Block(), Block()
        saved = self.at
        self.at = InsertPoint.at_end(then_block)
        value = build()
        if result_type is None:
            self.insert(scf.YieldOp())
            self.at = InsertPoint.at_end(else_block)
            self.insert(scf.YieldOp())
        else:
            assert value is not None
            assert otherwise is not None  # (the value when `cond` does not hold)
            self.insert(scf.YieldOp(value))
            self.at = InsertPoint.at_end(else_block)
            self.insert(scf.YieldOp(otherwise()))
        self.at = saved
        if_op = scf.IfOp(
            cond, [result_type] if result_type is not None else [], [then_block], [else_block]
        )
        self.insert(if_op)
        return if_op.results[0] if result_type is not None else None

    def _fold_row_condition(
        self,
        op: vector.TransferReadOp | vector.TransferWriteOp,
        amap: AffineMap,
        in_bounds: Sequence[bool],
        idx: Sequence[SSAValue],
        cond: SSAValue,
        mask: SSAValue | None,
        rt: VectorType,
    ) -> SSAValue | None:
        """The leading-dim condition `cond` of a row along the contiguous memref dim
        folded into its lane mask: `create_mask(cond ? size - i : n) & mask` (the
        row then is one branch-free masked access, in bounds: masked-off lanes are
        never accessed, so no `scf.if` per row). None if the row is not contiguous."""
        e = amap.results[-1]
        rank = len(op.indices)
        if not (isinstance(e, AffineDimExpr) and e.position == rank - 1):
            return None
        n = rt.get_shape()[0]
        if in_bounds and in_bounds[-1]:
            bound = self.index(n)
        else:
            known = static_dim(op.source, rank - 1), static_index(idx[rank - 1])
            if known[0] is not None and known[1] is not None:
                bound = self.index(known[0] - known[1])
            else:
                bound = self.add(arith.SubiOp(self.dim(op.source, rank - 1), idx[rank - 1]))
        bound = self.add(arith.SelectOp(cond, bound, self.index(0)))
        lanes = self.add(vector.CreateMaskOp([bound], vector_type(i1, (n,))))
        return lanes if mask is None else self.add(arith.AndIOp(lanes, mask))

    def _row_access(
        self,
        op: vector.TransferReadOp | vector.TransferWriteOp,
        amap: AffineMap,
        in_bounds: Sequence[bool],
        idx: Sequence[SSAValue],
        mask: SSAValue | None,
        rt: VectorType,
    ) -> tuple[SSAValue | None, SSAValue | None, ArrayAttr[BoolAttr]]:
        """(guard for `scf.if`, mask, in_bounds) of the 1-D transfer of one row."""
        inner = _in_bounds_1d(bool(in_bounds[-1]) if in_bounds else False)
        cond = self._row_condition(op, amap, in_bounds, idx)
        if cond is None:
            return None, mask, inner
        folded = self._fold_row_condition(op, amap, in_bounds, idx, cond, mask, rt)
        if folded is None:
            return cond, mask, inner
        return None, folded, _in_bounds_1d(True)

    def _read(self, op: vector.TransferReadOp) -> None:
        amap, in_bounds = self._transfer_parts(op)
        t = op.result.type
        assert isinstance(t, VectorType)
        rt = _row_type(t)
        cache: dict[tuple[int, ...], SSAValue] = {}
        rows: list[SSAValue] = []
        masks = self._mask_rows(op, len(_leading(t)))
        for lead, mask in zip(_leading(t), masks, strict=True):
            key = tuple(
                p if isinstance(e, AffineDimExpr) else 0 for p, e in zip(lead, amap.results[:-1])
            )
            if mask is not None:
                key = (*key, len(rows))  # rows under different masks differ
            if key not in cache:
                idx = self._row_indices(op, amap, lead, op.indices)
                cond, row_mask, row_inner = self._row_access(op, amap, in_bounds, idx, mask, rt)

                def build(
                    idx: list[SSAValue] = idx,
                    mask: SSAValue | None = row_mask,
                    row_inner: ArrayAttr[BoolAttr] = row_inner,
                ) -> SSAValue:
                    read = _row_read(
                        op.source, idx, op.padding, rt, row_inner, self._one_d_map(amap), mask
                    )
                    self.insert(read)
                    scalarized = self._transfer_1d(read)
                    return scalarized if scalarized is not None else read.result

                value = self._guarded(cond, build, rt, lambda: self.add(broadcast(op.padding, rt)))
                assert value is not None
                cache[key] = value
            rows.append(cache[key])
        self.rows[op.result] = rows

    def _write(self, op: vector.TransferWriteOp) -> None:
        amap, in_bounds = self._transfer_parts(op)
        t = op.vector.type
        assert isinstance(t, VectorType)
        if any(isinstance(e, AffineConstantExpr) for e in amap.results):
            raise lowering_error(op, "transfer_write with broadcast dims is invalid")
        rows = self.get_rows(op.vector)
        rt = _row_type(t)
        masks = self._mask_rows(op, len(rows))
        for lead, row, mask in zip(_leading(t), rows, masks, strict=True):
            idx = self._row_indices(op, amap, lead, op.indices)
            cond, row_mask, inner = self._row_access(op, amap, in_bounds, idx, mask, rt)

            def build(
                idx: list[SSAValue] = idx,
                row: SSAValue = row,
                mask: SSAValue | None = row_mask,
                inner: ArrayAttr[BoolAttr] = inner,
            ) -> None:
                write = _row_write(row, op.source, idx, inner, mask, self._one_d_map(amap))
                self.insert(write)
                self._transfer_1d(write)

            self._guarded(cond, build, None)

    def _transfer_1d(self, op: vector.TransferReadOp | vector.TransferWriteOp) -> SSAValue | None:
        """Scalarize a 1-D transfer that is not along the contiguous memref dim.

        Returns the value replacing a scalarized read (None if `op` stays)."""
        amap = op.permutation_map.data
        rank = len(op.indices)
        if len(amap.results) != 1:
            return None
        e = amap.results[0]
        if isinstance(e, AffineDimExpr) and e.position == rank - 1:
            return None  # contiguous: convert-vector-to-llvm makes it one vector load/store
        saved = self.at
        self.at = InsertPoint.before(op)
        value: SSAValue | None = None
        in_bounds = [b.value.data for b in op.in_bounds.data] if op.in_bounds else [False]
        if op.mask is not None and isinstance(e, AffineConstantExpr):
            raise lowering_error(op, "masked broadcast transfers are not supported")
        # lanes past the memref's end (out of bounds) or masked off: guarded by scf.if
        guarded = None if all(in_bounds) or not isinstance(e, AffineDimExpr) else e.position
        size = None  # built once, if dynamic
        if guarded is not None and static_dim(op.source, guarded) is None:
            size = self.dim(op.source, guarded)

        def lane_condition(j: int, idx: list[SSAValue]) -> SSAValue | None:
            cond = None
            if guarded is not None:
                cond = self.in_dim(idx[guarded], op.source, guarded, size)
            if op.mask is not None:
                cond = self.conjoin(cond, self.add(extract(op.mask, [j])))
            return cond

        if isinstance(op, vector.TransferReadOp):
            t = op.result.type
            assert isinstance(t, VectorType)
            if isinstance(e, AffineConstantExpr):
                s = self.add(memref.LoadOp.get(op.source, list(op.indices)))
                value = self.add(broadcast(s, t))
            else:
                assert isinstance(e, AffineDimExpr)
                value = self.add(arith.ConstantOp(_dense(t, [0])))
                for j in range(t.get_shape()[0]):
                    idx = list(op.indices)
                    idx[e.position] = self.offset(idx[e.position], j)
                    s = self._guarded(
                        lane_condition(j, idx),
                        lambda idx=idx: self.add(memref.LoadOp.get(op.source, idx)),
                        t.element_type,
                        lambda: op.padding,
                    )
                    assert s is not None  # (a result type was given)
                    value = self.add(insert(s, value, [j]))
            op.result.replace_all_uses_with(value)
        else:
            t = op.vector.type
            assert isinstance(t, VectorType)
            assert isinstance(e, AffineDimExpr)
            for j in range(t.get_shape()[0]):
                idx = list(op.indices)
                idx[e.position] = self.offset(idx[e.position], j)
                s = self.add(extract(op.vector, [j]))
                self._guarded(
                    lane_condition(j, idx),
                    lambda idx=idx, s=s: self.insert(memref.StoreOp.get(s, op.source, idx)),
                    None,
                )
        op.detach()
        op.erase()
        self.at = saved
        return value

    def _broadcast(self, op: vector.BroadcastOp) -> None:
        t = op.vector.type
        src = op.source
        rt = _row_type(t)
        n = len(_leading(t))
        st = src.type
        if not isinstance(st, VectorType):
            self.rows[op.vector] = [self.add(broadcast(src, rt))] * n
        elif st.get_num_dims() == 1:
            if st.get_shape()[0] != rt.get_shape()[0]:
                row = self.add(broadcast(self.add(extract(src, [0])), rt))
            else:
                row = src
            self.rows[op.vector] = [row] * n
        else:
            if tuple(st.get_shape()) != tuple(t.get_shape()[-st.get_num_dims() :]):
                raise lowering_error(op, "broadcast stretching size-1 dims is not supported")
            src_rows = self.get_rows(src)
            self.rows[op.vector] = [src_rows[i % len(src_rows)] for i in range(n)]

    def _extract(self, op: vector.ExtractOp) -> None:
        if op.dynamic_position:
            raise lowering_error(op, "dynamic positions are not supported")
        pos = list(op.static_position.get_values())
        src_t = op.vector.type
        assert isinstance(src_t, VectorType)
        shape = src_t.get_shape()
        if len(pos) == len(shape):
            op.result.replace_all_uses_with(self.element(op.vector, pos))
            return
        rows = self.get_rows(op.vector)
        lead_shape = shape[:-1]
        if len(pos) == len(shape) - 1:
            op.result.replace_all_uses_with(rows[_linear(lead_shape, pos)])
            return
        sub = list(itertools.product(*(range(s) for s in lead_shape[len(pos) :])))
        start = _linear(lead_shape, [*pos, *([0] * (len(lead_shape) - len(pos)))])
        self.rows[op.result] = rows[start : start + len(sub)]

    def _insert(self, op: vector.InsertOp) -> None:
        if op.dynamic_position:
            raise lowering_error(op, "dynamic positions are not supported")
        pos = list(op.static_position.get_values())
        dest_t = op.dest.type
        assert isinstance(dest_t, VectorType)
        shape = dest_t.get_shape()
        rows = list(self.get_rows(op.dest))
        lead_shape = shape[:-1]
        if len(pos) == len(shape):
            i = _linear(lead_shape, pos[:-1])
            rows[i] = self.add(insert(op.source, rows[i], [pos[-1]]))
        elif len(pos) == len(shape) - 1:
            rows[_linear(lead_shape, pos)] = op.source
        else:
            src_rows = self.get_rows(op.source)
            start = _linear(lead_shape, [*pos, *([0] * (len(lead_shape) - len(pos)))])
            rows[start : start + len(src_rows)] = src_rows
        self.rows[op.result] = rows

    def _elementwise(self, op: Operation) -> None:
        t = op.results[0].type
        assert isinstance(t, VectorType)
        n = len(_leading(t))
        per_operand = [self.get_rows(o) if is_nd(o.type) else [o] * n for o in op.operands]
        results: list[list[SSAValue]] = [[] for _ in op.results]
        row_types: list[VectorType] = []
        for r in op.results:
            assert isinstance(r.type, VectorType)
            row_types.append(_row_type(r.type))
        for i in range(n):
            new = type(op).create(
                operands=[rows[i] for rows in per_operand],
                result_types=row_types,
                properties=dict(op.properties),
                attributes=dict(op.attributes),
            )
            self.insert(new)
            for slot, r in zip(results, new.results):
                slot.append(r)
        for r, rows in zip(op.results, results):
            self.rows[r] = rows

    def _shape_cast(self, op: ShapeCastOp) -> None:
        src_t, res_t = op.source.type, op.result.type
        assert isinstance(src_t, VectorType)
        assert isinstance(res_t, VectorType)
        src_rows = self.get_rows(op.source) if is_nd(src_t) else [op.source]
        if src_t.get_shape()[-1] == res_t.get_shape()[-1]:
            rows = src_rows  # same rows, regrouped leading dims
        else:
            width = src_t.get_shape()[-1]
            rt = _row_type(res_t)
            n = rt.get_shape()[0]
            rows = []
            for r in range(res_t.element_count() // n):
                row = self.add(arith.ConstantOp(_dense(rt, [0])))
                for j in range(n):
                    flat = r * n + j
                    elem = self.add(extract(src_rows[flat // width], [flat % width]))
                    row = self.add(insert(elem, row, [j]))
                rows.append(row)
        if is_nd(res_t):
            self.rows[op.result] = list(rows)
        else:
            op.result.replace_all_uses_with(rows[0])

    def _create_mask(self, op: vector.CreateMaskOp) -> None:
        t = op.mask_vector.type
        assert isinstance(t, VectorType)
        bounds = list(op.mask_dim_sizes)
        rt = _row_type(t)
        zero = self.index(0)
        rows: list[SSAValue] = []
        for lead in _leading(t):
            cond: SSAValue | None = None
            for p, bound in zip(lead, bounds[:-1]):
                lt = self.add(arith.CmpiOp(self.index(p), bound, "slt"))
                cond = lt if cond is None else self.add(arith.AndIOp(cond, lt))
            assert cond is not None
            n = self.add(arith.SelectOp(cond, bounds[-1], zero))
            rows.append(self.add(vector.CreateMaskOp([n], rt)))
        self.rows[op.mask_vector] = rows

    def _constant_mask(self, op: ConstantMaskOp) -> None:
        t = op.result.type
        assert isinstance(t, VectorType)
        sizes = op.get_sizes()
        rt = _row_type(t)
        n = rt.get_shape()[0]
        rows: list[SSAValue] = []
        cache: dict[int, SSAValue] = {}
        for lead in _leading(t):
            count = sizes[-1] if all(p < b for p, b in zip(lead, sizes[:-1])) else 0
            if count not in cache:
                values = [1] * count + [0] * (n - count)
                cache[count] = self.add(arith.ConstantOp(_dense(rt, values)))
            rows.append(cache[count])
        if is_nd(t):
            self.rows[op.result] = rows
        else:
            op.result.replace_all_uses_with(rows[0])

    def _combine(self, kind: str, a: SSAValue, b: SSAValue) -> SSAValue:
        try:
            combined = combine_op(kind, a, b)
        except TransformFailure as err:  # a kind that does not apply to the element type
            raise LoweringError(err.message) from None
        return self.add(combined)

    def _multi_reduction(self, op: MultiDimReductionOp) -> None:
        src_t = op.source.type
        assert isinstance(src_t, VectorType)
        kind = op.kind.data.value
        shape = list(src_t.get_shape())
        reduced = set(op.get_reduction_dims())
        rank = len(shape)
        if rank == 1:
            value = self.add(
                vector.ReductionOp.create(
                    operands=[op.source, op.acc],
                    result_types=[op.result.type],
                    properties={"kind": op.kind},
                )
            )
            op.result.replace_all_uses_with(value)
            return
        rows = self.get_rows(op.source)
        leads = _leading(src_t)
        kept_lead = [d for d in range(rank - 1) if d not in reduced]
        result_t = op.result.type
        if rank - 1 in reduced:
            scalars: dict[tuple[int, ...], SSAValue] = {}
            for lead, row in zip(leads, rows, strict=True):
                pos = tuple(lead[d] for d in kept_lead)
                if pos not in scalars:
                    scalars[pos] = op.acc if not pos else self.element(op.acc, pos)
                scalars[pos] = self.add(
                    vector.ReductionOp.create(
                        operands=[row, scalars[pos]],
                        result_types=[src_t.element_type],
                        properties={"kind": op.kind},
                    )
                )
            if not isinstance(result_t, VectorType):
                op.result.replace_all_uses_with(scalars[()])
                return
            out_rows: list[SSAValue] = []
            rt = _row_type(result_t)
            for lead in _leading(result_t):
                row = self.add(arith.ConstantOp(_dense(rt, [0])))
                for j in range(rt.get_shape()[0]):
                    row = self.add(insert(scalars[(*lead, j)], row, [j]))
                out_rows.append(row)
        else:
            assert isinstance(result_t, VectorType)
            out_rows = list(self.get_rows(op.acc)) if is_nd(result_t) else [op.acc]
            for lead, row in zip(leads, rows, strict=True):
                pos = [lead[d] for d in kept_lead]
                index = _linear(result_t.get_shape()[:-1], pos)
                out_rows[index] = self._combine(kind, out_rows[index], row)
        if is_nd(result_t):
            self.rows[op.result] = out_rows
        else:
            op.result.replace_all_uses_with(out_rows[0])

    def _for(self, loop: scf.ForOp) -> None:
        self.at = InsertPoint.before(loop)
        inits: list[SSAValue] = []
        spans: list[tuple[int, int]] = []
        for a in loop.iter_args:
            start = len(inits)
            inits.extend(self.get_rows(a) if is_nd(a.type) else [a])
            spans.append((start, len(inits)))
        old_body = loop.body.block
        new_body = Block(arg_types=[IndexType(), *(v.type for v in inits)])
        old_body.args[0].replace_all_uses_with(new_body.args[0])
        for old_arg, (s, e) in zip(old_body.args[1:], spans):
            if is_nd(old_arg.type):
                self.rows[old_arg] = list(new_body.args[1 + s : 1 + e])
            else:
                old_arg.replace_all_uses_with(new_body.args[1 + s])
        for op in list(old_body.ops):
            op.detach()
            new_body.add_op(op)
        self._flat_yield(new_body)
        self.at = InsertPoint.before(loop)
        new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, inits, new_body)
        self.insert(new_loop)
        self._bind_results(loop, new_loop.results, spans)

    def _bind_results(
        self, old: Operation, new: Sequence[SSAValue], spans: Sequence[tuple[int, int]]
    ) -> None:
        """`old`'s results are `new[s:e]` (rows of an n-D result) or `new[s]`."""
        for result, (s, e) in zip(old.results, spans):
            if is_nd(result.type):
                self.rows[result] = list(new[s:e])
            else:
                result.replace_all_uses_with(new[s])
        self.dead.append(old)

    def _flat_yield(self, block: Block) -> None:
        """Lower `block`'s ops and make its `scf.yield` yield rows instead of n-D vectors."""
        yield_op = block.last_op
        assert isinstance(yield_op, scf.YieldOp)
        for op in list(block.ops):
            if op is not yield_op:
                self.run_op(op)
        self.at = InsertPoint.before(yield_op)
        flat: list[SSAValue] = []
        for v in yield_op.operands:
            flat.extend(self.get_rows(v) if is_nd(v.type) else [v])
        self.insert(scf.YieldOp(*flat))
        yield_op.detach()
        yield_op.erase()

    def _if(self, op: scf.IfOp) -> None:
        """An `scf.if` yielding n-D vectors yields their rows."""
        blocks = [region.blocks[0] for region in op.regions if region.blocks]
        for block in blocks:
            self._flat_yield(block)
        types: list[Attribute] = []
        spans: list[tuple[int, int]] = []
        for r in op.results:
            start = len(types)
            types.extend([_row_type(r.type)] * len(_leading(r.type)) if is_nd(r.type) else [r.type])
            spans.append((start, len(types)))
        for region in op.regions:
            for block in list(region.blocks):
                region.detach_block(block)
        self.at = InsertPoint.before(op)
        new_if = scf.IfOp(op.cond, types, [blocks[0]], blocks[1:] or None)
        self.insert(new_if)
        self._bind_results(op, new_if.results, spans)

    def erase_dead(self) -> None:
        for op in reversed(self.dead):
            for r in op.results:
                if r.uses:
                    user = next(iter(r.uses)).operation
                    raise lowering_error(
                        user, f"uses an n-D vector ({r.type}) that cannot be unrolled to 1-D"
                    )
            op.detach()
            op.erase()


# The value of an index `arith.constant` (None if `v` is not one): every value asked about
# here (transfer indices, subview sizes) is of index type.
static_index = constant_index_value


def static_dim(source: SSAValue, d: int) -> int | None:
    """The size of dim `d` of memref `source` if it is known: static in the type, or
    given by a constant size operand of the `memref.subview` that defines `source`."""
    assert isinstance(source.type, MemRefType)
    shape = source.type.get_shape()
    if shape[d] != DYNAMIC_INDEX:
        return shape[d]
    view = source.owner
    if not isinstance(view, memref.SubviewOp):
        return None
    static_sizes = view.static_sizes.get_values()
    if len(static_sizes) != len(shape):  # rank-reducing: dims do not line up
        return None
    dynamic = sum(s == DYNAMIC_INDEX for s in static_sizes[:d])
    return static_index(view.sizes[dynamic]) if static_sizes[d] == DYNAMIC_INDEX else None


def _shuffle(op: vector.ShuffleOp) -> None:
    """`vector.shuffle` → extracts + inserts (LLVM's instcombine turns the chain into one
    `shufflevector`); of n-D operands it moves whole rows."""
    b = VectorBuilder.before(op)
    mask = list(op.mask.get_values())
    first = vector_shape(op.v1.type)[0] if isinstance(op.v1.type, VectorType) else 1
    result = b.zeros(op.result.type)
    for i, m in enumerate(mask):
        source, j = (op.v1, m) if m < first else (op.v2, m - first)
        result = b.add(insert(b.add(extract(source, [j])), result, [i]))
    replace_op(op, [result])


def _load_store_as_transfer(
    op: vector.LoadOp | vector.MaskedLoadOp | vector.StoreOp | vector.MaskedStoreOp,
) -> None:
    """n-D `vector.load/store` → in-bounds minor-identity transfers (the same access);
    `vector.maskedload/maskedstore` → masked in-bounds transfers (+ select of the
    pass-through), which the row unrolling and the LLVM conversion handle."""
    b = VectorBuilder.before(op)
    if isinstance(op, vector.LoadOp | vector.MaskedLoadOp):
        base, t = op.base, op.result.type
    else:
        base = op.base
        t = op.vector.type if isinstance(op, vector.StoreOp) else op.value_to_store.type
    assert isinstance(t, VectorType)
    assert isinstance(base.type, MemRefType)
    rank = t.get_num_dims()
    amap = AffineMapAttr(
        AffineMap(
            base.type.get_num_dims(),
            0,
            tuple(AffineDimExpr(base.type.get_num_dims() - rank + k) for k in range(rank)),
        )
    )
    flags = ArrayAttr([BoolAttr.from_bool(True)] * rank)
    mask = op.mask if isinstance(op, vector.MaskedLoadOp | vector.MaskedStoreOp) else None
    if isinstance(op, vector.LoadOp | vector.MaskedLoadOp):
        pad = b.scalar(0, t.element_type)
        keep: SSAValue | None = None
        if isinstance(op, vector.MaskedLoadOp):
            # a splat pass-through becomes the transfer's padding; another one is
            # selected per lane afterwards
            splat = op.pass_thru.owner
            if isinstance(splat, vector.BroadcastOp) and not isinstance(
                splat.source.type, VectorType
            ):
                pad = splat.source
            else:
                keep = op.pass_thru
        value = b.add(vector.TransferReadOp(base, list(op.indices), pad, t, flags, amap, mask))
        if keep is not None:
            assert mask is not None
            value = b.add(SelectOp(mask, value, keep))
        replace_op(op, [value])
    else:
        v = op.vector if isinstance(op, vector.StoreOp) else op.value_to_store
        b.insert(
            vector.TransferWriteOp(v, base, list(op.indices), flags, mask, permutation_map=amap)
        )
        replace_op(op, [])


def _legalize(module: Operation) -> None:
    """What the row unrolling expects: no `vector.mask` regions (masked ops instead),
    no shuffles, loads/stores as transfers where LLVM conversion lacks them."""
    lower_mask_ops(module)
    for op in walk_ops(module):
        if isinstance(op, vector.ShuffleOp):
            _shuffle(op)
        elif (
            isinstance(op, vector.BroadcastOp)
            and is_nd(op.vector.type)
            and isinstance(op.source.type, VectorType)
            and op.source.type.get_num_dims() == op.vector.type.get_num_dims()
        ):
            lower_broadcast(op)  # stretches a size-1 dim: rows by rows
        elif (
            isinstance(op, vector.MaskedLoadOp | vector.MaskedStoreOp)
            or (isinstance(op, vector.LoadOp) and is_nd(op.result.type))
            or (isinstance(op, vector.StoreOp) and is_nd(op.vector.type))
        ):
            _load_store_as_transfer(op)


def unroll_vectors_to_1d(module: Operation) -> None:
    """Lower masks, contractions/outer products, then replace every n-D vector by 1-D rows."""
    _legalize(module)
    lower_contractions(module)
    lower_outerproducts(module)
    unroller = _Unroller()
    for region in module.regions:
        for block in region.blocks:
            unroller.run_block(block)
    unroller.erase_dead()


@register_pass
@dataclass(frozen=True)
class VectorUnrollTo1DPass(ModulePass):
    """n-D vector ops → 1-D vector ops (rows), scf.for iter_args included."""

    name = "xl-vector-unroll-to-1d"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            unroll_vectors_to_1d(op)
        except LoweringError:
            raise
        except Exception as err:  # a bug: report it as a lowering error, not a traceback
            raise LoweringError(f"vector unrolling failed: {type(err).__name__}: {err}") from err


__all__ = ["VectorUnrollTo1DPass", "is_nd", "unroll_vectors_to_1d"]
