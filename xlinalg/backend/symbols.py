"""The external symbols a JIT-compiled module may use, and the check that enforces it.

A module may call LLVM intrinsics (`llvm.*`), libm functions and xlinalg's
runtime (the C allocation and memory-copy functions). Anything else that it
declares - a libc function such as `system`, an external global variable - or
any call that does not go to a known function (inline assembly, a call through a
computed pointer) is rejected with a `BackendError` before any code is compiled.

The allowed functions that exist in this process are registered with LLVM's
symbol table by address (`register_allowed_symbols`), so the JIT links exactly
these names. Code generation may add calls of its own: to allowed functions
(`llvm.exp.f32` becomes `expf`) or to compiler runtime helpers (`__powisf2`,
`__udivti3`, ...), which come from libgcc (`resolve_object_symbols`), or from
`compiler_rt` for the few an older libgcc lacks (`__truncsfbf2`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import re

import llvmlite.binding as llvm

from xlinalg.backend.compiler_rt import helper_address
from xlinalg.backend.thread_pool import pool_run_address
from xlinalg.errors import BackendError
from xlinalg.lowering.abi import POOL_RUN

_LIBM_DOUBLE: tuple[str, ...] = (
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil",
    "copysign", "cos", "cosh", "erf", "erfc", "exp", "exp2", "exp10", "expm1",
    "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod", "frexp", "hypot",
    "ilogb", "ldexp", "lgamma", "llrint", "llround", "log", "log10", "log1p",
    "log2", "logb", "lrint", "lround", "modf", "nearbyint", "nextafter", "pow",
    "remainder", "remquo", "rint", "round", "roundeven", "scalbln", "scalbn",
    "sin", "sincos", "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc",
)  # fmt: skip

LIBM_FUNCTIONS: frozenset[str] = frozenset(
    _LIBM_DOUBLE + tuple(name + "f" for name in _LIBM_DOUBLE)
)
"""libm functions, double and float versions (`exp`, `expf`, ...)."""

RUNTIME_FUNCTIONS: frozenset[str] = frozenset(
    (
        "malloc",
        "free",
        "aligned_alloc",
        "posix_memalign",
        "memcpy",
        "memset",
        "memmove",
        "sched_getaffinity",
        "sysconf",
        POOL_RUN,
    )
)
"""xlinalg's runtime: what lowered allocations and copies call, and what `scf.forall` runs
on (`xlinalg/lowering/forall_to_threads.py`): it counts the usable CPUs with
`sched_getaffinity` (`sysconf` where the libc lacks it) at each call and hands the chunks
to xlinalg's thread pool (`xl_forall_run`, `xlinalg/backend/thread_pool.py`, compiled on
first use)."""

ALLOWED_FUNCTIONS: frozenset[str] = LIBM_FUNCTIONS | RUNTIME_FUNCTIONS

_CALL_OPCODES = frozenset(("call", "invoke", "callbr"))


def is_allowed_function(name: str) -> bool:
    """Whether a module may declare and call the external function `name` (intrinsics aside)."""
    return name in ALLOWED_FUNCTIONS


@functools.cache
def _symbol_addresses() -> dict[str, int]:
    """Addresses of the allowed functions that exist in this process (libm, then libc)."""
    libraries: list[ctypes.CDLL] = []
    libm_path = ctypes.util.find_library("m")
    if libm_path is not None:
        libraries.append(ctypes.CDLL(libm_path))
    libraries.append(ctypes.CDLL(None))  # the process: libc and whatever Python linked
    addresses: dict[str, int] = {}
    for name in sorted(ALLOWED_FUNCTIONS - {POOL_RUN}):
        for lib in libraries:
            try:
                address = ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
            except AttributeError:
                continue
            if address:
                addresses[name] = address
                break
    return addresses


@functools.cache
def register_allowed_symbols() -> None:
    """Give LLVM's JIT symbol table the address of every allowed function available here."""
    for name, address in _symbol_addresses().items():
        llvm.add_symbol(name, address)


@functools.cache
def _compiler_runtime() -> ctypes.CDLL | None:
    path = ctypes.util.find_library("gcc_s")
    if path is None:
        return None
    try:
        return ctypes.CDLL(path)
    except OSError:
        return None


def _compiler_runtime_address(name: str) -> int | None:
    """libgcc's helper `name`, else ours (`compiler_rt`: helpers older libgcc lacks)."""
    lib = _compiler_runtime()
    if not name.startswith("__"):
        return None
    if lib is not None:
        try:
            address = ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
        except AttributeError:
            address = None
        if address:
            return address
    return helper_address(name)


