"""bf16 values that are only moved (loaded, shuffled, stored) travel as i16.

LLVM 22's x86 backend aborts in instruction selection ("Unexpected illegal type!") on a
`llvm.masked.load` of a bf16 vector whose length is not a power of two above 32 lanes
with a non-constant-true mask. Minimal reproducer (`llc -mcpu=znver4`; the same call
with `half` or `i16` compiles):

    define void @f(ptr %a, ptr %b) {
      %v = call <33 x bfloat> @llvm.masked.load.v33bf16.p0(ptr align 2 %a,
             <33 x i1> <i1 true, i1 false, ..., i1 false, i1 true>, <33 x bfloat> poison)
      store <33 x bfloat> %v, ptr %b, align 2
      ret void
    }

Our IR never writes such a load itself: LLVM's vectorizers make one from the scalar
loads of a strided gather, e.g. the transposition of a bf16 tile (`linalg.transpose`,
`pack` with `inner_dims_pos = [1, 0]`), as `<106 x bfloat>` masked load + shuffle.

The root cause is the bfloat *type* on values that are never computed with, so this pass
(the last of the conversion) retypes every "web" of bf16 values that is pure data
movement to i16 of the same shape: a web is a set of bf16 values joined by data-movement
ops (load, store, constant, undef/poison, shufflevector, extract/insertelement, select,
masked load/store, vector.insert/extract, and branches into the block arguments of
loops: phis); it is retyped only when every definition and every use in it is such an op (bit patterns are unchanged: a bf16 and an i16 of the same
bits are the same 2 bytes in memory). Webs that reach arithmetic, a function argument, a
call or a cast keep their type. InstCombine does not turn an i16 load that is only
stored back into a bfloat one (it would only fold a load feeding a bitcast).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    VectorType,
    i16,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from xlinalg.ir.passes import register_pass
from xlinalg.ir.walk import walk_ops
from xlinalg.lowering.to_llvm.bf16 import bf16_bits, is_bf16

#: Data-movement ops: the operand positions that carry moved element values (their bf16
#: results are moved values too).
_MOVED_OPERANDS: dict[str, tuple[int, ...]] = {
    "llvm.load": (),
    "llvm.store": (0,),
    "llvm.mlir.constant": (),
    "llvm.mlir.undef": (),
    "llvm.mlir.poison": (),
    "llvm.shufflevector": (0, 1),
    "llvm.extractelement": (0,),
    "llvm.insertelement": (0, 1),
    "llvm.select": (1, 2),
}

#: Intrinsic name prefix -> moved operand positions (`llvm.call_intrinsic`).
_MOVED_INTRINSIC_OPERANDS: dict[str, tuple[int, ...]] = {
    "llvm.masked.load.": (3,),
    "llvm.masked.store.": (0,),
    "llvm.vector.insert.": (0, 1),
    "llvm.vector.extract.": (0,),
}


def _moved_operands(op: Operation) -> tuple[int, ...] | None:
    """The operand positions of `op` that carry moved values, or None: `op` computes."""
    if isinstance(op, llvm.CallIntrinsicOp):
        name = op.intrin.data
        return next(
            (pos for prefix, pos in _MOVED_INTRINSIC_OPERANDS.items() if name.startswith(prefix)),
            None,
        )
    return _MOVED_OPERANDS.get(op.name)


def _as_i16(t: Attribute) -> Attribute:
    return VectorType(i16, t.get_shape()) if isinstance(t, VectorType) else i16


def _signed16(bits: int) -> int:
    return bits - 0x10000 if bits & 0x8000 else bits


def _constant_value(op: Operation) -> FloatAttr | DenseIntOrFPElementsAttr | None:
    """The value of a bf16 `llvm.mlir.constant` (None: one this pass cannot rewrite)."""
    value = op.properties.get("value") or op.attributes.get("value")
    return value if isinstance(value, FloatAttr | DenseIntOrFPElementsAttr) else None


def _reals(attr: DenseIntOrFPElementsAttr) -> list[float]:
    """The elements of a dense attribute of a real (bf16) element type, as floats."""
    reals: list[float] = []
    for v in attr.get_values():
        assert not isinstance(v, tuple)  # (complex elements are pairs)
        reals.append(float(v))
    return reals


def _i16_constant(op: Operation) -> Operation:
    """The i16 constant with the bit pattern(s) of the bf16 constant `op`."""
    value = _constant_value(op)
    (result,) = op.results
    if isinstance(value, FloatAttr):
        return llvm.ConstantOp(IntegerAttr(_signed16(bf16_bits(value.value.data)), i16), i16)
    if isinstance(value, DenseIntOrFPElementsAttr):
        new_type = _as_i16(result.type)
        assert isinstance(new_type, VectorType)
        values = [_signed16(bf16_bits(v)) for v in _reals(value)]
        return llvm.ConstantOp(DenseIntOrFPElementsAttr.from_list(new_type, values), new_type)
    raise AssertionError(f"not a bf16 constant: {op}")


class _Webs:
    """Union-find over the bf16 values of a module."""

    def __init__(self) -> None:
        self.parent: dict[SSAValue, SSAValue] = {}
        self.computed: set[SSAValue] = set()  # roots of webs that touch a non-moving op

    def find(self, v: SSAValue) -> SSAValue:
        self.parent.setdefault(v, v)
        while self.parent[v] is not v:
            self.parent[v] = self.parent[self.parent[v]]
            v = self.parent[v]
        return v

    def union(self, a: SSAValue, b: SSAValue) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[ra] = rb
            if ra in self.computed:
                self.computed.add(rb)

    def mark_computed(self, v: SSAValue) -> None:
        self.computed.add(self.find(v))

    def moved_only(self, v: SSAValue) -> bool:
        return self.find(v) not in self.computed


def _forwarded(op: Operation) -> list[tuple[SSAValue, SSAValue]] | None:
    """(operand, successor block argument) pairs of a branch (None: not a branch)."""
    if isinstance(op, llvm.BrOp):
        return list(zip(op.arguments, op.successor.args))
    if isinstance(op, llvm.CondBrOp):
        return [
            *zip(op.then_arguments, op.then_block.args),
            *zip(op.else_arguments, op.else_block.args),
        ]
    return None


def _collect(module: ModuleOp) -> tuple[_Webs, list[SSAValue]]:
    webs = _Webs()
    values: list[SSAValue] = []
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                args = [a for a in block.args if is_bf16(a.type)]
                values.extend(args)
                if block is region.first_block:  # function arguments: left alone
                    for arg in args:
                        webs.mark_computed(arg)
        bf16_results = [r for r in op.results if is_bf16(r.type)]
        values.extend(bf16_results)
        if (forwarded := _forwarded(op)) is not None:  # phis join the web of their inputs
            for operand, arg in forwarded:
                if is_bf16(operand.type):
                    webs.union(operand, arg)
            continue
        moved = _moved_operands(op)
        if moved is None or (op.name == "llvm.mlir.constant" and _constant_value(op) is None):
            for v in [*bf16_results, *(o for o in op.operands if is_bf16(o.type))]:
                webs.mark_computed(v)
            continue
        joined = [*bf16_results, *(op.operands[i] for i in moved if is_bf16(op.operands[i].type))]
        for i, operand in enumerate(op.operands):
            if i not in moved and is_bf16(operand.type):
                webs.mark_computed(operand)
        for v in joined[1:]:
            webs.union(joined[0], v)
    return webs, values


def _retype(value: SSAValue) -> None:
    if not isinstance(value, OpResult):  # a block argument (phi)
        Rewriter.replace_value_with_new_type(value, _as_i16(value.type))
        return
    op = value.op
    if op.name == "llvm.mlir.constant":
        Rewriter.replace_op(op, _i16_constant(op))
        return
    Rewriter.replace_value_with_new_type(value, _as_i16(value.type))
    if isinstance(op, llvm.CallIntrinsicOp):
        _rename_intrinsic(op)


def _rename_intrinsic(op: llvm.CallIntrinsicOp) -> None:
    """`llvm.masked.load.v16bf16.p0` -> `llvm.masked.load.v16i16.p0` (once the types moved)."""
    op.properties["intrin"] = StringAttr(op.intrin.data.replace("bf16", "i16"))


def _has_bf16_results(module: ModuleOp) -> bool:
    """Whether any op result is bf16 (or a vector of it): each distinct type object is
    examined once (the ops of a kernel share a handful; the types live in the IR, so
    their ids stay unique during the scan)."""
    checked: set[int] = set()
    for inner in walk_ops(module):
        for r in inner.results:
            t = r.type
            if id(t) not in checked:
                if is_bf16(t):
                    return True
                checked.add(id(t))
    return False


@register_pass
@dataclass(frozen=True)
class Bf16StoragePass(ModulePass):
    """Retype the bf16 values that are only moved, never computed with, to i16."""

    name = "xl-bf16-moves-as-i16"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not _has_bf16_results(op):
            return
        webs, values = _collect(op)
        for value in values:
            if webs.moved_only(value):
                _retype(value)
        # intrinsics whose bf16 operands were retyped but that return nothing (masked.store)
        for inner in op.walk():
            if (
                isinstance(inner, llvm.CallIntrinsicOp)
                and "bf16" in inner.intrin.data
                and not any(is_bf16(v.type) for v in (*inner.operands, *inner.results))
            ):
                _rename_intrinsic(inner)


__all__ = ["Bf16StoragePass"]
