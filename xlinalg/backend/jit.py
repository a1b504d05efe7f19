"""JIT compilation of a lowered module: parse, check, optimise at O3 for the host, MCJIT.

jit = JitModule(lowered)          # BackendError on bad IR or a disallowed symbol
f = jit.function("matmul")        # NativeFunction, see call.py
f(a, b, c)
"""

from __future__ import annotations

import re
import time

import llvmlite.binding as llvm

from xlinalg.backend.call import NativeFunction
from xlinalg.backend.elf import undefined_symbols
from xlinalg.backend.frame import frame_name
from xlinalg.backend.signature import kernel_param_types, kernel_return_type
from xlinalg.backend.symbols import (
    check_external_symbols,
    register_allowed_symbols,
    resolve_object_symbols,
)
from xlinalg.backend.wrappers import c_entry_name, repeat_name, wrapper_module_ir
from xlinalg.errors import BackendError
from xlinalg.host import host_target_machine, host_triple, new_jit_target_machine
from xlinalg.ir.stage_times import stage
from xlinalg.lowering.abi import FunctionSignature, LoweredModule


def _parse(ir: str, what: str) -> llvm.ModuleRef:
    try:
        module = llvm.parse_assembly(ir)
        module.verify()
    except RuntimeError as err:
        raise BackendError(f"invalid LLVM IR ({what}): {str(err).strip()}") from None
    return module


def _check_signature(module: llvm.ModuleRef, sig: FunctionSignature) -> None:
    try:
        fn = module.get_function(sig.name)
    except NameError:
        raise BackendError(f"function '{sig.name}' of the signature is not in the module") from None
    if fn.is_declaration:
        raise BackendError(f"function '{sig.name}' is only declared in the module, not defined")
    fn_type = fn.global_value_type
    if fn_type.is_function_vararg:
        raise BackendError(f"function '{sig.name}' is variadic")
    got_params = [str(t) for t in fn_type.get_function_parameters()]
    got_ret = str(fn_type.get_function_return())
    want_params = kernel_param_types(sig)
    want_ret = kernel_return_type(sig)
    if got_params != want_params or got_ret != want_ret:
        raise BackendError(
            f"function '{sig.name}' has type {got_ret} ({', '.join(got_params)}) but its signature "
            f"requires {want_ret} ({', '.join(want_params)})"
        )


def optimize_module(module: llvm.ModuleRef, tm: llvm.TargetMachine, speed_level: int = 3) -> None:
    """Run LLVM's O3 pipeline (loop vectorizer, SLP vectorizer, unrolling) on `module`
    (or the O0-O2 pipeline: `speed_level`)."""
    pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = True
    pto.loop_interleaving = True
    pb = llvm.create_pass_builder(tm, pto)
    mpm = pb.getModulePassManager()
    mpm.run(module, pb)


class JitModule:
    """A lowered module compiled to host machine code; alive as long as this object
    (or any `NativeFunction` taken from it) is."""

    lowered: LoweredModule
    compile_seconds: float
    optimized_ir: str

    def __init__(
        self,
        lowered: LoweredModule,
        *,
        speed_level: int = 3,
        timings: dict[str, float] | None = None,
    ) -> None:
        """`speed_level` < 3 optimises less (compiles faster: for correctness sweeps that
        compile many kernels; machine code generation stays at O3). `timings` receives
        the seconds of each step (see `xlinalg.ir.stage_times`)."""
        start = time.perf_counter()
        register_allowed_symbols()
        self.lowered = lowered
        with stage(timings, "llvm-parse-verify"):
            module = _parse(lowered.llvm_ir, "kernel module")
            check_external_symbols(module)
            for name, sig in lowered.functions.items():
                if name != sig.name:
                    raise BackendError(
                        f"signature registered as '{name}' is for function '{sig.name}'"
                    )
                _check_signature(module, sig)
        with stage(timings, "llvm-link-wrappers"):
            wrappers = _parse(wrapper_module_ir(lowered.functions.values()), "generated wrappers")
            try:
                module.link_in(wrappers)
            except RuntimeError as err:
                raise BackendError(
                    f"cannot link the generated wrappers: {str(err).strip()}"
                ) from None
        tm = host_target_machine()
        module.triple = host_triple()
        module.data_layout = str(tm.target_data)
        with stage(timings, "llvm-o3"):
            optimize_module(module, tm, speed_level)
        with stage(timings, "llvm-print-optimized"):
            self.optimized_ir = str(module)
        # The machine code is checked when MCJIT hands it over, before it is
        # linked: every undefined symbol must resolve (an unresolved one would
        # silently become a call to address 0).
        unresolved: list[str] = []
        inspect_errors: list[str] = []

        def on_object(_module: llvm.ModuleRef, obj: bytes) -> None:
            # Exceptions cannot cross the ctypes callback: record them instead.
            try:
                names = undefined_symbols(obj)
                if names is not None:
                    unresolved.extend(resolve_object_symbols(names))
            except Exception as err:
                inspect_errors.append(f"{type(err).__name__}: {err}")

        try:
            with stage(timings, "mcjit-codegen"):
                engine = llvm.create_mcjit_compiler(module, new_jit_target_machine())
                engine.set_object_cache(on_object, None)
                engine.finalize_object()
        except RuntimeError as err:
            raise BackendError(f"JIT compilation failed: {str(err).strip()}") from None
        if inspect_errors:
            raise BackendError(f"cannot inspect the generated machine code: {inspect_errors[0]}")
        if unresolved:
            raise BackendError(
                "the generated machine code needs symbols that cannot be resolved: "
                + ", ".join(sorted(set(unresolved)))
            )
        self._module = module
        self._engine = engine
        self._functions: dict[str, NativeFunction] = {}
        for name, sig in lowered.functions.items():
            entry = engine.get_function_address(c_entry_name(sig))
            repeat = engine.get_function_address(repeat_name(sig.name))
            frame = engine.get_function_address(frame_name(sig.name))
            if not entry or not repeat or not frame:
                raise BackendError(f"JIT did not produce code for function '{name}'")
            self._functions[name] = NativeFunction(
                sig, entry, repeat, owner=self, frame_address=frame
            )
        self.compile_seconds = time.perf_counter() - start

    @property
    def function_names(self) -> tuple[str, ...]:
        return tuple(self._functions)

    def function(self, name: str) -> NativeFunction:
        try:
            return self._functions[name]
        except KeyError:
            known = ", ".join(self._functions) or "none"
            raise BackendError(
                f"no function '{name}' in the compiled module (functions: {known})"
            ) from None

    def asm(self, name: str | None = None) -> str:
        """Host assembly of the optimised module, or only of function `name` (for debugging)."""
        module = llvm.parse_assembly(self.optimized_ir)
        text = host_target_machine().emit_assembly(module)
        if name is None:
            return text
        # A function's code runs from its label to its `.size` directive.
        label = re.escape(name)
        match = re.search(
            rf"^\"?{label}\"?:.*?^\s*\.size\s+\"?{label}\"?,", text, re.DOTALL | re.MULTILINE
        )
        if match is None:
            raise BackendError(f"no function '{name}' in the assembly")
        return match.group(0)