def resolve_object_symbols(undefined: list[str]) -> list[str]:
    """Make the undefined symbols of generated machine code resolvable; return those that are not.

    Only code generation can introduce a name that is not an allowed function
    (the IR was checked by `check_external_symbols`): a compiler runtime helper
    (a `__`-prefixed libgcc function), registered here by address.
    """
    register_allowed_symbols()
    available = _symbol_addresses()
    missing: list[str] = []
    for name in undefined:
        if name in available:
            continue
        if name == POOL_RUN:
            pool_run_address()  # compiles the pool and registers its address
            continue
        address = _compiler_runtime_address(name)
        if address:
            llvm.add_symbol(name, address)
        else:
            missing.append(name)
    return missing


def _is_known_intrinsic(fn: llvm.ValueRef) -> bool:
    # LLVM prints an unrecognised `llvm.*` declaration with an "; Unknown intrinsic"
    # comment; such a name would be left to the linker and must not reach the JIT.
    return "; Unknown intrinsic" not in str(fn)


_CALL_WORD = re.compile(r"\b(?:call|invoke|callbr)\b")
# `[%x =] [tail|musttail|notail] call <flags, attrs, return type> @callee(`: nothing
# between `call` and the callee may be a register/named type (`%`), a string or `asm`
_DIRECT_CALL = re.compile(
    r'^\s*(?:%[-\w.$]+\s*=\s*)?(?:(?:tail|musttail|notail)\s+)?call\s+([^@%"]*?)@([-\w.$]+)\('
)


def _only_direct_calls(text: str, functions: set[str]) -> bool:
    """True when every line of the printed module that mentions call/invoke/callbr is a
    direct call of one of `functions` (no inline asm, no indirect call). False means
    "not sure" (anything unusual), never "bad": the caller then checks every instruction."""
    for line in text.splitlines():
        # the substring test first: a regex search of every line of a large kernel cost
        # ~6 ms; every line the regex can match contains "call" or "invoke"
        if ("call" not in line and "invoke" not in line) or not _CALL_WORD.search(line):
            continue
        match = _DIRECT_CALL.match(line)
        if (
            match is None
            or re.search(r"\basm\b", match.group(1))
            or match.group(2) not in functions
        ):
            return False
    return True


def check_external_symbols(module: llvm.ModuleRef) -> None:
    """Raise `BackendError` if `module` uses anything outside the allowlist.

    Rejected: a declared function that is not a known `llvm.*` intrinsic, a libm
    function or an xlinalg runtime function (or is allowed but not available in
    this process); an external global variable; inline or module-level
    assembly; a call whose callee is not a function of the module.
    """
    available = _symbol_addresses()
    for fn in module.functions:
        if not fn.is_declaration:
            continue
        name = fn.name
        if name.startswith("llvm."):
            if not _is_known_intrinsic(fn):
                raise BackendError(f"module declares '{name}', which is not a known LLVM intrinsic")
            continue
        if not is_allowed_function(name):
            raise BackendError(
                f"module declares external function '{name}', which is not allowed "
                "(allowed: llvm.* intrinsics, libm functions and the xlinalg runtime: "
                + ", ".join(sorted(RUNTIME_FUNCTIONS))
                + ")"
            )
        if name == POOL_RUN:
            pool_run_address()
        elif name not in available:
            raise BackendError(
                f"external function '{name}' is allowed but not available in this process"
            )
    for fn in module.functions:
        if not fn.is_declaration and is_allowed_function(fn.name):
            # LLVM lowers intrinsics (llvm.exp, llvm.pow ...) to libm calls by name: a kernel
            # named like one would be called instead, usually recursing into itself.
            raise BackendError(
                f"function '@{fn.name}' has the name of a libm/runtime function the generated "
                "code may call; rename it"
            )
    for gv in module.global_variables:
        if gv.is_declaration:
            raise BackendError(
                f"module declares external global variable '{gv.name}', which is not allowed"
            )
    text = str(module)
    for line in text.splitlines():
        if line.startswith("module asm"):
            raise BackendError("module-level assembly is not allowed")
    if _only_direct_calls(text, {fn.name for fn in module.functions}):
        return  # the instruction walk below costs ~30 µs per instruction through llvmlite
    for fn in module.functions:
        if fn.is_declaration:
            continue
        for block in fn.blocks:
            for inst in block.instructions:
                if inst.opcode not in _CALL_OPCODES:
                    continue
                callee = list(inst.operands)[-1]
                kind = callee.value_kind
                if kind == llvm.ValueKind.inline_asm:
                    raise BackendError(
                        f"function '{fn.name}' uses inline assembly, which is not allowed"
                    )
                if kind != llvm.ValueKind.function:
                    raise BackendError(
                        f"function '{fn.name}' makes an indirect call (`{str(inst).strip()}`), "
                        "which is not allowed"
                    )
