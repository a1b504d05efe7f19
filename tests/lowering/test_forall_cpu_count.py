"""How a parallel kernel counts its usable CPUs (`xlinalg/lowering/forall_to_threads.py`):
`sched_getaffinity` where the libc has it, `sysconf(_SC_NPROCESSORS_ONLN)` elsewhere (macOS,
FreeBSD; forced here with `XLINALG_CPU_COUNT=sysconf`) against NumPy, and the code for other
targets: no `sched_getaffinity` in a darwin or FreeBSD kernel."""

from __future__ import annotations

import os

import llvmlite.binding as llvm
import numpy as np
import pytest

import xlinalg
from xlinalg.backend.elf import undefined_symbols
from xlinalg.dialects.context import make_context
from xlinalg.errors import LoweringError
from xlinalg.host import host_triple
from xlinalg.lowering.forall_to_threads import (
    CPU_COUNT_ENV,
    ConvertForallToThreadsPass,
    CpuCount,
    cpu_count_for,
    target_os,
)
from xlinalg.lowering.pipeline import check_cf_level, lower_to_scf
from xlinalg.lowering.scf_to_cf import ConvertScfToCfPass
from xlinalg.lowering.to_llvm import convert_to_llvm_ir

from support.threads import ROWS, SPIN, TWO_CPUS, parallel_matmul, worker_parts_of_spin_calls

DARWIN = "arm64-apple-macosx11.0.0"
FREEBSD = "x86_64-unknown-freebsd13"


def test_counter_per_target(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CPU_COUNT_ENV, raising=False)
    assert [target_os(t) for t in (DARWIN, FREEBSD, "x86_64-apple-darwin23.1.0", "x86_64-linux-gnu")] == [
        "macosx", "freebsd", "darwin", "linux",
    ]  # fmt: skip
    assert cpu_count_for("aarch64-unknown-linux-gnu") == CpuCount("sched_getaffinity")
    assert (
        cpu_count_for(DARWIN)
        == cpu_count_for("x86_64-apple-darwin23.1.0")
        == CpuCount("sysconf", 58)
    )
    assert cpu_count_for(FREEBSD) == CpuCount("sysconf", 58)
    assert cpu_count_for("x86_64-unknown-netbsd9") == CpuCount(None)  # the compile-time count
    host = "sched_getaffinity" if hasattr(os, "sched_getaffinity") else "sysconf"
    assert cpu_count_for().function == host
    monkeypatch.setenv(CPU_COUNT_ENV, "sysconf")
    assert cpu_count_for("aarch64-unknown-linux-gnu") == CpuCount("sysconf", 84)
    monkeypatch.setenv(CPU_COUNT_ENV, "cpuid")
    with pytest.raises(
        LoweringError, match=r"XLINALG_CPU_COUNT='cpuid': the CPU count is one of affinity, sysconf"
    ):
        cpu_count_for()


@pytest.mark.parametrize("dim", [0, 1])
def test_sysconf_count_matches_numpy(monkeypatch: pytest.MonkeyPatch, dim: int) -> None:
    monkeypatch.setenv(CPU_COUNT_ENV, "sysconf")
    kernel = parallel_matmul(70, 90, 50, 2, dim)
    ir = kernel.lowered.llvm_ir
    assert "sched_getaffinity" not in ir
    assert f"call i64 @sysconf(i32 {os.sysconf_names['SC_NPROCESSORS_ONLN']})" in ir
    for seed in range(3):
        a, b, c = kernel.make_inputs(seed=seed)
        kernel(a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


@TWO_CPUS
def test_sysconf_count_gives_two_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CPU_COUNT_ENV, "sysconf")
    kernel = xlinalg.compile(SPIN)
    assert "@sysconf(" in kernel.lowered.llvm_ir
    parts = worker_parts_of_spin_calls(kernel)
    assert max(parts) >= 1, parts  # a part ran on a worker: the forall had two parts, not one


def _kernel_ir(triple: str) -> str:
    """ROWS lowered to LLVM IR with the CPU count of `triple`."""
    module = xlinalg.parse(ROWS.format(n=64))
    lower_to_scf(module)
    ctx = make_context()
    ConvertForallToThreadsPass(triple=triple).apply(ctx, module)
    ConvertScfToCfPass().apply(ctx, module)
    check_cf_level(module)
    return convert_to_llvm_ir(module).llvm_ir


def _machine_code(triple: str, ir: str) -> tuple[llvm.TargetMachine, llvm.ModuleRef]:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    machine = llvm.Target.from_triple(triple).create_target_machine(codemodel="default")
    module = llvm.parse_assembly(ir)
    module.triple = triple
    module.data_layout = str(machine.target_data)
    module.verify()
    return machine, module


def test_darwin_and_freebsd_kernels_call_sysconf(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CPU_COUNT_ENV, raising=False)
    machine, module = _machine_code(DARWIN, _kernel_ir(DARWIN))
    asm = machine.emit_assembly(module)  # Mach-O: C symbols get a leading underscore
    assert "_sysconf" in asm
    assert "sched_getaffinity" not in asm
    assert "_xl_forall_run" in asm
    machine, module = _machine_code(FREEBSD, _kernel_ir(FREEBSD))
    names = undefined_symbols(machine.emit_object(module))
    assert names is not None
    assert {"sysconf", "xl_forall_run"} <= set(names)
    assert "sched_getaffinity" not in names


def test_unknown_os_uses_the_compile_time_count() -> None:
    ir = _kernel_ir("x86_64-unknown-netbsd9")
    assert "sysconf" not in ir
    assert "sched_getaffinity" not in ir
    assert "xl_forall_run" in ir
    assert "sched_getaffinity" in _kernel_ir(host_triple())  # the host (glibc) counts its affinity
