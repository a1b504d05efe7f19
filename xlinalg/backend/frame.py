"""The call frame: one kernel call's parameters in one C struct, for cheap calls from Python.

ctypes converts every parameter of a call on its own (~0.1 us each: a 3-argument 2-D
matmul has 21), so `NativeFunction.__call__` does not call the kernel `@f` directly.
It fills a `Frame` (a `ctypes.Structure`, laid out by ctypes as the C compiler would)
and calls

    void @__xlinalg_frame_f(ptr %frame)

which loads the parameters from the frame and calls `@f` (never inlined into it). A
frame holds, per native argument (see `abi.py`), a memref's data pointer (passed as both
the allocated and the aligned pointer, with offset 0), sizes and strides, or a scalar
(an f16/bf16 one as its bit pattern); then the descriptor storage of every memref result
returned through an out-pointer, and the scalar result, which the wrapper stores. Sizes
and strides only change with the argument signature, so a frame filled once serves
every call with arrays of that signature: only the data pointers and the scalars are
written per call.
"""

from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass
from typing import Any

from xlinalg.backend.signature import (
    ctypes_scalar_type,
    kernel_arg_types,
    kernel_return_type,
    llvm_global,
    memref_param_count,
)
from xlinalg.lowering.abi import FunctionSignature, MemRefArg

FRAME_PREFIX = "__xlinalg_frame_"


def frame_name(kernel: str) -> str:
    return FRAME_PREFIX + kernel


@dataclass(frozen=True)
class FrameLayout:
    """The `Frame` struct of one signature and the field names of its parts."""

    frame: type[ctypes.Structure]
    # Per native argument: a memref's fields (data, sizes..., strides...) or a scalar's one field.
    args: tuple[tuple[str, ...], ...]
    results: tuple[str, ...]  # the descriptor storage of each memref result (out-pointer)
    ret: str | None  # the scalar result

    def offset(self, field: str) -> int:
        return int(getattr(self.frame, field).offset)


@functools.lru_cache(maxsize=256)
def frame_layout(sig: FunctionSignature) -> FrameLayout:
    """The frame of `sig`, built once per signature: the wrapper's IR and the kernel's
    `NativeFunction` (every compile of that signature, e.g. a tuning study's trials) share
    one `Frame` class (ctypes lays out a structure class at ~40 us)."""
    fields: list[tuple[str, Any]] = []
    args: list[tuple[str, ...]] = []
    for k, spec in enumerate(sig.native_args):
        if isinstance(spec, MemRefArg):
            rank = len(spec.shape)
            names = (f"p{k}", *(f"s{k}_{d}" for d in range(2 * rank)))
            fields += [(names[0], ctypes.c_void_p), *((n, ctypes.c_int64) for n in names[1:])]
        else:
            names = (f"v{k}",)
            fields.append((names[0], ctypes_scalar_type(spec.dtype)))
        args.append(names)
    results = tuple(f"r{k}" for k, _ in enumerate(sig.memref_results))
    fields += [
        (name, ctypes.c_int64 * memref_param_count(len(spec.shape)))
        for name, spec in zip(results, sig.memref_results)
    ]
    ret = None if sig.result is None else "ret"
    if sig.result is not None:
        fields.append(("ret", ctypes_scalar_type(sig.result.dtype)))
    # A frame of a function without parameters still needs an address.
    frame = type(
        f"Frame_{sig.name}", (ctypes.Structure,), {"_fields_": fields or [("pad", ctypes.c_int64)]}
    )
    return FrameLayout(frame, tuple(args), results, ret)


def frame_wrapper_ir(sig: FunctionSignature) -> str:
    """`@__xlinalg_frame_f(ptr)`: loads `@f`'s parameters from a frame, calls it, stores its result."""
    layout = frame_layout(sig)
    lines = [f"define void {llvm_global(frame_name(sig.name))}(ptr %frame) {{", "entry:"]
    count = 0

    def load(llvm_type: str, field: str) -> str:
        nonlocal count
        count += 1
        lines.append(f"  %a{count} = getelementptr i8, ptr %frame, i64 {layout.offset(field)}")
        if llvm_type == "i1":  # a C bool byte
            lines.append(f"  %b{count} = load i8, ptr %a{count}")
            lines.append(f"  %v{count} = trunc i8 %b{count} to i1")
        else:
            lines.append(f"  %v{count} = load {llvm_type}, ptr %a{count}")
        return f"{llvm_type} %v{count}"

    params: list[str] = []
    for spec, names in zip(sig.native_args, layout.args):
        if isinstance(spec, MemRefArg):
            data = load("ptr", names[0])
            params += [data, data, "i64 0", *(load("i64", n) for n in names[1:])]
        else:
            params.append(load(kernel_arg_types(spec)[0], names[0]))
    for k, name in enumerate(layout.results):
        lines.append(f"  %r{k} = getelementptr i8, ptr %frame, i64 {layout.offset(name)}")
        params.append(f"ptr %r{k}")
    ret = kernel_return_type(sig)
    # noinline: the kernel stays one copy (compile time), called through this thin wrapper.
    call = f"call {ret} {llvm_global(sig.name)}({', '.join(params)}) #0"
    if layout.ret is None:
        lines.append(f"  {call}")
    else:
        lines += [
            f"  %ret = {call}",
            f"  %ra = getelementptr i8, ptr %frame, i64 {layout.offset(layout.ret)}",
            # an i1 result is stored as a C bool byte (0 or 1)
            *(
                ["  %rz = zext i1 %ret to i8", "  store i8 %rz, ptr %ra"]
                if ret == "i1"
                else [f"  store {ret} %ret, ptr %ra"]
            ),
        ]
    lines += ["  ret void", "}"]
    return "\n".join(lines)


FRAME_ATTRIBUTES = "attributes #0 = { noinline }"
