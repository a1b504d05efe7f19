"""A small IR builder shared by the conversion passes.

Every pass converts ops one at a time. Operands of an op that is converted are
taken in their LLVM type (`to_llvm`), looking through the
`builtin.unrealized_conversion_cast` that a previous conversion left behind;
results that still have unconverted users are cast back to their builtin type
(`from_llvm`). `reconcile-unrealized-casts` removes the casts that remain once
every dialect is converted.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    SymbolRefAttr,
    UnitAttr,
    UnrealizedConversionCastOp,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.irdl import IRDLOperation

from xlinalg.errors import LoweringError
from xlinalg.ir.dense_arrays import i32_array, i64_array
from xlinalg.ir.diagnostics import location_of
from xlinalg.lowering.to_llvm.ops import LoadOp, StoreOp
from xlinalg.lowering.to_llvm.types import convert_type, vector_type

# Building ops through their IRDL constructors costs ~10x more than
# `Operation.create` with ready-made properties; the conversion of every
# tuning candidate goes through the helpers below, so they cache attributes
# and use `create` for the ops emitted per memory access.
_PTR = llvm.LLVMPointerType()
_NO_OVERFLOW = IntegerAttr(0, 32)
_ORDERING_NONE = IntegerAttr(0, i64)
_GEP_SSA_INDEX = DenseArrayBase.from_list(i32, [llvm.GEP_USE_SSA_VAL])
_UNIT = UnitAttr()
_NO_FASTMATH = llvm.FastMathAttr(None)
_NO_CONVERSION_OVERFLOW = llvm.OverflowAttr(None)  # what xDSL's `llvm.TruncOp(...)` sets
_C_CALL = llvm.CallingConventionAttr("ccc")
_NO_TAIL_CALL = llvm.TailCallKindAttr(llvm.TailCallKind.NONE)


@cache
def _int_attr(value: int, type: IntegerType) -> IntegerAttr:
    return IntegerAttr(value, type, truncate_bits=True)


@cache
def _symbol_ref(name: str) -> SymbolRefAttr:
    return SymbolRefAttr(name)


_SHARED = threading.local()  # the entry blocks' constants while `shared_constants` is active
_Key = tuple[object, Attribute]  # (an int value, or None for an undef; the type)


@contextmanager
def shared_constants() -> Iterator[None]:
    """While active (one conversion to the LLVM dialect), `int_const` and `vector_undef`
    values are shared by every op of a function: each is created once, at the start of the
    function's entry block (so it dominates every use). The LLVM IR prints both inline
    (`emit.py`), so their place and sharing change nothing there; a large kernel builds
    ~1000 fewer ops (conv 7x7x512: 998 of the vector conversion's 4617)."""
    previous = getattr(_SHARED, "pools", None)
    _SHARED.pools = {}
    try:
        yield
    finally:
        _SHARED.pools = previous


def position_attr(position: tuple[int, ...]) -> DenseArrayBase:
    return i64_array(position)


class Builder:
    """Inserts new ops before an anchor op (or at the start of a block)."""

    def __init__(self, block: Block, before: Operation | None) -> None:
        self.block = block
        self.before = before
        self._consts: dict[_Key, SSAValue] = {}

    @staticmethod
    def before_op(op: Operation) -> Builder:
        block = op.parent_block()
        assert block is not None
        return Builder(block, op)

    @staticmethod
    def at_start(block: Block) -> Builder:
        return Builder(block, block.first_op)

    def insert(self, op: Operation) -> Operation:
        if self.before is None:
            self.block.add_op(op)
        else:
            self.block.insert_op_before(op, self.before)
        return op

    def add(self, op: Operation) -> OpResult:
        """Insert `op` and return its single result."""
        self.insert(op)
        return op.results[0]

    # --- constants -------------------------------------------------------
    def _shared(self, key: _Key, make: Callable[[], Operation]) -> SSAValue:
        """The value of `make()`, built once per builder, or once per function (at the
        start of its entry block) while `shared_constants` is active."""
        found = self._consts.get(key)
        if found is not None:
            return found
        pools: dict[Block, dict[_Key, SSAValue]] | None = getattr(_SHARED, "pools", None)
        region = self.block.parent
        if pools is None or region is None or region.first_block is None:
            found = self._consts[key] = self.add(make())
            return found
        entry = region.first_block
        pool = pools.setdefault(entry, {})
        found = pool.get(key)
        if found is None:
            op = make()
            first = entry.first_op
            if first is None:
                entry.add_op(op)
            else:
                entry.insert_op_before(op, first)
            found = pool[key] = op.results[0]
        self._consts[key] = found
        return found

    def int_const(self, value: int, type: Attribute = i64) -> SSAValue:
        assert isinstance(type, IntegerType)
        return self._shared(
            (value, type),
            lambda: llvm.ConstantOp.create(
                result_types=[type], properties={"value": _int_attr(value, type)}
            ),
        )

    def vector_undef(self, type: VectorType) -> SSAValue:
        """`llvm.mlir.undef : type` (a vector)."""
        return self._shared((None, type), lambda: llvm.UndefOp.create(result_types=[type]))

    # --- fast constructors for the ops emitted per memory access ---------
    def binary(self, cls: type[IRDLOperation], a: SSAValue, b: SSAValue) -> OpResult:
        """An integer `llvm.add`/`llvm.mul`/... without overflow flags."""
        props: dict[str, Attribute] = {}
        if "overflowFlags" in cls.get_irdl_definition().properties:
            props["overflowFlags"] = _NO_OVERFLOW
        return self.add(cls.create(operands=[a, b], result_types=[a.type], properties=props))

    def icmp(self, predicate: llvm.ICmpPredicateFlag, a: SSAValue, b: SSAValue) -> SSAValue:
        """`llvm.icmp predicate a, b`: an i1, or a vector of i1 of `a`'s shape."""
        t = a.type
        result = vector_type(i1, t.get_shape()) if isinstance(t, VectorType) else i1
        props = {"predicate": _int_attr(predicate.to_int(), i64)}
        return self.add(
            llvm.ICmpOp.create(operands=[a, b], result_types=[result], properties=props)
        )

    def select(self, condition: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        """`llvm.select condition, a, b`."""
        return self.add(
            llvm.SelectOp.create(
                operands=[condition, a, b],
                result_types=[a.type],
                properties={"fastmathFlags": _NO_FASTMATH},
            )
        )

    def convert(self, cls: type[IRDLOperation], value: SSAValue, to: Attribute) -> SSAValue:
        """A conversion (`llvm.trunc`/`sext`/`zext`/`sitofp`/`bitcast`/...) with the
        properties its xDSL constructor gives it: empty overflow flags on `trunc`."""
        props: dict[str, Attribute] = {}
        if "overflowFlags" in cls.get_irdl_definition().properties:
            props["overflowFlags"] = _NO_CONVERSION_OVERFLOW
        return self.add(cls.create(operands=[value], result_types=[to], properties=props))

    def constant(self, value: Attribute, type: Attribute) -> SSAValue:
        """`llvm.mlir.constant` of any value attribute (not shared, unlike `int_const`)."""
        return self.add(llvm.ConstantOp.create(result_types=[type], properties={"value": value}))

    def call(self, callee: str, args: Sequence[SSAValue], result: Attribute | None) -> Operation:
        """`llvm.call @callee(args)` (C calling convention, no operand bundles), returning
        `result` (None: void)."""
        props: dict[str, Attribute] = {
            "callee": _symbol_ref(callee),
            "fastmathFlags": _NO_FASTMATH,
            "CConv": _C_CALL,
            "op_bundle_sizes": i32_array(()),
            "operandSegmentSizes": i32_array((len(args), 0)),
            "TailCallKind": _NO_TAIL_CALL,
        }
        return self.insert(
            llvm.CallOp.create(
                operands=list(args),
                result_types=[] if result is None else [result],
                properties=props,
            )
        )

    def br(self, dest: Block, args: Sequence[SSAValue] = ()) -> Operation:
        """`llvm.br dest(args)`."""
        return self.insert(llvm.BrOp.create(operands=list(args), successors=[dest]))

    def cond_br(
        self,
        condition: SSAValue,
        then: Block,
        then_args: Sequence[SSAValue],
        other: Block,
        other_args: Sequence[SSAValue],
    ) -> Operation:
        """`llvm.cond_br condition, then(then_args), other(other_args)`."""
        sizes = i32_array((1, len(then_args), len(other_args)))
        return self.insert(
            llvm.CondBrOp.create(
                operands=[condition, *then_args, *other_args],
                successors=[then, other],
                properties={"operandSegmentSizes": sizes},
            )
        )

    def gep(
        self, ptr: SSAValue, index: SSAValue, element_type: Attribute, result_type: Attribute = _PTR
    ) -> SSAValue:
        """`getelementptr inbounds element_type, ptr, index` (a vector of pointers as
        `result_type` when `index` is a vector)."""
        props: dict[str, Attribute] = {
            "rawConstantIndices": _GEP_SSA_INDEX,
            "elem_type": element_type,
            "noWrapFlags": _NO_OVERFLOW,
            "inbounds": _UNIT,
        }
        return self.add(
            llvm.GEPOp.create(operands=[ptr, index], result_types=[result_type], properties=props)
        )

    def load(self, ptr: SSAValue, type: Attribute, alignment: int) -> SSAValue:
        props = {"ordering": _ORDERING_NONE, "alignment": _int_attr(alignment, i64)}
        return self.add(LoadOp.create(operands=[ptr], result_types=[type], properties=props))

    def store(self, value: SSAValue, ptr: SSAValue, alignment: int) -> None:
        props = {"ordering": _ORDERING_NONE, "alignment": _int_attr(alignment, i64)}
        self.insert(StoreOp.create(operands=[value, ptr], properties=props))

    def float_const(self, value: float, type: AnyFloat) -> SSAValue:
        return self.constant(FloatAttr(value, type), type)

    # --- type casts between builtin and LLVM types ----------------------
    def to_llvm(self, value: SSAValue) -> SSAValue:
        """`value` in its LLVM type (looking through a cast from the LLVM value)."""
        target = convert_type(value.type)
        if target is value.type or target == value.type:
            return value
        owner = value.owner
        if isinstance(owner, UnrealizedConversionCastOp) and len(owner.inputs) == 1:
            src = owner.inputs[0]
            if src.type == target:
                return src
        return self.add(UnrealizedConversionCastOp.create(operands=[value], result_types=[target]))

    def from_llvm(self, value: SSAValue, original_type: Attribute) -> SSAValue:
        """A value of `original_type` standing for the LLVM value `value`."""
        if value.type is original_type or value.type == original_type:
            return value
        return self.add(
            UnrealizedConversionCastOp.create(operands=[value], result_types=[original_type])
        )

    # --- arithmetic on i64 with constant folding -----------------------
    def add_i64(self, a: SSAValue | int, b: SSAValue | int) -> SSAValue | int:
        a, b = fold_int(a), fold_int(b)
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if isinstance(a, int) and a == 0:
            return b
        if isinstance(b, int) and b == 0:
            return a
        return self.binary(llvm.AddOp, self.value(a), self.value(b))

    def mul_i64(self, a: SSAValue | int, b: SSAValue | int) -> SSAValue | int:
        a, b = fold_int(a), fold_int(b)
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if isinstance(a, int):
            a, b = b, a
        if isinstance(b, int):
            if b == 0:
                return 0
            if b == 1:
                return a
        return self.binary(llvm.MulOp, self.value(a), self.value(b))

    def value(self, v: SSAValue | int) -> SSAValue:
        return self.int_const(v) if isinstance(v, int) else v

    # --- aggregates ------------------------------------------------------
    def extract(self, container: SSAValue, position: Sequence[int], type: Attribute) -> SSAValue:
        return self.add(
            llvm.ExtractValueOp.create(
                operands=[container],
                result_types=[type],
                properties={"position": position_attr(tuple(position))},
            )
        )

    def insert_value(
        self, container: SSAValue, value: SSAValue, position: Sequence[int]
    ) -> SSAValue:
        return self.add(
            llvm.InsertValueOp.create(
                operands=[container, value],
                result_types=[container.type],
                properties={"position": position_attr(tuple(position))},
            )
        )


def constant_int(v: SSAValue) -> int | None:
    """The value of an integer constant (arith or llvm), looking through casts."""
    owner = v.owner
    while isinstance(owner, UnrealizedConversionCastOp) and len(owner.inputs) == 1:
        owner = owner.inputs[0].owner
    if isinstance(owner, Operation) and owner.name in ("arith.constant", "llvm.mlir.constant"):
        value = owner.properties.get("value", owner.attributes.get("value"))
        if isinstance(value, IntegerAttr):
            return value.value.data
    return None


def fold_int(v: SSAValue | int) -> SSAValue | int:
    """`v` as a Python int if it is an i64/index constant."""
    if isinstance(v, int):
        return v
    c = constant_int(v)
    return v if c is None else c


@contextmanager
def lowering(op: Operation) -> Iterator[None]:
    """Report any failure to lower `op` as a `LoweringError` with the op's location.

    Unexpected exceptions (a bug, or IR that did not verify) also become a
    LoweringError naming the op, so users never see a traceback.
    """
    name = op.name
    location = location_of(op)
    try:
        yield
    except LoweringError as err:
        if err.location is None:
            err.location = location
        raise
    except Exception as err:
        raise LoweringError(
            f"cannot lower '{name}' to LLVM: {type(err).__name__}: {err}", location
        ) from err


def replace_op(op: Operation, results: Sequence[SSAValue]) -> None:
    """Replace every use of `op`'s results by `results` and erase `op`."""
    assert len(results) == len(op.results), op.name
    for old, new in zip(op.results, results, strict=True):
        old.replace_all_uses_with(new)
    op.detach()
    op.erase()
