"""`func` → `llvm`: signatures expanded per the native ABI (`xlinalg/lowering/abi.py`).

A memref argument of rank r becomes `ptr allocated, ptr aligned, i64 offset,
i64 size_0..size_{r-1}, i64 stride_0..stride_{r-1}`; the entry block rebuilds
the descriptor struct from them. Calls expand memref operands the same way.
Memref results become trailing `ptr` parameters to which `func.return` writes
the descriptor (3 + 2r words); a call passes stack slots for them and reads the
descriptors back.
Public functions with a body get external linkage, private ones internal;
bodiless functions become declarations. Public functions that nothing in the
module calls get `noalias` on the aligned pointer of every memref argument:
their only caller is the NumPy wrapper, which rejects overlapping arguments
when one is written (`backend/call.py`, `written_args.py`); LLVM's `noalias`
only constrains memory that is modified, so read-only overlap stays allowed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, MemRefType, ModuleOp, UnitAttr, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xlinalg.errors import LoweringError
from xlinalg.ir.passes import register_pass
from xlinalg.lowering.to_llvm.builder import Builder, lowering, replace_op
from xlinalg.lowering.to_llvm.descriptor import MemRefDescriptor, build_descriptor
from xlinalg.lowering.to_llvm.dialect_pass import DialectConversionPass
from xlinalg.lowering.to_llvm.types import convert_type, expanded_arg_types, llvm_function_type


def _expand_entry_block(block: Block) -> None:
    """Replace the entry block's arguments by their ABI expansion."""
    old_args = list(block.args)
    b = Builder.at_start(block)
    for old in old_args:
        t = old.type
        new = [block.insert_arg(nt, len(block.args)) for nt in expanded_arg_types(t)]
        if isinstance(t, MemRefType):
            r = t.get_num_dims()
            desc = build_descriptor(b, t, new[0], new[1], new[2], new[3 : 3 + r], new[3 + r :])
            replacement = b.from_llvm(desc.value, t)
        else:
            replacement = b.from_llvm(new[0], t)
        old.replace_all_uses_with(replacement)
        block.erase_arg(old)


def _expand_call_operands(b: Builder, operands: list[SSAValue]) -> list[SSAValue]:
    out: list[SSAValue] = []
    for v in operands:
        if isinstance(v.type, MemRefType):
            d = MemRefDescriptor(b.to_llvm(v), v.type)
            out += [d.allocated_ptr(b), d.aligned_ptr(b), d.dynamic_offset()]
            out += [d.dynamic_size(i) for i in range(d.rank)]
            out += [d.dynamic_stride(i) for i in range(d.rank)]
        else:
            out.append(b.to_llvm(v))
    return out


NOALIAS = "llvm.noalias"


def _noalias_arg_attrs(inputs: Sequence[Attribute], count: int) -> ArrayAttr[DictionaryAttr]:
    """`llvm.noalias` on the aligned pointer (the one the code addresses through) of every
    memref argument; `count` parameters in all (trailing out-pointers get none)."""
    attrs = [DictionaryAttr({}) for _ in range(count)]
    position = 0
    for t in inputs:
        if isinstance(t, MemRefType):
            attrs[position + 1] = DictionaryAttr({NOALIAS: UnitAttr()})
        position += len(expanded_arg_types(t))
    return ArrayAttr(attrs)


def lower_func(op: func.FuncOp, noalias: bool = False) -> None:
    """Lower one function; `noalias` marks its memref pointers (see `written_args.py`)."""
    ftype = op.function_type
    outputs = ftype.outputs.data
    # Memref results become trailing descriptor out-pointers (see `lowering/abi.py`).
    pointers = [llvm.LLVMPointerType() for t in outputs if isinstance(t, MemRefType)]
    scalars = [t for t in outputs if not isinstance(t, MemRefType)]
    ltype = llvm_function_type(ftype.inputs.data, scalars)
    if pointers:
        ltype = llvm.LLVMFunctionType([*ltype.inputs.data, *pointers], ltype.output)
    declaration = not op.body.blocks
    private = op.sym_visibility is not None and op.sym_visibility.data == "private"
    linkage = "external" if declaration or not private else "internal"
    region = Region()
    if not declaration:
        entry = op.body.blocks[0]
        _expand_entry_block(entry)
        for pointer in pointers:
            entry.insert_arg(pointer, len(entry.args))
        op.body.move_blocks(region)
    new = llvm.FuncOp(op.sym_name.data, ltype, linkage=llvm.LinkageAttr(linkage), body=region)
    if noalias and not declaration:
        new.arg_attrs = _noalias_arg_attrs(ftype.inputs.data, len(ltype.inputs.data))
    block = op.parent_block()
    assert block is not None
    block.insert_op_before(new, op)
    op.detach()
    op.erase()


def _store_descriptor(b: Builder, value: SSAValue, pointer: SSAValue) -> None:
    """Write the descriptor of memref `value` as 3 + 2r eight-byte words at `pointer`."""
    assert isinstance(value.type, MemRefType)
    d = MemRefDescriptor(b.to_llvm(value), value.type)
    words = [d.allocated_ptr(b), d.aligned_ptr(b), d.dynamic_offset()]
    words += [d.dynamic_size(i) for i in range(d.rank)]
    words += [d.dynamic_stride(i) for i in range(d.rank)]
    for index, word in enumerate(words):
        address = b.gep(pointer, b.int_const(index), i64) if index else pointer
        b.store(word, address, 8)


