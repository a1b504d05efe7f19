"""`xl-convert-forall-to-threads`: run `scf.forall` loops (on memrefs) on OS threads.

Runs after bufferization and the lowering of linalg/vector/affine ops, before
`scf → cf`; everything it creates is func/scf/arith/memref plus a few LLVM-dialect
ops, so the rest of the pipeline (and our LLVM IR emitter) turns it into plain
LLVM IR: no Python runs when the kernel is called; the forall's chunks run on
xlinalg's persistent native thread pool (`xl_forall_run`,
`xlinalg/backend/thread_pool.py`).

For every outermost `scf.forall` of a function `@k`:

1. **Outline** the body into `func.func private @k_forall<N>(%ctx: !llvm.ptr, %lo: i64,
   %hi: i64)`: it unpacks the captured values from the context buffer `%ctx`
   (memref descriptors, index and scalar values, each in an 8-byte aligned slot),
   then runs the iterations `lo <= t < hi` of the linearized iteration space
   (`t` is delinearized to the induction variables, last dimension fastest).
   Constants used by the body are cloned into it instead of being captured (LLVM
   then sees them).
2. **Call site**: the captured values are stored into a stack buffer; with
   `T = total iterations` and `W = min(T, usable CPUs)` parts (usable CPUs =
   the CPUs in the calling thread's affinity mask, counted at each call with
   `sched_getaffinity`, at most the machine's CPU count at compile time; every
   forall iteration is a task, so `num_threads [2]` gives 2 parts), the kernel calls
   `xl_forall_run(@k_forall<N>, ctx, T, W)`, which runs part `w` = iterations
   `[T*w/W, T*(w+1)/W)` on the pool's workers and the calling thread and returns
   when all are done (W = 1: directly on the calling thread).

**Counting the CPUs off Linux.** Where the libc has no `sched_getaffinity` (macOS,
older BSDs), the kernel counts the online CPUs with `sysconf(_SC_NPROCESSORS_ONLN)`
instead, whose constant differs per OS (`_SC_NPROCESSORS_ONLN`, keyed by the target
triple as the thread pool's futex numbers are); on an OS known to neither, a forall
gets the compile-time count. `XLINALG_CPU_COUNT=sysconf` forces the `sysconf` count
(`cpu_count_for`).

Nested foralls (inside an outlined body, or inside another forall) become
sequential `scf.for` nests: they run inside their outer task.

**Why a pool.** Starting and joining a thread costs ~20-40 µs here, and the
data-tiling template runs five foralls per call (pack A, pack B, fill, mmt4d,
unpack): ~0.15 ms of a 512³ matmul's ~1.3 ms. The pool's workers are started once,
wait for the next forall spinning then on a futex, and live in a runtime module
that is never freed (a kernel module can be dropped while they are parked); the
pool is reset in a forked child (the tuner measures in forked workers) and
joined at exit. libgomp would do the same but hangs in a forked child whose
parent had used it, and is not on every machine.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, math, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    UnitAttr,
    UnrealizedConversionCastOp,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.scf import ForallOp
from xlinalg.errors import LoweringError
from xlinalg.host import host_triple
from xlinalg.ir.diagnostics import lowering_error
from xlinalg.ir.passes import register_pass
from xlinalg.ir.walk import walk_ops
from xlinalg.lowering.abi import POOL_RUN
from xlinalg.lowering.to_llvm.ops import LoadOp, StoreOp
from xlinalg.lowering.to_llvm.types import convert_type, element_size

_PTR = llvm.LLVMPointerType()
_INDEX = IndexType()
_SLOT_ALIGN = 8
SCHED_GETAFFINITY = "sched_getaffinity"
SYSCONF = "sysconf"
_AFFINITY_BYTES = 128  # a cpu_set_t: 1024 CPUs
# The C signatures of the counting functions (`long` is i64: the lowering's index is i64).
_COUNTER_TYPES: dict[str, tuple[list[Attribute], list[Attribute]]] = {
    SCHED_GETAFFINITY: ([i32, i64, _PTR], [i32]),
    SYSCONF: ([i32], [i64]),
}

CPU_COUNT_ENV = "XLINALG_CPU_COUNT"
"""`sysconf` makes parallel kernels count the online CPUs with `sysconf` (the fallback of a
libc without `sched_getaffinity`, forced); `affinity` (the default where there is one)."""
CPU_COUNTS = ("affinity", "sysconf")

# sysconf's _SC_NPROCESSORS_ONLN per OS of a target triple (glibc/musl/bionic; Apple's and
# FreeBSD's <unistd.h>).
_SC_NPROCESSORS_ONLN: dict[str, int] = {
    "linux": 84, "darwin": 58, "macos": 58, "macosx": 58, "ios": 58, "freebsd": 58,
}  # fmt: skip


@dataclass(frozen=True)
class CpuCount:
    """How a parallel kernel counts its usable CPUs at each call: with `function`
    (`sched_getaffinity`, or `sysconf` of `sysconf_name`), or with none (the count at
    compile time)."""

    function: str | None
    sysconf_name: int | None = None


def _leading_letters(part: str) -> str:
    match = re.match(r"[a-z]*", part)
    assert match is not None  # (`*` matches the empty string too)
    return match.group()


def target_os(triple: str) -> str:
    """The OS of an LLVM target triple, without its version (`arm64-apple-macosx11.0.0`:
    `macosx`); the first component after the architecture that `_SC_NPROCESSORS_ONLN`
    knows, else the third one ("" if none)."""
    names = [_leading_letters(part) for part in triple.split("-")[1:]]
    known = [name for name in names if name in _SC_NPROCESSORS_ONLN]
    return known[0] if known else (names[1] if len(names) > 1 else "")


@functools.cache
def _host_libc_has(name: str) -> bool:
    return hasattr(ctypes.CDLL(None), name)


def cpu_count_for(triple: str | None = None) -> CpuCount:
    """How kernels for `triple` (default: this host) count their CPUs: `sched_getaffinity`
    where the libc has it (the host's libc; Linux for another target) unless
    `XLINALG_CPU_COUNT=sysconf`, else `sysconf(_SC_NPROCESSORS_ONLN)` where the OS's
    constant is known, else the compile-time count."""
    mode = os.environ.get(CPU_COUNT_ENV, "").strip() or "affinity"
    if mode not in CPU_COUNTS:
        raise LoweringError(
            f"{CPU_COUNT_ENV}={mode!r}: the CPU count is one of {', '.join(CPU_COUNTS)}"
        )
    host = host_triple()
    triple = host if triple is None else triple
    os_name = target_os(triple)
    has_affinity = _host_libc_has(SCHED_GETAFFINITY) if triple == host else os_name == "linux"
    if mode == "affinity" and has_affinity:
        return CpuCount(SCHED_GETAFFINITY)
    name = _SC_NPROCESSORS_ONLN.get(os_name)
    return CpuCount(None) if name is None else CpuCount(SYSCONF, name)


def host_cores() -> int:
    """The most workers a forall gets (the machine's CPU count, at least 1)."""
    return max(1, os.cpu_count() or 1)


# ---------------------------------------------------------------------------- helpers
class _Emitter:
    """Inserts ops at a fixed point and returns their single result."""

    def __init__(self, point: InsertPoint) -> None:
        self.point = point

    def op(self, op: Operation) -> SSAValue:
        Rewriter.insert_op(op, self.point)
        return op.results[0]

    def do(self, op: Operation) -> Operation:
        Rewriter.insert_op(op, self.point)
        return op

    def index(self, value: int) -> SSAValue:
        return self.op(arith.ConstantOp(IntegerAttr(value, _INDEX)))

    def i64(self, value: int) -> SSAValue:
        return self.op(arith.ConstantOp(IntegerAttr(value, i64)))

    def mixed(self, value: int | SSAValue) -> SSAValue:
        return self.index(value) if isinstance(value, int) else value

    def to_i64(self, value: SSAValue) -> SSAValue:
        return self.op(arith.IndexCastOp(value, i64))

    def to_index(self, value: SSAValue) -> SSAValue:
        return self.op(arith.IndexCastOp(value, _INDEX))

    def gep(self, base: SSAValue, index: SSAValue, element_type: Attribute) -> SSAValue:
        """`getelementptr inbounds element_type, base, index` (index: i64)."""
        props: dict[str, Attribute] = {
            "rawConstantIndices": DenseArrayBase.from_list(i32, [llvm.GEP_USE_SSA_VAL]),
            "elem_type": element_type,
            "noWrapFlags": IntegerAttr(0, 32),
            "inbounds": UnitAttr(),
        }
        return self.op(
            llvm.GEPOp.create(operands=[base, index], result_types=[_PTR], properties=props)
        )

    def byte_ptr(self, base: SSAValue, offset: int) -> SSAValue:
        return base if offset == 0 else self.gep(base, self.i64(offset), i8_type())


def i8_type() -> IntegerType:
    return IntegerType(8)


def _slot_bytes(t: Attribute) -> int:
    """Bytes of a captured value: a memref descriptor, else the value itself."""
    if isinstance(t, MemRefType):
        return 8 * (3 + 2 * len(t.get_shape()))
    return element_size(t)


def _round_up(n: int, to: int) -> int:
    return -(-n // to) * to


def _captured_values(forall: ForallOp) -> list[SSAValue]:
    """Values used inside `forall` (bounds excluded) and defined outside it, in first-use order."""
    inside: set[Block] = set()
    for op in forall.walk():
        for region in op.regions:
            inside.update(region.blocks)
    seen: dict[SSAValue, None] = {}
    for op in forall.walk():
        if op is forall:
            continue
        for value in op.operands:
            block = value.owner if isinstance(value.owner, Block) else value.owner.parent_block()
            if block not in inside:
                seen.setdefault(value, None)
    return list(seen)


def _is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def _is_constant(value: SSAValue) -> bool:
    return isinstance(value.owner, arith.ConstantOp)


def _trip_counts(e: _Emitter, forall: ForallOp) -> list[SSAValue]:
    """ceildiv(ub - lb, step) per dimension (constants when static)."""
    counts: list[SSAValue] = []
    for static, lb, ub, step in zip(
        forall.static_trip_counts(),
        forall.lower_bounds(),
        forall.upper_bounds(),
        forall.steps(),
        strict=True,
    ):
        if static is not None:
            counts.append(e.index(static))
            continue
        span = e.op(arith.SubiOp(e.mixed(ub), e.mixed(lb)))
        count = e.op(arith.CeilDivSIOp(span, e.mixed(step)))
        counts.append(e.op(arith.MaxSIOp(count, e.index(0))))
    return counts


def forall_to_sequential_loops(forall: ForallOp) -> None:
    """Replace a forall on memrefs by the equivalent `scf.for` nest (in place)."""
    if forall.outputs:
        raise lowering_error(
            forall, "an scf.forall with shared_outs (tensors) must be bufferized first"
        )
    e = _Emitter(InsertPoint.before(forall))
    point = InsertPoint.before(forall)
    ivs: list[SSAValue] = []
    for lb, ub, step in zip(
        forall.lower_bounds(), forall.upper_bounds(), forall.steps(), strict=True
    ):
        terminator = scf.YieldOp()
        body = Block([terminator], arg_types=[_INDEX])
        loop = scf.ForOp(e.mixed(lb), e.mixed(ub), e.mixed(step), [], Region(body))
        Rewriter.insert_op(loop, point)
        ivs.append(body.args[0])
        point = InsertPoint.before(terminator)
        e = _Emitter(point)
    _move_body(forall, ivs, point)
    Rewriter.erase_op(forall)


def _move_body(forall: ForallOp, ivs: Sequence[SSAValue], point: InsertPoint) -> None:
    body = forall.body
    for arg, iv in zip(body.args, ivs, strict=True):
        arg.replace_all_uses_with(iv)
    for op in list(body.ops):
        if op is body.last_op:  # the (empty) scf.forall.in_parallel
            continue
        op.detach()
        Rewriter.insert_op(op, point)


# ---------------------------------------------------------------------------- outlining
@dataclass
class _Outlined:
    body_name: str
    captured: list[SSAValue]
    offsets: list[int]
    ctx_bytes: int
    counts: list[SSAValue]


def _outline(forall: ForallOp, module: ModuleOp, kernel: func.FuncOp, index: int) -> _Outlined:
    # Trip counts, lower bounds and steps are computed before the forall and passed to the
    # body like the values it captures (constants are cloned).
    caller = _Emitter(InsertPoint.before(forall))
    counts = _trip_counts(caller, forall)
    lbs = [caller.mixed(v) for v in forall.lower_bounds()]
    steps = [caller.mixed(v) for v in forall.steps()]
    used = _captured_values(forall)
    for value in (*counts, *lbs, *steps):
        if value not in used:
            used.append(value)
    captured = [v for v in used if not _is_constant(v)]
    constants = [v for v in used if _is_constant(v)]
    offsets: list[int] = []
    size = 0
    for value in captured:
        t = value.type
        if not isinstance(t, MemRefType | IndexType | IntegerType | VectorType) and not _is_float(
            t
        ):
            raise lowering_error(forall, f"cannot pass a value of type {t} to a thread")
        offsets.append(size)
        size += _round_up(_slot_bytes(t), _SLOT_ALIGN)
    base = f"{kernel.sym_name.data}_forall{index}"

    # Body function: (ctx, lo, hi) -> ()
    entry = Block(arg_types=[_PTR, i64, i64])
    ctx, lo, hi = entry.args
    ret = func.ReturnOp()
    entry.add_op(ret)
    e = _Emitter(InsertPoint.before(ret))
    mapping: dict[SSAValue, SSAValue] = {}
    for value, offset in zip(captured, offsets, strict=True):
        t = value.type
        address = e.byte_ptr(ctx, offset)
        if isinstance(t, IndexType):
            mapping[value] = e.to_index(e.op(LoadOp(address, i64, _SLOT_ALIGN)))
        elif isinstance(t, MemRefType):
            raw = e.op(LoadOp(address, convert_type(t), _SLOT_ALIGN))
            mapping[value] = e.op(
                UnrealizedConversionCastOp.create(operands=[raw], result_types=[t])
            )
        else:
            mapping[value] = e.op(LoadOp(address, t, _SLOT_ALIGN))
    for value in constants:
        owner = value.owner
        assert isinstance(owner, Operation)
        mapping[value] = e.op(owner.clone())
    for value, new in mapping.items():
        value.replace_uses_with_if(new, lambda use, f=forall: f.is_ancestor(use.operation))

    terminator = scf.YieldOp()
    loop_body = Block([terminator], arg_types=[_INDEX])
    loop = scf.ForOp(e.to_index(lo), e.to_index(hi), e.index(1), [], Region(loop_body))
    e.do(loop)
    inner = _Emitter(InsertPoint.before(terminator))
    t = loop_body.args[0]
    ivs_innermost_first: list[SSAValue] = []
    for d in reversed(range(forall.rank)):
        count, lb, step = mapping[counts[d]], mapping[lbs[d]], mapping[steps[d]]
        position = inner.op(arith.RemUIOp(t, count)) if d > 0 else t
        scaled = inner.op(arith.MuliOp(position, step))
        ivs_innermost_first.append(inner.op(arith.AddiOp(lb, scaled)))
        if d > 0:
            t = inner.op(arith.DivUIOp(t, count))
    _move_body(forall, ivs_innermost_first[::-1], InsertPoint.before(terminator))
    for nested in [op for op in loop.walk() if isinstance(op, ForallOp)]:
        forall_to_sequential_loops(nested)
    body_fn = func.FuncOp(
        base, FunctionType.from_lists([_PTR, i64, i64], []), Region(entry), "private"
    )
    module.body.block.insert_op_after(body_fn, kernel)
    return _Outlined(base, captured, offsets, max(size, 8), counts)


def _declare(
    module: ModuleOp, name: str, inputs: list[Attribute], outputs: list[Attribute]
) -> None:
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return
    module.body.block.add_op(
        func.FuncOp(name, FunctionType.from_lists(inputs, outputs), Region(), "private")
    )


def _entry_alloca(kernel: func.FuncOp, bytes_: int, align: int) -> SSAValue:
    entry = kernel.body.blocks[0]
    size = llvm.ConstantOp(IntegerAttr(bytes_, i64), i64)
    alloca = llvm.AllocaOp(size.results[0], i8_type(), align)
    first = entry.first_op
    if first is None:
        entry.add_ops([size, alloca])
    else:
        entry.insert_ops_before([size, alloca], first)
    return alloca.results[0]


def _usable_cpus(e: _Emitter, kernel: func.FuncOp, cores: int, counter: CpuCount) -> SSAValue:
    """The CPUs this thread may run on, counted at call time (i64, 1 <= n <= `cores`):
    the bits of `sched_getaffinity(0, ...)`'s mask, so a process pinned to one core
    (`taskset`, `os.sched_setaffinity`, a tuner worker) runs the forall on one thread.
    If the call fails (more than `_AFFINITY_BYTES * 8` CPUs), `cores`. Without
    `sched_getaffinity`: `sysconf`'s count of online CPUs (-1 on failure: `cores`), or
    `cores`."""
    if counter.function is None:
        return e.i64(cores)
    if counter.function == SYSCONF:
        assert counter.sysconf_name is not None
        online = e.op(
            func.CallOp(
                SYSCONF, [e.op(arith.ConstantOp(IntegerAttr(counter.sysconf_name, i32)))], [i64]
            )
        )
        return e.op(arith.MinUIOp(online, e.i64(cores)))
    mask = _entry_alloca(kernel, _AFFINITY_BYTES, 8)
    rc = e.op(
        func.CallOp(
            SCHED_GETAFFINITY,
            [e.op(arith.ConstantOp(IntegerAttr(0, i32))), e.i64(_AFFINITY_BYTES), mask],
            [i32],
        )
    )
    count = e.i64(0)
    for word in range(_AFFINITY_BYTES // 8):
        bits = e.op(LoadOp(e.byte_ptr(mask, 8 * word), i64, 8))
        count = e.op(arith.AddiOp(count, e.op(math.CtPopOp(bits))))
    ok = e.op(arith.CmpiOp(rc, e.op(arith.ConstantOp(IntegerAttr(0, i32))), "eq"))
    count = e.op(arith.SelectOp(ok, count, e.i64(cores)))
    return e.op(arith.MinUIOp(count, e.i64(cores)))


def _call_site(
    forall: ForallOp, kernel: func.FuncOp, outlined: _Outlined, cores: int, counter: CpuCount
) -> None:
    e = _Emitter(InsertPoint.before(forall))
    ctx = _entry_alloca(kernel, outlined.ctx_bytes, 64)
    for value, offset in zip(outlined.captured, outlined.offsets, strict=True):
        t = value.type
        address = e.byte_ptr(ctx, offset)
        if isinstance(t, IndexType):
            e.do(StoreOp(e.to_i64(value), address, _SLOT_ALIGN))
        elif isinstance(t, MemRefType):
            raw = e.op(
                UnrealizedConversionCastOp.create(operands=[value], result_types=[convert_type(t)])
            )
            e.do(StoreOp(raw, address, _SLOT_ALIGN))
        else:
            e.do(StoreOp(value, address, _SLOT_ALIGN))
    counts = outlined.counts
    total = counts[0]
    for c in counts[1:]:
        total = e.op(arith.MuliOp(total, c))
    total64 = e.to_i64(total)
    workers = e.op(arith.MinUIOp(total64, _usable_cpus(e, kernel, cores, counter)))
    workers = e.op(arith.MaxUIOp(workers, e.i64(1)))

    body = e.op(llvm.AddressOfOp(outlined.body_name, _PTR))
    e.do(func.CallOp(POOL_RUN, [body, ctx, total64, workers], []))
    Rewriter.erase_op(forall)


def convert_foralls_to_threads(
    module: ModuleOp, cores: int | None = None, triple: str | None = None
) -> int:
    """Outline every outermost forall of every function (see the module docstring); returns
    how many were converted. `triple`: the target whose libc counts the CPUs (`cpu_count_for`)."""
    cores = host_cores() if cores is None else max(1, cores)
    counter: CpuCount | None = None
    converted = 0
    for kernel in [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]:
        outermost = [
            op for op in walk_ops(kernel)
            if isinstance(op, ForallOp) and not _has_forall_ancestor(op, kernel)
        ]  # fmt: skip
        for forall in outermost:
            if forall.outputs:
                raise lowering_error(
                    forall, "an scf.forall with shared_outs (tensors) must be bufferized first"
                )
            outlined = _outline(forall, module, kernel, converted)
            counter = cpu_count_for(triple) if counter is None else counter
            _call_site(forall, kernel, outlined, cores, counter)
            converted += 1
    if converted:
        _declare(module, POOL_RUN, [_PTR, _PTR, i64, i64], [])
        if counter is not None and counter.function is not None:
            _declare(module, counter.function, *_COUNTER_TYPES[counter.function])
    return converted


def _has_forall_ancestor(op: Operation, stop: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and parent is not stop:
        if isinstance(parent, ForallOp):
            return True
        parent = parent.parent_op()
    return False


@register_pass
@dataclass(frozen=True)
class ConvertForallToThreadsPass(ModulePass):
    """`scf.forall` on memrefs → outlined body run in parts on the native thread pool."""

    name = "xl-convert-forall-to-threads"

    cores: int | None = None
    triple: str | None = None  # the target (default: this host), for how CPUs are counted

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_foralls_to_threads(op, self.cores, self.triple)


__all__ = [
    "CPU_COUNTS",
    "CPU_COUNT_ENV",
    "ConvertForallToThreadsPass",
    "CpuCount",
    "convert_foralls_to_threads",
    "cpu_count_for",
    "forall_to_sequential_loops",
    "host_cores",
    "target_os",
]
