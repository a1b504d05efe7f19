"""LLVM-dialect module → LLVM IR text (opaque pointers, LLVM 22 syntax).

A direct text emitter: one pass over the ops, block arguments become `phi`
nodes, `llvm.mlir.constant`/`undef`/`zero` are printed inline as operands,
intrinsic and external declarations are collected on the way. The result is
accepted by `llvmlite.binding.parse_assembly`.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Iterable
from functools import cache, lru_cache
from typing import Any

import numpy as np
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xlinalg.errors import LoweringError
from xlinalg.lowering.to_llvm.bf16 import bf16_bits

# LLVM-dialect op name -> LLVM instruction (xDSL's classes and ours in `ops.py`
# share the upstream op names, so the emitter dispatches on the name).
_BINARY: dict[str, str] = {
    name: name.removeprefix("llvm.")
    for name in (
        "llvm.add",
        "llvm.sub",
        "llvm.mul",
        "llvm.sdiv",
        "llvm.udiv",
        "llvm.srem",
        "llvm.urem",
        "llvm.and",
        "llvm.or",
        "llvm.xor",
        "llvm.shl",
        "llvm.lshr",
        "llvm.ashr",
        "llvm.fadd",
        "llvm.fsub",
        "llvm.fmul",
        "llvm.fdiv",
        "llvm.frem",
    )
}

_CASTS: dict[str, str] = {
    name: name.removeprefix("llvm.")
    for name in (
        "llvm.trunc",
        "llvm.zext",
        "llvm.sext",
        "llvm.sitofp",
        "llvm.uitofp",
        "llvm.fptosi",
        "llvm.fptoui",
        "llvm.fpext",
        "llvm.fptrunc",
        "llvm.bitcast",
        "llvm.ptrtoint",
        "llvm.inttoptr",
    )
}

_INLINE = (llvm.ConstantOp, llvm.UndefOp, llvm.ZeroOp, llvm.AddressOfOp)

_FASTMATH_ORDER = ("reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn")


@cache
def type_text(t: Attribute) -> str:
    """LLVM IR spelling of an LLVM-dialect type (memoised: attributes are immutable)."""
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, Float64Type):
        return "double"
    if isinstance(t, Float16Type):
        return "half"
    if isinstance(t, BFloat16Type):
        return "bfloat"
    if isinstance(t, llvm.LLVMPointerType):
        return "ptr"
    if isinstance(t, llvm.LLVMVoidType):
        return "void"
    if isinstance(t, llvm.LLVMArrayType):
        return f"[{t.size.data} x {type_text(t.type)}]"
    if isinstance(t, llvm.LLVMStructType):
        return "{ " + ", ".join(type_text(m) for m in t.types.data) + " }"
    if isinstance(t, VectorType):
        (n,) = t.get_shape()
        return f"<{n} x {type_text(t.element_type)}>"
    raise LoweringError(f"cannot emit type {t} as LLVM IR")


_PLAIN_NAME = re.compile(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*")


def global_name(name: str) -> str:
    """`@name`, quoted when LLVM's identifier syntax requires it."""
    if _PLAIN_NAME.fullmatch(name):
        return "@" + name
    escaped = "".join(c if c.isprintable() and c not in '"\\' else f"\\{ord(c):02X}" for c in name)
    return f'@"{escaped}"'


def _int_text(value: int, width: int) -> str:
    if width == 1:
        return "true" if value & 1 else "false"
    value &= (1 << width) - 1
    if value >= 1 << (width - 1):
        value -= 1 << width
    return str(value)


def _float_text(value: float, t: Attribute) -> str:
    if isinstance(t, Float64Type):
        return "0x" + struct.pack(">d", value).hex().upper()
    if isinstance(t, Float32Type):
        # LLVM spells floats as the (exactly representable) double value
        as_f32 = struct.unpack(">f", struct.pack(">f", value))[0]
        return "0x" + struct.pack(">d", as_f32).hex().upper()
    if isinstance(t, Float16Type):
        return (
            "0xH"
            + np.array(value, dtype=np.float16)
            .view(np.uint16)
            .item()
            .to_bytes(2, "big")
            .hex()
            .upper()
        )
    if isinstance(t, BFloat16Type):
        return f"0xR{bf16_bits(value):04X}"
    raise LoweringError(f"cannot emit float constant of type {t}")


def _scalar_const_text(value: Attribute | float, t: Attribute) -> str:
    if isinstance(value, IntegerAttr | FloatAttr):
        value = value.value.data
    assert not isinstance(value, Attribute), value
    if isinstance(t, IntegerType):
        return _int_text(int(value), t.width.data)
    return _float_text(float(value), t)


