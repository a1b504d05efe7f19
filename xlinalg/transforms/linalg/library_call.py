"""`linalg.generic {library_call = "name"}` → `func.call @name(operands)` (upstream's convert-linalg-to-std).

Instead of a loop nest, a generic with a `library_call` becomes a call of the
named function with the op's operands (inputs then outputs), memrefs passed as
memref descriptors by the usual calling convention. The region is ignored: the
library function implements the op.

- If the module defines (or declares) `@name`, each operand is passed as is
  when its type is the parameter type, through a `memref.cast` when the
  parameter is a cast-compatible memref type (e.g. upstream's canonical
  `memref<4x5xf32, strided<[?, 1], offset: ?>>` or `memref<?x?xf32>`), and
  anything else is a `LoweringError` naming the operand.
- Otherwise `func.func private @name(...)` is declared with the operand types,
  as upstream does; the JIT's symbol allowlist then rejects the unknown
  external symbol with a `BackendError` (only functions of the module itself
  can be library calls here).
"""

from __future__ import annotations

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp, ShapedType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg.generic import GenericOp
from xlinalg.ir.diagnostics import lowering_error


def _cast_compatible(src: Attribute, dst: Attribute) -> bool:
    """Whether `memref.cast` can turn a value of type `src` into `dst` (shape and layout erasure)."""
    if not (isinstance(src, MemRefType) and isinstance(dst, MemRefType)):
        return False
    if src.get_element_type() != dst.get_element_type() or src.memory_space != dst.memory_space:
        return False
    s, d = src.get_shape(), dst.get_shape()
    return len(s) == len(d) and all(a < 0 or b < 0 or a == b for a, b in zip(s, d))


def _module_of(op: Operation) -> ModuleOp:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, ModuleOp):
        parent = parent.parent_op()
    if parent is None:
        raise lowering_error(op, "a library call needs the op to be inside a module")
    return parent


def _callee(module: ModuleOp, name: str) -> func.FuncOp | None:
    for inner in module.ops:
        if isinstance(inner, func.FuncOp) and inner.sym_name.data == name:
            return inner
    return None


def lower_to_library_call(op: GenericOp) -> None:
    """Replace `op` (on memrefs) by `func.call @library_call(inputs..., outputs...)`."""
    assert op.library_call is not None
    name = op.library_call.data
    if op.res:
        raise lowering_error(op, f"library call @{name} on tensors must be bufferized first")
    for value in op.get_operands_in_order():
        if isinstance(value.type, ShapedType) and not isinstance(value.type, MemRefType):
            raise lowering_error(
                op, f"library call @{name}: operand of type {value.type} is not a memref"
            )
    operands = list(op.get_operands_in_order())
    module = _module_of(op)
    callee = _callee(module, name)
    if callee is None:
        decl = func.FuncOp.external(name, [v.type for v in operands], [])
        module.body.block.add_op(decl)
        callee = decl
    params = list(callee.function_type.inputs.data)
    if callee.function_type.outputs.data:
        raise lowering_error(
            op, f"library call @{name} must not return values (it writes its outputs)"
        )
    if len(params) != len(operands):
        raise lowering_error(
            op,
            f"library call @{name} takes {len(params)} argument(s), the op has {len(operands)} operand(s)",
        )
    args: list[SSAValue] = []
    for index, (value, param) in enumerate(zip(operands, params)):
        if value.type == param:
            args.append(value)
        elif isinstance(param, MemRefType) and _cast_compatible(value.type, param):
            cast = memref.CastOp.get(value, param)
            cast.location = op.location
            Rewriter.insert_op(cast, InsertPoint.before(op))
            args.append(cast.results[0])
        else:
            raise lowering_error(
                op,
                f"library call @{name}: operand #{index} of type {value.type} does not match "
                f"parameter type {param}",
            )
    call = func.CallOp(name, args, [])
    call.location = op.location
    Rewriter.replace_op(op, call)
