"""`xl-convert-vector-to-llvm`: 1-D vector ops → LLVM (after `xl-vector-unroll-to-1d`).

- `vector.transfer_read/transfer_write` along the contiguous memref dim:
  `getelementptr` to the first element (same addressing as memref loads), then
  one vector `load`/`store` aligned to the element size; a dim that is not
  `in_bounds` (or an explicit mask) uses `llvm.masked.load/store` with the mask
  `[0, 1, ..] < size - index` (i32 lanes) (and the given mask), padding as pass-through, in
  pieces of at most 16 lanes joined with `llvm.vector.insert`;
- `vector.fma` → `llvm.fma.v*`; `vector.broadcast` of a scalar →
  `insertelement` + `shufflevector` (zero mask);
- `vector.reduction` → `llvm.vector.reduce.*` (fadd/fmul ordered, from the
  accumulator), combined with the accumulator for the other kinds;
- 1-D `vector.load`/`vector.store` → one vector load/store at the element address;
- 1-D `vector.gather` → `llvm.masked.gather` (`convert_gather.py`);
- `vector.create_mask` → `[0, 1, ..] < splat(bound)` (bound clamped to [0, n], i32 lanes);
- `vector.extract`/`vector.insert` of one element → `extractelement`/`insertelement`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from xdsl.dialects import llvm, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    UnrealizedConversionCastOp,
    VectorType,
    i32,
)
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr
from xdsl.irdl import IRDLOperation

from xlinalg.dialects.vector_gather import GatherOp
from xlinalg.errors import LoweringError
from xlinalg.ir.dense_arrays import i32_array
from xlinalg.ir.passes import register_pass
from xlinalg.lowering.to_llvm.builder import Builder, lowering, replace_op
from xlinalg.lowering.to_llvm.convert_gather import lower_gather
from xlinalg.lowering.to_llvm.descriptor import MemRefDescriptor
from xlinalg.lowering.to_llvm.dialect_pass import DialectConversionPass
from xlinalg.lowering.to_llvm.intrinsics import call_intrinsic, intrinsic_op, mangle
from xlinalg.lowering.to_llvm.types import convert_type, element_size, vector_type
from xlinalg.lowering.vector_to_llvm.llvm_ops import ExtractElementOp


# Attributes are immutable: the masks and index vectors are built once per value
# (`from_list` normalises every element; ≈1/3 of this pass's time when built per op).
def _shuffle_mask(start: int, count: int, step: int = 1) -> DenseArrayBase:
    """Lanes `start, start + step, ...` (`count` of them) as a shufflevector mask."""
    return i32_array(tuple(start + i * step for i in range(count)))


@cache
def _iota(n: int) -> DenseIntOrFPElementsAttr:
    """`[0, 1, ..., n - 1]` as a vector<n x i32> constant."""
    return DenseIntOrFPElementsAttr.from_list(VectorType(i32, [n]), list(range(n)))


def _iota_const(b: Builder, n: int) -> SSAValue:
    attr = _iota(n)
    return b.add(llvm.ConstantOp.create(result_types=[attr.type], properties={"value": attr}))


def _splat(b: Builder, scalar: SSAValue, t: VectorType) -> SSAValue:
    undef = b.vector_undef(t)
    first = b.add(
        llvm.InsertElementOp.create(operands=[undef, scalar, b.int_const(0)], result_types=[t])
    )
    (n,) = t.get_shape()
    return b.add(
        llvm.ShuffleVectorOp.create(
            operands=[first, undef], result_types=[t], properties={"mask": _shuffle_mask(0, n, 0)}
        )
    )


def _splat_of_lane(b: Builder, scalar: SSAValue, t: VectorType) -> SSAValue | None:
    """`scalar` splat to `t` as one `shufflevector` when it is a constant lane of a
    1-D vector `v` of `t`'s element type (`broadcast(extract(v, i))`, the unrolled
    outer-product / FMA broadcast; `v` may be shorter or longer than `t`, as
    shufflevector allows): what LLVM's instcombine makes of extract + insert + shuffle,
    without emitting those three. The extract is erased when nothing else uses it.
    None if `scalar` is not such a lane."""
    extract = scalar.owner
    if not isinstance(extract, ExtractElementOp):
        return None
    source = extract.vector.type
    if not (
        isinstance(source, VectorType)
        and source.element_type == t.element_type
        and source.get_num_dims() == 1
        and source.get_num_scalable_dims() == 0
    ):
        return None
    lane = extract.position.owner
    if not (isinstance(lane, llvm.ConstantOp) and isinstance(lane.value, IntegerAttr)):
        return None
    (n,) = t.get_shape()
    return b.add(
        llvm.ShuffleVectorOp.create(
            operands=[extract.vector, extract.vector],
            result_types=[t],
            properties={"mask": _shuffle_mask(lane.value.value.data, n, 0)},
        )
    )


def _erase_if_unused(value: SSAValue) -> None:
    """Erase the op of `value` and then its operands' ops while they become unused
    (only single-result pure conversion leftovers: casts and element extracts)."""
    while not value.uses:
        owner = value.owner
        leftover = isinstance(owner, ExtractElementOp | UnrealizedConversionCastOp)
        if not leftover or len(owner.results) != 1:
            break
        operand = owner.operands[0]
        owner.detach()
        owner.erase()
        value = operand


def _lane_mask(b: Builder, bound: SSAValue, n: int) -> SSAValue:
    """`[0, 1, ..., n - 1] < bound` (an i64) as a vector<n x i1>.

    As upstream's `force32BitVectorIndices`: the bound is clamped to [0, n] as a
    scalar, then compared in i32 lanes (one AVX-512 compare per 16 lanes; the mask
    only depends on the scalar, so LLVM hoists it out of loops as a k register)."""
    sgt, slt = llvm.ICmpPredicateFlag.SGT, llvm.ICmpPredicateFlag.SLT
    zero, top = b.int_const(0), b.int_const(n)
    bound = b.select(b.icmp(sgt, bound, top), top, bound)
    bound = b.select(b.icmp(slt, bound, zero), zero, bound)
    vi = vector_type(i32, (n,))
    splat = _splat(b, b.convert(llvm.TruncOp, bound, i32), vi)
    return b.icmp(slt, _iota_const(b, n), splat)


def _bounds_mask(b: Builder, mem: MemRefDescriptor, dim: int, start: SSAValue, n: int) -> SSAValue:
    """`[start + 0, start + 1, ...] < size(dim)` as a vector<n x i1>."""
    size = b.value(mem.size(b, dim))
    return _lane_mask(b, b.binary(llvm.SubOp, size, start), n)


def _transfer(op: vector.TransferReadOp | vector.TransferWriteOp) -> None:
    amap = op.permutation_map.data
    mt = op.source.type
    if not isinstance(mt, MemRefType):
        raise LoweringError("vector transfers on tensors must be bufferized first")
    rank = mt.get_num_dims()
    if len(amap.results) != 1 or not (
        isinstance(amap.results[0], AffineDimExpr) and amap.results[0].position == rank - 1
    ):
        raise LoweringError(f"transfer with permutation map {amap} was not unrolled")
    b = Builder.before_op(op)
    mem = MemRefDescriptor(b.to_llvm(op.source), mt)
    indices = [b.to_llvm(i) for i in op.indices]
    ptr = mem.element_ptr(b, indices)
    align = element_size(mt.element_type)
    in_bounds = bool(op.in_bounds and op.in_bounds.data[0].value.data)
    vt = op.result.type if isinstance(op, vector.TransferReadOp) else op.vector.type
    assert isinstance(vt, VectorType)
    lvt = convert_type(vt)
    assert isinstance(lvt, VectorType)
    (n,) = lvt.get_shape()
    if in_bounds and op.mask is None:
        if isinstance(op, vector.TransferReadOp):
            replace_op(op, [b.from_llvm(b.load(ptr, lvt, align), op.result.type)])
        else:
            b.store(b.to_llvm(op.vector), ptr, align)
            replace_op(op, [])
        return
    # Masked: in pieces of at most 16 lanes (LLVM scalarizes masked loads/stores
    # of vector types the target cannot split evenly, e.g. <48 x float>).
    chunk = _chunk_lanes(n)
    et = lvt.element_type
    ct = vector_type(et, (chunk,))
    align_v = b.int_const(align, i32)
    user = b.to_llvm(op.mask) if op.mask is not None else None
    pieces: list[tuple[int, SSAValue, SSAValue]] = []
    for start in range(0, n, chunk):
        piece_ptr = ptr if start == 0 else b.gep(ptr, b.int_const(start), et)
        mask: SSAValue | None = None
        if not in_bounds:
            first = b.value(b.add_i64(indices[-1], start))
            mask = _bounds_mask(b, mem, rank - 1, first, chunk)
        if user is not None:
            sub = user if chunk == n else _lanes(b, user, start, chunk)
            mask = sub if mask is None else b.binary(llvm.AndOp, mask, sub)
        assert mask is not None
        pieces.append((start, piece_ptr, mask))
    suffix = f"v{chunk}{mangle(et)}"
    if isinstance(op, vector.TransferReadOp):
        passthru = _splat(b, b.to_llvm(op.padding), ct)
        result: SSAValue | None = None
        for start, piece_ptr, mask in pieces:
            v = b.add(
                intrinsic_op(
                    f"llvm.masked.load.{suffix}.p0", [piece_ptr, align_v, mask, passthru], [ct]
                )
            )
            if chunk == n:
                result = v
                continue
            if result is None:
                result = b.add(llvm.UndefOp.create(result_types=[lvt]))
            result = b.add(
                intrinsic_op(
                    f"llvm.vector.insert.v{n}{mangle(et)}.{suffix}",
                    [result, v, b.int_const(start)],
                    [lvt],
                )
            )
        assert result is not None
        replace_op(op, [b.from_llvm(result, op.result.type)])
    else:
        value = b.to_llvm(op.vector)
        for start, piece_ptr, mask in pieces:
            piece = value if chunk == n else _lanes(b, value, start, chunk)
            b.insert(
                intrinsic_op(
                    f"llvm.masked.store.{suffix}.p0", [piece, piece_ptr, align_v, mask], []
                )
            )
        replace_op(op, [])


def _chunk_lanes(n: int) -> int:
    """Lanes per masked piece: n itself up to 16, else the largest power of 2 ≤ 16 dividing n."""
    if n <= 16:
        return n
    chunk = 16
    while n % chunk:
        chunk //= 2
    return chunk


def _lanes(b: Builder, v: SSAValue, start: int, count: int) -> SSAValue:
    """Lanes [start, start + count) of the 1-D vector `v` (a shufflevector)."""
    t = v.type
    assert isinstance(t, VectorType)
    return b.add(
        llvm.ShuffleVectorOp.create(
            operands=[v, v],
            result_types=[vector_type(t.element_type, (count,))],
            properties={"mask": _shuffle_mask(start, count)},
        )
    )


# kind → (reduce intrinsic, combine with the accumulator: intrinsic or LLVM op)
_FLOAT_REDUCE = {
    "maximumf": ("vector.reduce.fmaximum", "maximum"),
    "minimumf": ("vector.reduce.fminimum", "minimum"),
    "maxnumf": ("vector.reduce.fmax", "maxnum"),
    "minnumf": ("vector.reduce.fmin", "minnum"),
}
_INT_REDUCE: dict[str, tuple[str, str | type[IRDLOperation]]] = {
    "add": ("vector.reduce.add", llvm.AddOp),
    "mul": ("vector.reduce.mul", llvm.MulOp),
    "and": ("vector.reduce.and", llvm.AndOp),
    "or": ("vector.reduce.or", llvm.OrOp),
    "xor": ("vector.reduce.xor", llvm.XOrOp),
    "maxsi": ("vector.reduce.smax", "smax"),
    "minsi": ("vector.reduce.smin", "smin"),
    "maxui": ("vector.reduce.umax", "umax"),
    "minui": ("vector.reduce.umin", "umin"),
}


def _reduction(b: Builder, op: vector.ReductionOp) -> SSAValue:
    """`vector.reduction` → `llvm.vector.reduce.*` (fadd/fmul in order, from the accumulator)."""
    kind = op.kind.data.value
    v = b.to_llvm(op.vector)
    t = v.type
    assert isinstance(t, VectorType)
    et = t.element_type
    acc = b.to_llvm(op.acc) if op.acc is not None else None
    if isinstance(et, IntegerType):
        if kind not in _INT_REDUCE:
            raise LoweringError(f"reduction kind {kind} does not apply to {t}")
        name, combine = _INT_REDUCE[kind]
        r = call_intrinsic(b, name, [v], et, overload=[t])
    elif kind in ("add", "mul"):
        assert isinstance(et, AnyFloat)  # (not an integer)
        start = acc if acc is not None else b.float_const(0.0 if kind == "add" else 1.0, et)
        fname = "vector.reduce.fadd" if kind == "add" else "vector.reduce.fmul"
        return call_intrinsic(b, fname, [start, v], et, overload=[t])
    elif kind in _FLOAT_REDUCE:
        name, combine = _FLOAT_REDUCE[kind]
        r = call_intrinsic(b, name, [v], et, overload=[t])
    else:
        raise LoweringError(f"reduction kind {kind} does not apply to {t}")
    if acc is None:
        return r
    if isinstance(combine, str):
        return call_intrinsic(b, combine, [r, acc], et)
    return b.binary(combine, r, acc)


def lower_vector_op(op: Operation) -> None:
    b = Builder.before_op(op)
    if isinstance(op, vector.TransferReadOp | vector.TransferWriteOp):
        _transfer(op)
    elif isinstance(op, GatherOp):
        lower_gather(op)
    elif isinstance(op, vector.LoadOp | vector.StoreOp):
        is_load = isinstance(op, vector.LoadOp)
        base = op.base
        vt = op.result.type if is_load else op.vector.type
        assert isinstance(base.type, MemRefType)
        assert isinstance(vt, VectorType)
        if vt.get_num_dims() != 1:
            raise LoweringError(f"{op.name} of the n-D vector type {vt} is not supported")
        mem = MemRefDescriptor(b.to_llvm(base), base.type)
        ptr = mem.element_ptr(b, [b.to_llvm(i) for i in op.indices])
        align = element_size(base.type.element_type)
        if is_load:
            replace_op(op, [b.from_llvm(b.load(ptr, convert_type(vt), align), vt)])
        else:
            b.store(b.to_llvm(op.vector), ptr, align)
            replace_op(op, [])
    elif isinstance(op, vector.CreateMaskOp):
        t = op.mask_vector.type
        assert isinstance(t, VectorType)
        (n,) = t.get_shape()
        mask = _lane_mask(b, b.to_llvm(op.mask_dim_sizes[0]), n)
        replace_op(op, [b.from_llvm(mask, t)])
    elif isinstance(op, vector.ReductionOp):
        replace_op(op, [b.from_llvm(_reduction(b, op), op.dest.type)])
    elif isinstance(op, vector.FMAOp):
        t = convert_type(op.res.type)
        v = call_intrinsic(b, "fma", [b.to_llvm(o) for o in op.operands], t)
        replace_op(op, [b.from_llvm(v, op.res.type)])
    elif isinstance(op, vector.BroadcastOp):
        t = op.vector.type
        src = op.source
        if src.type == t:
            replace_op(op, [src])
            return
        if isinstance(src.type, VectorType):
            raise LoweringError(f"broadcast {src.type} to {t} was not unrolled")
        scalar, lt = b.to_llvm(src), convert_type(t)
        assert isinstance(lt, VectorType)
        v = _splat_of_lane(b, scalar, lt) or _splat(b, scalar, lt)
        replace_op(op, [b.from_llvm(v, t)])
        _erase_if_unused(src)
    elif isinstance(op, vector.ExtractOp):
        pos = list(op.static_position.get_values())
        if op.dynamic_position or len(pos) != 1 or isinstance(op.result.type, VectorType):
            raise LoweringError("only element extraction from 1-D vectors reaches LLVM")
        src = b.to_llvm(op.vector)
        assert isinstance(src.type, VectorType)
        v = b.add(
            ExtractElementOp.create(
                operands=[src, b.int_const(pos[0])], result_types=[src.type.element_type]
            )
        )
        replace_op(op, [b.from_llvm(v, op.result.type)])
    elif isinstance(op, vector.InsertOp):
        pos = list(op.static_position.get_values())
        if op.dynamic_position or len(pos) != 1 or isinstance(op.source.type, VectorType):
            raise LoweringError("only element insertion into 1-D vectors reaches LLVM")
        dest = b.to_llvm(op.dest)
        v = b.add(
            llvm.InsertElementOp.create(
                operands=[dest, b.to_llvm(op.source), b.int_const(pos[0])], result_types=[dest.type]
            )
        )
        replace_op(op, [b.from_llvm(v, op.result.type)])
    else:
        raise LoweringError(f"cannot lower '{op.name}' to LLVM")


@register_pass
@dataclass(frozen=True)
class ConvertVectorToLLVMPass(DialectConversionPass):
    """Lower 1-D `vector` ops to LLVM vector instructions and intrinsics."""

    name = "xl-convert-vector-to-llvm"
    dialect = "vector"

    def convert_ops(self, module: ModuleOp, ops: Sequence[Operation]) -> None:
        for inner in ops:
            with lowering(inner):
                lower_vector_op(inner)


__all__ = ["ConvertVectorToLLVMPass", "lower_vector_op"]