@lru_cache(maxsize=4096)
def _constant_value_text(value: Attribute, t: Attribute) -> str:
    """Operand text of an `llvm.mlir.constant` (memoised: a splat vector constant is
    printed at each use and the same few constants recur throughout a kernel)."""
    if isinstance(t, VectorType):
        assert isinstance(value, DenseIntOrFPElementsAttr)
        et = t.element_type
        (n,) = t.get_shape()
        values = list(value.get_values())
        if len(values) == 1:
            values = values * n
        et_text = type_text(et)
        return "<" + ", ".join(f"{et_text} {_scalar_const_text(v, et)}" for v in values) + ">"
    return _scalar_const_text(value, t)


def _fastmath_text(op: Operation) -> str:
    fm = op.properties.get("fastmathFlags")
    flags = getattr(fm, "data", None)
    if not flags:
        return ""
    names = {str(f) for f in flags}
    if names >= set(_FASTMATH_ORDER):
        return "fast "
    return "".join(f"{n} " for n in _FASTMATH_ORDER if n in names)


def _overflow_text(op: Operation) -> str:
    flags = op.properties.get("overflowFlags")
    if isinstance(flags, IntegerAttr):
        bits = flags.value.data
        return ("nuw " if bits & 2 else "") + ("nsw " if bits & 1 else "")
    return ""


def _align_text(op: Operation) -> str:
    alignment = op.properties.get("alignment")
    return f", align {alignment.value.data}" if isinstance(alignment, IntegerAttr) else ""


def _reachable(blocks: list[Block]) -> list[Block]:
    """The blocks reachable from the entry block, in their original order."""
    seen = {blocks[0]}
    stack = [blocks[0]]
    while stack:
        term = stack.pop().last_op
        for succ in term.successors if term is not None else ():
            if succ not in seen:
                seen.add(succ)
                stack.append(succ)
    return [b for b in blocks if b in seen]


