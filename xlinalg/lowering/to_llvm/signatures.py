"""Native signatures (`xlinalg.lowering.abi.FunctionSignature`) of a module's public functions."""

from __future__ import annotations

from dataclasses import replace

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
)
from xdsl.ir import Attribute

from xlinalg.errors import LoweringError
from xlinalg.ir.numpy_dtypes import numpy_dtype
from xlinalg.lowering.abi import ArgSpec, FunctionSignature, MemRefArg, ScalarArg
from xlinalg.lowering.to_llvm.types import memref_shape, memref_strides
from xlinalg.lowering.to_llvm.written_args import written_memref_args
from xlinalg.transforms.bufferization.one_shot import OWNED_RESULTS_ATTR, RESULTS_FROM_ATTR


def arg_spec(t: Attribute) -> ArgSpec:
    if isinstance(t, MemRefType):
        strides = memref_strides(t) if isinstance(t.layout, StridedLayoutAttr) else None
        return MemRefArg(numpy_dtype(t.element_type, LoweringError), memref_shape(t), strides)
    return ScalarArg(numpy_dtype(t, LoweringError))


def function_signature(f: func.FuncOp) -> FunctionSignature:
    ftype = f.function_type
    inputs = list(ftype.inputs.data)
    results = tuple(arg_spec(t) for t in ftype.outputs.data)
    buffer_results: tuple[int, ...] = ()
    origin = f.attributes.get(RESULTS_FROM_ATTR)
    if isinstance(origin, DenseArrayBase):
        # Results written into caller-allocated trailing arguments (see bufferization).
        where = [int(v) for v in origin.get_values()]
        buffer_results = tuple(i for i, w in enumerate(where) if w >= 0)
        returned = results
        results = tuple(arg_spec(inputs[w]) if w >= 0 else returned[-w - 1] for w in where)
        inputs = inputs[: len(inputs) - len(buffer_results)]
    scalars = [r for r in results if isinstance(r, ScalarArg)]
    if len(scalars) > 1:
        raise LoweringError(
            f"@{f.sym_name.data}: at most one result can be returned natively besides memrefs"
        )
    if len(results) > len(scalars) + len(buffer_results) and OWNED_RESULTS_ATTR not in f.attributes:
        raise LoweringError(
            f"@{f.sym_name.data}: a memref result cannot be returned natively (the caller would "
            "not own it); return a tensor, which bufferization returns in a new buffer"
        )
    # Memref results go through descriptor out-pointers (see `lowering/abi.py`).
    return FunctionSignature(
        name=f.sym_name.data,
        args=tuple(
            replace(spec, written=w) if isinstance(spec, MemRefArg) else spec
            for spec, w in zip((arg_spec(t) for t in inputs), written_memref_args(f))
        ),
        result=scalars[0] if scalars else None,
        results=results if len(results) > len(scalars) else (),
        buffer_results=buffer_results,
    )


def public_signatures(module: ModuleOp) -> dict[str, FunctionSignature]:
    """Signatures of every public `func.func` with a body, from its (pre-lowering) type."""
    out: dict[str, FunctionSignature] = {}
    for op in module.ops:
        if not isinstance(op, func.FuncOp) or not op.body.blocks:
            continue
        if op.sym_visibility is not None and op.sym_visibility.data == "private":
            continue
        out[op.sym_name.data] = function_signature(op)
    return out
