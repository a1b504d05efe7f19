"""`func` → `llvm`: signatures expanded per the native ABI (`xlinalg/backend/abi.py`).

A memref argument of rank r becomes `ptr allocated, ptr aligned, i64 offset,
i64 size_0..size_{r-1}, i64 stride_0..stride_{r-1}`; the entry block rebuilds
the descriptor struct from them. Calls expand memref operands the same way.
Public functions with a body get external linkage, private ones internal;
bodiless functions become declarations.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from xlinalg.errors import LoweringError
from xlinalg.lowering.to_llvm.builder import Builder, lowering, replace_op
from xlinalg.lowering.to_llvm.descriptor import MemRefDescriptor, build_descriptor
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


def lower_func(op: func.FuncOp) -> None:
    ftype = op.function_type
    ltype = llvm_function_type(ftype.inputs.data, ftype.outputs.data)
    declaration = not op.body.blocks
    private = op.sym_visibility is not None and op.sym_visibility.data == "private"
    linkage = "external" if declaration or not private else "internal"
    region = Region()
    if not declaration:
        _expand_entry_block(op.body.blocks[0])
        op.body.move_blocks(region)
    new = llvm.FuncOp(op.sym_name.data, ltype, linkage=llvm.LinkageAttr(linkage), body=region)
    block = op.parent_block()
    assert block is not None
    block.insert_op_before(new, op)
    op.detach()
    op.erase()


def lower_return(op: Operation) -> None:
    b = Builder.before_op(op)
    if len(op.operands) > 1:
        raise LoweringError("cannot lower 'func.return' with more than one value")
    value = b.to_llvm(op.operands[0]) if op.operands else None
    b.insert(llvm.ReturnOp(value))
    replace_op(op, [])


def lower_call(op: func.CallOp) -> None:
    b = Builder.before_op(op)
    if len(op.results) > 1:
        raise LoweringError("cannot lower 'func.call' with more than one result")
    args = _expand_call_operands(b, list(op.operands))
    ret = convert_type(op.results[0].type) if op.results else None
    call = b.insert(llvm.CallOp(op.callee.string_value(), *args, return_type=ret))
    replace_op(op, [b.from_llvm(r, o.type) for r, o in zip(call.results, op.results, strict=True)])


@dataclass(frozen=True)
class ConvertFuncToLLVMPass(ModulePass):
    """Lower `func.func`, `func.return` and `func.call` to the LLVM dialect."""

    name = "xl-convert-func-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in list(op.walk()):
            if isinstance(inner, func.ReturnOp):
                with lowering(inner):
                    lower_return(inner)
            elif isinstance(inner, func.CallOp):
                with lowering(inner):
                    lower_call(inner)
        for inner in list(op.ops):
            if isinstance(inner, func.FuncOp):
                with lowering(inner):
                    lower_func(inner)