class _FunctionEmitter:
    def __init__(self, module_emitter: LLVMIREmitter, func: llvm.FuncOp) -> None:
        self.m = module_emitter
        self.func = func
        self.names: dict[SSAValue, str] = {}
        self.block_names: dict[Block, str] = {}
        self.lines: list[str] = []
        self._types: dict[int, tuple[Attribute, str]] = {}
        self._constants: dict[tuple[int, int], tuple[Attribute, Attribute, str]] = {}

    # --- names -------------------------------------------------------------
    def ref(self, v: SSAValue) -> str:
        """Operand text (without its type)."""
        name = self.names.get(v)  # every value `emit` numbered: most operands
        if name is not None:
            return name
        owner = v.owner
        if isinstance(owner, llvm.ConstantOp):
            return self.constant_text(owner)
        if isinstance(owner, llvm.UndefOp):
            return "undef"
        if isinstance(owner, llvm.AddressOfOp):
            return global_name(owner.global_name.string_value())
        if isinstance(owner, llvm.ZeroOp):
            t = v.type
            if isinstance(t, llvm.LLVMPointerType):
                return "null"
            if isinstance(t, IntegerType):
                return "0"
            if isinstance(t, Float16Type | BFloat16Type | Float32Type | Float64Type):
                return "0.0"
            return "zeroinitializer"
        name = f"%v{len(self.names)}"
        self.names[v] = name
        return name

    def constant_text(self, op: llvm.ConstantOp) -> str:
        """`_constant_value_text` of the constant, memoised by the identity of its value
        and type attributes (the conversions share them; hashing them is recursive)."""
        value, t = op.value, op.result.type
        entry = self._constants.get((id(value), id(t)))
        if entry is None:
            entry = (value, t, _constant_value_text(value, t))  # kept: ids stay unique
            self._constants[(id(value), id(t))] = entry
        return entry[2]

    def type_of(self, t: Attribute) -> str:
        """`type_text(t)`, memoised by identity for this function: the ops share their type
        objects, and hashing a type attribute (the key of `type_text`'s cache) is recursive."""
        entry = self._types.get(id(t))
        if entry is None:  # the entry keeps `t` alive, so its id is not reused meanwhile
            entry = self._types[id(t)] = (t, type_text(t))
        return entry[1]

    def typed(self, v: SSAValue) -> str:
        return f"{self.type_of(v.type)} {self.ref(v)}"

    def label(self, block: Block) -> str:
        name = self.block_names.get(block)
        if name is None:
            name = f"bb{len(self.block_names)}"
            self.block_names[block] = name
        return name

    # --- function ----------------------------------------------------------
    def emit(self) -> list[str]:
        f = self.func
        ftype = f.function_type
        ret = self.type_of(ftype.output)
        linkage = f.linkage.linkage.data
        blocks = list(f.body.blocks)
        name = f.sym_name.data
        if not blocks:
            params = ", ".join(self.type_of(t) for t in ftype.inputs.data)
            return [f"declare {ret} {global_name(name)}({params})"]
        entry = blocks[0]
        blocks = _reachable(blocks)  # unreachable blocks would need phis without incoming edges
        for block in blocks:  # number values in program order, for readable IR
            self.label(block)
            for arg in block.args:
                self.ref(arg)
            for op in block.ops:
                if not isinstance(op, _INLINE):
                    for r in op.results:
                        self.ref(r)
        attrs = f.arg_attrs.data if f.arg_attrs is not None else ()
        params = ", ".join(
            f"{self.type_of(a.type)} noalias {self.ref(a)}"
            if i < len(attrs) and "llvm.noalias" in attrs[i].data
            else self.typed(a)
            for i, a in enumerate(entry.args)
        )
        prefix = "define " if linkage == "external" else f"define {linkage} "
        self.lines.append(f"{prefix}{ret} {global_name(name)}({params}) {{")
        incoming = self._incoming(blocks)
        for block in blocks:
            self.lines.append(f"{self.label(block)}:")
            if block is not entry:
                for arg in block.args:
                    edges = incoming.get((block, arg.index), [])
                    if not edges:
                        raise LoweringError(f"block argument without predecessors in @{name}")
                    phis = ", ".join(f"[ {self.ref(v)}, %{self.label(p)} ]" for p, v in edges)
                    self.lines.append(f"  {self.ref(arg)} = phi {self.type_of(arg.type)} {phis}")
            for op in block.ops:
                self._op(op)
        self.lines.append("}")
        return self.lines

    def _incoming(
        self, blocks: Iterable[Block]
    ) -> dict[tuple[Block, int], list[tuple[Block, SSAValue]]]:
        incoming: dict[tuple[Block, int], list[tuple[Block, SSAValue]]] = {}
        for block in blocks:
            term = block.last_op
            edges: list[tuple[Block, Iterable[SSAValue]]] = []
            if isinstance(term, llvm.BrOp):
                edges = [(term.successor, term.arguments)]
            elif isinstance(term, llvm.CondBrOp):
                if term.then_block is term.else_block and term.then_block.args:
                    if list(term.then_arguments) != list(term.else_arguments):
                        raise LoweringError(
                            "llvm.cond_br with different arguments to the same block"
                        )
                    edges = [(term.then_block, term.then_arguments)]
                else:
                    edges = [
                        (term.then_block, term.then_arguments),
                        (term.else_block, term.else_arguments),
                    ]
            for succ, args in edges:
                for i, v in enumerate(args):
                    incoming.setdefault((succ, i), []).append((block, v))
        return incoming

    # --- ops ---------------------------------------------------------------
    def _op(self, op: Operation) -> None:
        if isinstance(op, _INLINE):
            return
        text = self._op_text(op)
        if op.results and not isinstance(op.results[0].type, llvm.LLVMVoidType):
            text = f"{self.ref(op.results[0])} = {text}"
        self.lines.append("  " + text)

    def _op_text(self, op: Operation) -> str:
        name = op.name
        if name in _BINARY:
            a, b = op.operands
            flags = _fastmath_text(op) + _overflow_text(op)
            if op.properties.get("isExact") is not None:
                flags += "exact "
            return f"{_BINARY[name]} {flags}{self.typed(a)}, {self.ref(b)}"
        if name in _CASTS:
            (a,) = op.operands
            return f"{_CASTS[name]} {self.typed(a)} to {self.type_of(op.results[0].type)}"
        # dispatch on the name (one dict lookup instead of a chain of isinstance checks;
        # each name belongs to exactly one op class)
        handler = _OP_TEXT.get(name)
        if handler is None:
            raise LoweringError(f"cannot emit '{op.name}' as LLVM IR")
        return handler(self, op)

    def _load(self, op: Operation) -> str:
        (ptr,) = op.operands
        return f"load {self.type_of(op.results[0].type)}, {self.typed(ptr)}{_align_text(op)}"

    def _store(self, op: Operation) -> str:
        value, ptr = op.operands
        return f"store {self.typed(value)}, {self.typed(ptr)}{_align_text(op)}"

    def _icmp(self, op: llvm.ICmpOp) -> str:
        pred = llvm.ICmpPredicateFlag.from_int(op.predicate.value.data).value
        return f"icmp {pred} {self.typed(op.lhs)}, {self.ref(op.rhs)}"

    def _fcmp(self, op: llvm.FCmpOp) -> str:
        pred = llvm.FCmpPredicateFlag.from_int(op.predicate.value.data).value.strip("_")
        return f"fcmp {_fastmath_text(op)}{pred} {self.typed(op.lhs)}, {self.ref(op.rhs)}"

    def _select(self, op: llvm.SelectOp) -> str:
        return f"select {_fastmath_text(op)}{self.typed(op.cond)}, {self.typed(op.lhs)}, {self.typed(op.rhs)}"

    def _fneg(self, op: llvm.FNegOp) -> str:
        return f"fneg {_fastmath_text(op)}{self.typed(op.operands[0])}"

    def _extractvalue(self, op: llvm.ExtractValueOp) -> str:
        pos = ", ".join(str(p) for p in op.position.get_values())
        return f"extractvalue {self.typed(op.container)}, {pos}"

    def _insertvalue(self, op: llvm.InsertValueOp) -> str:
        pos = ", ".join(str(p) for p in op.position.get_values())
        return f"insertvalue {self.typed(op.container)}, {self.typed(op.value)}, {pos}"

    def _extractelement(self, op: Operation) -> str:
        return f"extractelement {self.typed(op.operands[0])}, {self.typed(op.operands[1])}"

    def _insertelement(self, op: llvm.InsertElementOp) -> str:
        return (
            f"insertelement {self.typed(op.vector)}, {self.typed(op.value)}, {self.typed(op.index)}"
        )

    def _shufflevector(self, op: llvm.ShuffleVectorOp) -> str:
        return (
            f"shufflevector {self.typed(op.v1)}, {self.typed(op.v2)}, {_shuffle_mask_text(op.mask)}"
        )

    def _alloca(self, op: llvm.AllocaOp) -> str:
        align = f", align {op.alignment.value.data}" if op.alignment is not None else ""
        return f"alloca {self.type_of(op.elem_type)}, {self.typed(op.size)}{align}"

    def _call_intrinsic(self, op: llvm.CallIntrinsicOp) -> str:
        name = op.intrin.data
        arg_types = [a.type for a in op.args]
        ret_t = op.ress.type if op.ress is not None else llvm.LLVMVoidType()
        self.m.declare(name, arg_types, ret_t)
        args = ", ".join(self.typed(a) for a in op.args)
        return f"call {_fastmath_text(op)}{self.type_of(ret_t)} {global_name(name)}({args})"

    def _call(self, op: llvm.CallOp) -> str:
        if op.callee is None:
            raise LoweringError("indirect llvm.call is not supported")
        ret_t = op.returned.type if op.returned is not None else llvm.LLVMVoidType()
        args = ", ".join(self.typed(a) for a in op.args)
        fm = _fastmath_text(op)
        callee = global_name(op.callee.string_value())
        return f"call {fm}{self.type_of(ret_t)} {callee}({args})"

    def _br(self, op: llvm.BrOp) -> str:
        return f"br label %{self.label(op.successor)}"

    def _cond_br(self, op: llvm.CondBrOp) -> str:
        return (
            f"br {self.typed(op.cond)}, label %{self.label(op.then_block)}, "
            f"label %{self.label(op.else_block)}"
        )

    def _return(self, op: llvm.ReturnOp) -> str:
        return f"ret {self.typed(op.arg)}" if op.arg is not None else "ret void"

    def _unreachable(self, op: Operation) -> str:
        return "unreachable"

    def _gep(self, op: llvm.GEPOp) -> str:
        ssa = iter(op.ssa_indices)
        parts: list[str] = []
        current: Attribute = op.elem_type
        for i, raw in enumerate(op.rawConstantIndices.get_values()):
            in_struct = i > 0 and isinstance(current, llvm.LLVMStructType)
            if raw == llvm.GEP_USE_SSA_VAL:
                parts.append(self.typed(next(ssa)))
            else:
                parts.append(f"{'i32' if in_struct else 'i64'} {raw}")
            if i > 0:
                if isinstance(current, llvm.LLVMStructType):
                    current = current.types.data[raw]
                elif isinstance(current, llvm.LLVMArrayType):
                    current = current.type
        inbounds = "inbounds " if op.inbounds is not None else ""
        idx = ", ".join(parts)
        return f"getelementptr {inbounds}{self.type_of(op.elem_type)}, {self.typed(op.ptr)}, {idx}"