def lower_return(op: Operation) -> None:
    b = Builder.before_op(op)
    memrefs = [v for v in op.operands if isinstance(v.type, MemRefType)]
    scalars = [v for v in op.operands if not isinstance(v.type, MemRefType)]
    if len(scalars) > 1:
        raise LoweringError("cannot lower 'func.return' with more than one scalar value")
    if memrefs:
        fn = op.parent_op()
        while fn is not None and not isinstance(fn, llvm.FuncOp | func.FuncOp):
            fn = fn.parent_op()
        assert isinstance(fn, llvm.FuncOp), "functions are lowered before their returns"
        entry = fn.body.blocks[0]
        pointers = entry.args[len(entry.args) - len(memrefs) :]
        for value, pointer in zip(memrefs, pointers, strict=True):
            _store_descriptor(b, value, pointer)
    value = b.to_llvm(scalars[0]) if scalars else None
    b.insert(llvm.ReturnOp.create(operands=[] if value is None else [value]))
    replace_op(op, [])


def _descriptor_slot(op: Operation, words: int) -> SSAValue:
    """Stack room for one returned descriptor (`words` i64), allocated in the entry block of
    the function holding `op` (once per call site, not once per loop iteration)."""
    fn = op.parent_op()
    while fn is not None and not isinstance(fn, llvm.FuncOp):
        fn = fn.parent_op()
    assert isinstance(fn, llvm.FuncOp), "functions are lowered before their calls"
    entry = Builder.at_start(fn.body.blocks[0])
    return entry.add(llvm.AllocaOp(entry.int_const(words), i64, alignment=8))


def _load_descriptor(b: Builder, type: MemRefType, slot: SSAValue) -> SSAValue:
    """The memref of `type` whose descriptor the callee wrote at `slot` (`_store_descriptor`)."""
    r = type.get_num_dims()
    words = [
        b.load(
            b.gep(slot, b.int_const(i), i64) if i else slot,
            llvm.LLVMPointerType() if i < 2 else i64,
            8,
        )
        for i in range(3 + 2 * r)
    ]
    desc = build_descriptor(b, type, words[0], words[1], words[2], words[3 : 3 + r], words[3 + r :])
    return b.from_llvm(desc.value, type)


def lower_call(op: func.CallOp) -> None:
    """A call; the callee's memref results come back through trailing out-pointers, as its
    signature says (`lower_func`): the caller passes stack slots and rebuilds the
    descriptors from them. (MLIR's func-to-llvm returns them in a struct by value; our
    functions take out-pointers so that the NumPy wrapper can call them too, and a call
    must follow the callee's convention.)"""
    b = Builder.before_op(op)
    scalars = [r for r in op.results if not isinstance(r.type, MemRefType)]
    if len(scalars) > 1:
        raise LoweringError("cannot lower 'func.call' with more than one scalar result")
    memrefs = [(r, r.type) for r in op.results if isinstance(r.type, MemRefType)]
    slots = [_descriptor_slot(op, 3 + 2 * t.get_num_dims()) for _, t in memrefs]
    args = _expand_call_operands(b, list(op.operands)) + slots
    ret = convert_type(scalars[0].type) if scalars else None
    call = b.call(op.callee.string_value(), args, ret)
    values: dict[SSAValue, SSAValue] = {}
    for (result, result_type), slot in zip(memrefs, slots, strict=True):
        values[result] = _load_descriptor(b, result_type, slot)
    for result, native in zip(scalars, call.results, strict=True):
        values[result] = b.from_llvm(native, result.type)
    replace_op(op, [values[r] for r in op.results])


def _entry_point(f: func.FuncOp, called: set[str]) -> bool:
    """A public function only Python calls: the call wrapper checks its arguments for
    overlap (`backend/call.py`), so its memref pointers are `noalias`."""
    private = f.sym_visibility is not None and f.sym_visibility.data == "private"
    return not private and f.sym_name.data not in called


@register_pass
@dataclass(frozen=True)
class ConvertFuncToLLVMPass(DialectConversionPass):
    """Lower `func.func`, `func.return` and `func.call` to the LLVM dialect."""

    name = "xl-convert-func-to-llvm"
    dialect = "func"

    # `XLINALG_NOALIAS=0` switches it off (to measure its effect, e.g. with the tuner,
    # whose trials run in fresh processes; see scripts/bench_noalias.py).
    noalias: bool = field(default_factory=lambda: os.environ.get("XLINALG_NOALIAS", "1") != "0")

    def convert_ops(self, module: ModuleOp, ops: Sequence[Operation]) -> None:
        # Functions first: a return of memref results stores into the function's
        # trailing out-pointer parameters.
        called = {c.callee.string_value() for c in ops if isinstance(c, func.CallOp)}
        for inner in list(module.ops):
            if isinstance(inner, func.FuncOp):
                with lowering(inner):
                    lower_func(inner, noalias=self.noalias and _entry_point(inner, called))
        for inner in ops:
            if isinstance(inner, func.ReturnOp):
                with lowering(inner):
                    lower_return(inner)
            elif isinstance(inner, func.CallOp):
                with lowering(inner):
                    lower_call(inner)
