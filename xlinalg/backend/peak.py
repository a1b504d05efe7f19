"""The single-core FMA peak of the host, measured with a hand-written LLVM IR microkernel.

The kernel keeps `ACCUMULATORS` independent chains `acc = fma(acc, x, y)` on
the widest vectors the host has (512-bit with AVX-512F, else 256-bit with AVX,
else 128-bit), enough to cover FMA latency x FMA units on current x86 cores (e.g.
4 cycles x 2 units = 8 chains in flight), over a long loop. x and y come from
memory and every chain starts from a different value, so LLVM can neither fold
nor merge the chains; the sums are stored at the end. 2 flops per lane per FMA.

How it is timed (`measure_fma_peak_gflops`): the kernel first runs for `RAMP_S` so the
core's clock is up, then samples of ~`SAMPLE_S` (a few calls) are taken for the budget
and the fastest sample gives the peak, in wall time. The samples are short because on a
machine shared with other jobs (load >= number of cores) the scheduler's time slices are
a few ms: samples of 5 ms (the timing harness's default for kernels) were nearly all
interrupted and read 44-70 GFLOP/s on a 118 GFLOP/s core, 0.3-0.6 ms samples mostly run
undisturbed. Wall time, not the thread's CPU time: in a VM the CPU clock under-counts some
sub-millisecond calls (up to 145 "GFLOP/s"), so its fastest sample is no ceiling.
"""

from __future__ import annotations

import functools
import time

import numpy as np

from xlinalg.backend.jit import JitModule
from xlinalg.backend.timing import time_native
from xlinalg.host import host_has_feature
from xlinalg.lowering.abi import FunctionSignature, LoweredModule, MemRefArg, ScalarArg

ACCUMULATORS = 12
ITERATIONS_PER_CALL = 20_000
#: Seconds the kernel runs before the samples (the clock ramps up to its sustained speed).
RAMP_S = 0.03
#: Seconds per sample: well below a scheduler time slice, well above the call overhead.
SAMPLE_S = 0.0004


def vector_bits() -> int:
    if host_has_feature("avx512f"):
        return 512
    if host_has_feature("avx"):
        return 256
    return 128


def _microkernel_ir(elem: str, lanes: int, use_fma: bool) -> str:
    vec = f"<{lanes} x {elem}>"
    suffix = f"v{lanes}{'f32' if elem == 'float' else 'f64'}"
    n = ACCUMULATORS
    lines = [
        f"declare {vec} @llvm.fma.{suffix}({vec}, {vec}, {vec})",
        "define void @fma_peak(ptr %alloc, ptr %io, i64 %off, i64 %size, i64 %stride, i64 %iters) {",
        "entry:",
        f"  %x = load {vec}, ptr %io, align 4",
        f"  %yp = getelementptr {vec}, ptr %io, i64 1",
        f"  %y = load {vec}, ptr %yp, align 4",
    ]
    for k in range(n):
        lines += [
            f"  %p{k} = getelementptr {vec}, ptr %io, i64 {k + 2}",
            f"  %init{k} = load {vec}, ptr %p{k}, align 4",
        ]
    lines += ["  %any = icmp sgt i64 %iters, 0", "  br i1 %any, label %loop, label %exit", "loop:"]
    lines.append("  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]")
    for k in range(n):
        lines.append(f"  %acc{k} = phi {vec} [ %init{k}, %entry ], [ %next{k}, %loop ]")
    for k in range(n):
        if use_fma:
            lines.append(
                f"  %next{k} = call {vec} @llvm.fma.{suffix}({vec} %acc{k}, {vec} %x, {vec} %y)"
            )
        else:
            lines += [f"  %m{k} = fmul {vec} %acc{k}, %x", f"  %next{k} = fadd {vec} %m{k}, %y"]
    lines += [
        "  %i.next = add nuw nsw i64 %i, 1",
        "  %done = icmp eq i64 %i.next, %iters",
        "  br i1 %done, label %exit, label %loop",
        "exit:",
    ]
    for k in range(n):
        lines.append(f"  %out{k} = phi {vec} [ %init{k}, %entry ], [ %next{k}, %loop ]")
    total = "%out0"
    for k in range(1, n):
        lines.append(f"  %sum{k} = fadd {vec} {total}, %out{k}")
        total = f"%sum{k}"
    lines += [f"  store {vec} {total}, ptr %io, align 4", "  ret void", "}"]
    return "\n".join(lines) + "\n"


@functools.cache
def _microkernel(dtype_name: str) -> tuple[JitModule, int]:
    """The compiled microkernel for this dtype (compiled once per process) and its lane count."""
    dtype = np.dtype(dtype_name)
    elem = {"float32": "float", "float64": "double"}[dtype.name]
    lanes = vector_bits() // (8 * dtype.itemsize)
    use_fma = host_has_feature("fma") or host_has_feature("avx512f")
    sig = FunctionSignature(
        "fma_peak", (MemRefArg(dtype, ((ACCUMULATORS + 2) * lanes,)), ScalarArg(np.dtype(np.int64)))
    )
    return JitModule(LoweredModule(_microkernel_ir(elem, lanes, use_fma), {"fma_peak": sig})), lanes


def measure_fma_peak_gflops(
    dtype: type[np.floating] | np.dtype = np.float32, *, max_total_s: float = 0.3
) -> float:
    """Single-core FMA peak of the host in GFLOP/s for float32 or float64.

    Every call measures anew (`RAMP_S` plus about `max_total_s` seconds of samples, see the
    module docstring); the microkernel is compiled once per process.
    """
    dtype = np.dtype(dtype)
    if dtype.name not in ("float32", "float64"):
        raise ValueError(f"FMA peak is measured for float32 or float64, not {dtype.name}")
    jit, lanes = _microkernel(dtype.name)
    io = np.empty((ACCUMULATORS + 2) * lanes, dtype=dtype)
    io[:lanes] = 0.9999  # x: |acc| stays bounded, no overflow or denormals
    io[lanes : 2 * lanes] = 1e-4  # y
    io[2 * lanes :] = np.linspace(0.0, 1.0, ACCUMULATORS * lanes, dtype=dtype)
    fn = jit.function("fma_peak")
    ramp_end = time.perf_counter() + RAMP_S
    while time.perf_counter() < ramp_end:
        fn.repeat(8, io, ITERATIONS_PER_CALL)
    timing = time_native(
        fn,
        io,
        ITERATIONS_PER_CALL,
        min_sample_s=SAMPLE_S,
        max_total_s=max_total_s,
        max_repeats=100_000,
        target_cv=0.0,  # never "settled": sample for the whole budget, keep the fastest
    )
    flops_per_call = 2 * lanes * ACCUMULATORS * ITERATIONS_PER_CALL
    # A peak is a ceiling: disturbances only ever slow a sample down, so use the fastest.
    return flops_per_call / timing.min_s / 1e9