_OP_TEXT: dict[str, Callable[[_FunctionEmitter, Any], str]] = {
    "llvm.load": _FunctionEmitter._load,
    "llvm.store": _FunctionEmitter._store,
    llvm.GEPOp.name: _FunctionEmitter._gep,
    llvm.ICmpOp.name: _FunctionEmitter._icmp,
    llvm.FCmpOp.name: _FunctionEmitter._fcmp,
    llvm.SelectOp.name: _FunctionEmitter._select,
    llvm.FNegOp.name: _FunctionEmitter._fneg,
    llvm.ExtractValueOp.name: _FunctionEmitter._extractvalue,
    llvm.InsertValueOp.name: _FunctionEmitter._insertvalue,
    "llvm.extractelement": _FunctionEmitter._extractelement,
    llvm.InsertElementOp.name: _FunctionEmitter._insertelement,
    llvm.ShuffleVectorOp.name: _FunctionEmitter._shufflevector,
    llvm.AllocaOp.name: _FunctionEmitter._alloca,
    llvm.CallIntrinsicOp.name: _FunctionEmitter._call_intrinsic,
    llvm.CallOp.name: _FunctionEmitter._call,
    llvm.BrOp.name: _FunctionEmitter._br,
    llvm.CondBrOp.name: _FunctionEmitter._cond_br,
    llvm.ReturnOp.name: _FunctionEmitter._return,
    llvm.UnreachableOp.name: _FunctionEmitter._unreachable,
}


