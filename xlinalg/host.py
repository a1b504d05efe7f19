"""The host target: CPU name, features and an O3 target machine from llvmlite.

Everything here is computed once per process. `host_target_machine()` is the
shared machine used to optimise modules and print assembly; an MCJIT engine
takes ownership of the machine it is given, so every engine gets its own from
`new_jit_target_machine()` (same CPU, features and opt level).
"""

from __future__ import annotations

import functools
import os
import platform
from typing import Any

import llvmlite
import llvmlite.binding as llvm

OPT_LEVEL = 3

# LLVM command-line options set once per process (they apply to every pipeline run).
#
# `-unroll-max-iteration-count-to-analyze=0`: O3's loop unrollers simulate, instruction
# by instruction, up to 10 iterations of every loop with a constant trip count whose
# body is too large to unroll on its size alone, to see whether constant folding would
# make full unrolling pay. Our loop bodies are register blocks the schedule already
# unrolled (hundreds of vector instructions), so the simulation is costly and decides
# nothing useful: over the 8 profile_compile cases, the 5 bench_conv layers and 2 random
# candidates of each of the 15 search_spaces/ templates it changed the machine code of
# one kernel only (conv 7x7x512 stored knobs: the loop over the 9 rows of its 9x9x64
# input-padding copy stays a loop, each row still unrolled; 1269 -> 774 asm lines; same
# kernel time, min of 7 interleaved rounds 2.050 -> 2.042 ms at load ~7), and there it
# cost ~100 ms of the ~230 ms of O3 + code generation. Loops small enough to unroll on
# their size are still fully unrolled.
LLVM_OPTIONS = ("-unroll-max-iteration-count-to-analyze=0",)


@functools.cache
def _initialize() -> None:
    # llvmlite >= 0.45 initialises the LLVM core itself; the native target,
    # its assembly printer and its assembly parser (for inline asm) are ours to set up.
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()
    for option in LLVM_OPTIONS:
        llvm.set_option("", option)


@functools.cache
def host_triple() -> str:
    _initialize()
    return llvm.get_process_triple()


@functools.cache
def host_cpu_name() -> str:
    _initialize()
    return llvm.get_host_cpu_name()


@functools.cache
def host_cpu_features() -> str:
    """The LLVM feature string of the host (`+avx2,+fma,-amx-tile,...`)."""
    _initialize()
    return llvm.get_host_cpu_features().flatten()


@functools.cache
def host_enabled_features() -> frozenset[str]:
    """The names of the features the host has (without the leading `+`)."""
    return frozenset(f[1:] for f in host_cpu_features().split(",") if f.startswith("+"))


def host_has_feature(name: str) -> bool:
    return name in host_enabled_features()


def _create_target_machine(*, jit: bool) -> llvm.TargetMachine:
    _initialize()
    target = llvm.Target.from_triple(host_triple())
    return target.create_target_machine(
        cpu=host_cpu_name(),
        features=host_cpu_features(),
        opt=OPT_LEVEL,
        reloc="default",
        codemodel="jitdefault",
        jit=jit,
    )


@functools.cache
def host_target_machine() -> llvm.TargetMachine:
    """The process-wide O3 target machine for the host (for optimisation and asm)."""
    return _create_target_machine(jit=True)


def new_jit_target_machine() -> llvm.TargetMachine:
    """A fresh host target machine, to be handed to (and owned by) one MCJIT engine."""
    return _create_target_machine(jit=True)


def _cpu_model_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@functools.cache
def _host_info() -> tuple[tuple[str, Any], ...]:
    major, minor, patch = llvm.llvm_version_info
    info: dict[str, Any] = {
        "cpu_model": _cpu_model_name(),
        "llvm_cpu": host_cpu_name(),
        "llvm_features": ",".join(sorted(host_enabled_features())),
        "triple": host_triple(),
        "cores": os.cpu_count() or 1,
        "usable_cores": _usable_cores(),
        "llvmlite_version": llvmlite.__version__,
        "llvm_version": f"{major}.{minor}.{patch}",
        "python_version": platform.python_version(),
        "machine": platform.machine(),
    }
    return tuple(info.items())


def host_info() -> dict[str, Any]:
    """What the tuner records with every trial: CPU, its LLVM name and features, cores, versions."""
    return dict(_host_info())
