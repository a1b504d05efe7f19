"""LLVM IR that xlinalg adds next to every lowered function before compiling.

For a kernel `@f` of a `FunctionSignature`:

- `void @__xlinalg_repeat_f(<C params>, i64 %n)` calls `@f` n times, so short
  kernels are timed without Python's per-call overhead. The kernel is called
  through a pointer read with a volatile load on every iteration: LLVM then
  knows nothing about the callee, so it can neither inline it, hoist it out of
  the loop, merge two calls nor delete one (even for a kernel that only reads
  memory and returns a scalar).
- `void @__xlinalg_frame_f(ptr %frame)` calls `@f` on the parameters stored in a call
  frame (see `frame.py`): one ctypes parameter per call instead of one per word.
- `@__xlinalg_abi_f(<C params>)` when `@f` has an f16 scalar argument or result:
  it takes and returns f16 values as their i16 bit patterns, which ctypes can pass.

"C params" are the kernel's parameters with every f16 scalar replaced by i16
(see `signature.py`). The wrappers are a separate module linked into the
kernel's module after the kernel passed the external-symbol check.
"""

from __future__ import annotations

from collections.abc import Iterable

from xlinalg.backend.frame import FRAME_ATTRIBUTES, frame_wrapper_ir
from xlinalg.backend.signature import (
    c_param_types,
    c_return_type,
    is_f16,
    kernel_arg_types,
    kernel_param_types,
    kernel_return_type,
    llvm_global,
    needs_c_adapter,
)
from xlinalg.lowering.abi import FunctionSignature

REPEAT_PREFIX = "__xlinalg_repeat_"
ADAPTER_PREFIX = "__xlinalg_abi_"
_SLOT_PREFIX = "__xlinalg_slot_"


def repeat_name(kernel: str) -> str:
    return REPEAT_PREFIX + kernel


def adapter_name(kernel: str) -> str:
    return ADAPTER_PREFIX + kernel


def c_entry_name(sig: FunctionSignature) -> str:
    """The symbol ctypes calls for one call of the kernel."""
    return adapter_name(sig.name) if needs_c_adapter(sig) else sig.name


def _params(types: Iterable[str], prefix: str = "%a") -> tuple[list[str], list[str]]:
    names = [f"{prefix}{i}" for i, _ in enumerate(types)]
    return names, [f"{t} {n}" for t, n in zip(types, names)]


def _convert_args(sig: FunctionSignature, c_names: list[str], lines: list[str]) -> list[str]:
    """Emit the i16 -> half bitcasts; return the kernel's typed arguments."""
    typed: list[str] = []
    pos = 0
    for k, spec in enumerate(sig.native_args):
        types = kernel_arg_types(spec)
        if is_f16(spec):
            half = types[0]  # half or bfloat
            lines.append(f"  %h{k} = bitcast i16 {c_names[pos]} to {half}")
            typed.append(f"{half} %h{k}")
        else:
            typed.extend(f"{t} {n}" for t, n in zip(types, c_names[pos : pos + len(types)]))
        pos += len(types)
    # The descriptor out-pointers of memref results pass through unchanged.
    typed.extend(f"ptr {n}" for n in c_names[pos:])
    return typed


def _declaration(sig: FunctionSignature) -> str:
    params = ", ".join(kernel_param_types(sig))
    return f"declare {kernel_return_type(sig)} {llvm_global(sig.name)}({params})"


def _adapter(sig: FunctionSignature) -> str:
    c_types = c_param_types(sig)
    names, params = _params(c_types)
    lines = [
        f"define {c_return_type(sig)} {llvm_global(adapter_name(sig.name))}({', '.join(params)}) {{",
        "entry:",
    ]
    args = _convert_args(sig, names, lines)
    ret = kernel_return_type(sig)
    call = f"call {ret} {llvm_global(sig.name)}({', '.join(args)})"
    if ret == "void":
        lines += [f"  {call}", "  ret void"]
    else:
        lines.append(f"  %r = {call}")
        if is_f16(sig.result):
            lines += [f"  %rb = bitcast {ret} %r to i16", "  ret i16 %rb"]
        else:
            lines.append(f"  ret {ret} %r")
    lines.append("}")
    return "\n".join(lines)


def _repeat(sig: FunctionSignature) -> str:
    c_types = c_param_types(sig)
    names, params = _params(c_types)
    slot = llvm_global(_SLOT_PREFIX + sig.name)
    lines = [
        f"{slot} = internal global ptr {llvm_global(sig.name)}",
        f"define void {llvm_global(repeat_name(sig.name))}({', '.join([*params, 'i64 %n'])}) {{",
        "entry:",
    ]
    args = _convert_args(sig, names, lines)
    ret = kernel_return_type(sig)
    lines += [
        "  %any = icmp sgt i64 %n, 0",
        "  br i1 %any, label %loop, label %exit",
        "loop:",
        "  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]",
        f"  %fp = load volatile ptr, ptr {slot}, align 8",
        f"  call {ret} %fp({', '.join(args)})",
        # Memref results belong to the caller: free each one (its allocated pointer).
        *(
            line
            for k, name in enumerate(names[len(names) - len(sig.memref_results) :])
            for line in (
                f"  %res{k} = load ptr, ptr {name}, align 8",
                f"  call void @free(ptr %res{k})",
            )
        ),
        "  %i.next = add nuw nsw i64 %i, 1",
        "  %done = icmp eq i64 %i.next, %n",
        "  br i1 %done, label %exit, label %loop",
        "exit:",
        "  ret void",
        "}",
    ]
    return "\n".join(lines)


def wrapper_module_ir(signatures: Iterable[FunctionSignature]) -> str:
    """The LLVM IR text of the wrapper module for these kernels."""
    parts: list[str] = []
    signatures = list(signatures)
    if any(sig.memref_results for sig in signatures):
        parts.append("declare void @free(ptr)")
    for sig in signatures:
        parts.append(_declaration(sig))
        if needs_c_adapter(sig):
            parts.append(_adapter(sig))
        parts.append(_repeat(sig))
        parts.append(frame_wrapper_ir(sig))
    parts.append(FRAME_ATTRIBUTES)
    return "\n\n".join(parts) + "\n"