@lru_cache(maxsize=1024)
def _shuffle_mask_text(mask: Attribute) -> str:
    assert isinstance(mask, DenseArrayBase)  # (xDSL types the property by a constraint variable)
    lanes = list(mask.get_values())
    return f"<{len(lanes)} x i32> <" + ", ".join(f"i32 {m}" for m in lanes) + ">"


def _global_text(op: llvm.GlobalOp) -> str:
    """`@g = private constant [N x T] [...] , align A` for an `llvm.mlir.global`."""
    t = op.global_type
    value = op.value
    if value is None:
        init = "zeroinitializer"
    elif isinstance(value, DenseIntOrFPElementsAttr) and isinstance(t, llvm.LLVMArrayType):
        values = list(value.get_values())
        if len(values) != t.size.data:
            raise LoweringError(f"initializer of @{op.sym_name.data} has the wrong size")
        et = type_text(t.type)
        init = "[" + ", ".join(f"{et} {_scalar_const_text(v, t.type)}" for v in values) + "]"
    else:
        raise LoweringError(f"cannot emit the initializer of global @{op.sym_name.data}")
    linkage = op.linkage.linkage.data
    prefix = "" if linkage == "external" else f"{linkage} "
    kind = "constant" if op.constant is not None else "global"
    align = f", align {op.alignment.value.data}" if op.alignment is not None else ""
    return f"{global_name(op.sym_name.data)} = {prefix}{kind} {type_text(t)} {init}{align}\n"


class LLVMIREmitter:
    """Emits a module of `llvm.func` ops as LLVM IR text."""

    def __init__(self) -> None:
        self._declared: dict[str, str] = {}
        self._defined: set[str] = set()

    def declare(self, name: str, inputs: list[Attribute], output: Attribute) -> None:
        if name not in self._declared:
            params = ", ".join(type_text(t) for t in inputs)
            self._declared[name] = f"declare {type_text(output)} {global_name(name)}({params})"

    def emit(self, module: ModuleOp) -> str:
        body: list[str] = []
        for op in module.ops:
            if isinstance(op, llvm.GlobalOp):
                body.append(_global_text(op))
                continue
            if not isinstance(op, llvm.FuncOp):
                raise LoweringError(f"cannot emit '{op.name}' at module level as LLVM IR")
            if op.body.blocks:
                self._defined.add(op.sym_name.data)
                body.extend(_FunctionEmitter(self, op).emit())
                body.append("")
            else:
                self.declare(
                    op.sym_name.data, list(op.function_type.inputs.data), op.function_type.output
                )
        decls = [d for n, d in self._declared.items() if n not in self._defined]
        return "\n".join([*body, *decls, ""])


def emit_llvm_ir(module: ModuleOp) -> str:
    """LLVM IR text for a module that contains only LLVM-dialect ops."""
    return LLVMIREmitter().emit(module)
