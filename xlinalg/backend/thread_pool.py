"""The persistent native thread pool `scf.forall` runs on (`xl_forall_run`).

A lowered `scf.forall` (`xlinalg/lowering/forall_to_threads.py`) calls

    void xl_forall_run(void (*body)(ptr ctx, i64 lo, i64 hi), ptr ctx, i64 total, i64 parts)

which runs `body(ctx, total*c/parts, total*(c+1)/parts)` for every chunk `0 <= c < parts`
and returns when all have finished. The pool is LLVM IR written here, compiled once per
process into its own MCJIT engine that is never freed (so parked workers never sit in
code that goes away when a kernel is dropped), and linked into kernels by address
(`llvm.add_symbol`). No Python runs while a kernel calls it.

Protocol (all shared words are on their own cache line):

- `ticket` = `gen << 32 | remaining`: the caller publishes job `gen` with `remaining =
  parts`; every participant (the caller and the workers) claims a chunk with a CAS
  `remaining -> remaining - 1` that also checks `gen`, so a late worker can never claim
  a chunk of a finished or a newer job. Chunk `parts - remaining` is run; the job's
  fields are read only after a successful claim (the job cannot finish, and the caller
  cannot overwrite them, before that chunk is done). The caller claims too: a chunk
  whose worker is slow to wake (or could not be started) is run by the caller.
- Workers wait for a new `gen` by spinning (x86 `pause`, arm `yield`) for `spin` rounds,
  then sleep on a futex on `gen`; the caller only makes the wake-up system call when a
  worker sleeps. Without a futex (not Linux, an architecture whose system call number is
  not known here, or `XLINALG_POOL_WAIT=sleep`) a waiter sleeps in `usleep` steps that
  double from 1 us to 1 ms and looks again after each: a parked worker costs ~1000
  wake-ups a second, and a job it sleeps through is run by the caller meanwhile.
  The caller waits for `completed == parts` the same way (`await_change`: spin, then
  futex; the last worker to finish wakes it only when it sleeps).
- One job at a time: the caller takes `lock` with one CAS; a second thread calling a
  kernel meanwhile (or a kernel running after shutdown) runs its forall on its own
  thread instead of waiting.
- Workers are created on demand (`parts - 1` of them, up to `MAX_WORKERS`), are reused by
  every later forall of every kernel of every Python thread, and are joined at
  interpreter exit (`atexit`). A new worker does not keep the CPU affinity of the thread
  that happened to create it (a thread pinned to some CPUs would pin a shared worker
  there for good): on Linux it starts with the process's CPUs, i.e. the main thread's
  (`sched_getaffinity(getpid())`, the set `taskset` or `os.sched_setaffinity` in the main
  thread gives the process), plus its creator's: the creating thread takes that set for
  the moment it starts workers, then gets its own back. After `os.fork` the child has no workers:
  the pool state is reset in the child (`os.register_at_fork`) and it starts its own.

How many parts a forall is split into is decided by the kernel (the usable CPUs,
counted at each call with `sched_getaffinity`, or `sysconf(_SC_NPROCESSORS_ONLN)` where the
libc lacks it: `lowering/forall_to_threads.py`).
"""

from __future__ import annotations

import atexit
import ctypes
import os
import re
import threading
from collections.abc import Callable
from typing import Any

import llvmlite.binding as llvm

from xlinalg.errors import BackendError
from xlinalg.host import host_target_machine, host_triple, new_jit_target_machine
from xlinalg.lowering.abi import POOL_RUN

MAX_WORKERS = 255
_AFFINITY_BYTES = 1024  # a cpu_set_t of 8192 CPUs
DEFAULT_SPIN = 5000
"""Spin rounds (one `pause` each, ~25 ns on the AMD EPYC host: ~0.13 ms) before a waiting
thread sleeps on its futex; `XLINALG_POOL_SPIN` in the environment overrides it. Long
enough for the consecutive foralls of one call and back-to-back calls to find the workers
awake; short because a worker that spins long is a CPU hog to the scheduler: on this
shared machine (load ≈ 3, 512³ data-tiling matmul, 2 threads, median of calls) 2000 /
20000 / 200000 rounds gave 83 / 60 / 27 GFLOP/s (fastest calls 161 / 176 / 176)."""

SPIN_ENV = "XLINALG_POOL_SPIN"

_FUTEX_WAIT = 128  # FUTEX_WAIT | FUTEX_PRIVATE_FLAG
_FUTEX_WAKE = 129
WAIT_ENV = "XLINALG_POOL_WAIT"
"""`sleep` makes waiters sleep in `usleep` steps instead of on a futex (the fallback of
platforms without one, forced); `futex` (the default where there is one)."""
WAIT_MODES = ("futex", "sleep")

# SYS_futex of Linux per architecture (the kernel's unistd tables: asm-generic 98 for the
# newer ones), and the spin-wait hint where there is one.
_FUTEX_NR: dict[str, int] = {
    "x86_64": 202,
    "i386": 240,
    "aarch64": 98,
    "arm": 240,
    "riscv64": 98,
    "loongarch64": 98,
    "powerpc64": 221,
    "powerpc64le": 221,
    "s390x": 238,
    "mips64": 5194,
    "mips64el": 5194,
}
_SPIN_HINT: dict[str, tuple[str, str]] = {
    "x86_64": ("declare void @llvm.x86.sse2.pause()", "call void @llvm.x86.sse2.pause()"),
    "aarch64": ("declare void @llvm.aarch64.hint(i32)", "call void @llvm.aarch64.hint(i32 1)"),
}


def _arch(triple: str) -> str:
    """The architecture of an LLVM target triple, in the names of `_FUTEX_NR`."""
    arch = triple.split("-", 1)[0]
    if arch in ("arm64", "arm64e"):
        return "aarch64"
    if len(arch) == 4 and arch[0] == "i" and arch.endswith("86"):
        return "i386"
    if arch.startswith(("armv", "thumb")) or arch == "armel":
        return "arm"
    return arch


def futex_number(triple: str) -> int | None:
    """The futex system call number of a target (None: not Linux, or not known here)."""
    if "-linux" not in triple:
        return None
    return _FUTEX_NR.get(_arch(triple))


def pointer_bits(data_layout: str) -> int:
    """The size of a pointer (address space 0) in a target data layout string: `p:32:32` or
    `p0:32:32` (64 when it says nothing, LLVM's default). `long`, `size_t` and `pthread_t`
    have that size too on every Unix (LP64 / ILP32)."""
    for spec in data_layout.split("-"):
        head, _, rest = spec.partition(":")
        if head in ("p", "p0") and rest:
            return int(rest.split(":", 1)[0])
    return 64


def _arch_ir(triple: str) -> str:
    """The target's part of the runtime: `@futex_nr` (-1: no futex), whether the futex is
    used at first, and `@cpu_relax` (the spin-wait hint, or nothing). `intptr` in the
    runtime's text stands for the integer of a pointer's size (C's `long`, `size_t` and
    `pthread_t` there)."""
    futex = futex_number(triple)
    declare, hint = _SPIN_HINT.get(_arch(triple), ("", ""))
    return (
        f"@futex_nr = internal constant intptr {-1 if futex is None else futex}\n"
        f"@use_futex = internal global i32 {0 if futex is None else 1}, align 4\n"
        f"{declare}\ndefine internal void @cpu_relax() {{\n  {hint}\n  ret void\n}}\n"
    )


def _runtime_ir(triple: str, data_layout: str) -> str:
    text = _arch_ir(triple) + _IR
    return re.sub(r"\bintptr\b", f"i{pointer_bits(data_layout)}", text)


_IR = f"""
%body = type void (ptr, i64, i64)

@lock = internal global i32 0, align 64
@ticket = internal global i64 0, align 64
@gen = internal global i32 0, align 64
@sleepers = internal global i32 0, align 64
@completed = internal global i32 0, align 64
@caller_sleepers = internal global i32 0, align 64
@job_fn = internal global ptr null, align 64
@job_ctx = internal global ptr null, align 8
@job_total = internal global i64 0, align 8
@job_parts = internal global i64 0, align 8
@nthreads = internal global i64 0, align 64
@shutdown = internal global i32 0, align 8
@spin = internal global i64 {DEFAULT_SPIN}, align 8
@threads = internal global [{MAX_WORKERS} x intptr] zeroinitializer, align 64
@worker_chunks = internal global i64 0, align 64
; libc's getpid, sched_getaffinity, sched_setaffinity where it has them (else null)
@getpid_fn = internal global ptr null, align 8
@getaffinity_fn = internal global ptr null, align 8
@setaffinity_fn = internal global ptr null, align 8

declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_join(intptr, ptr)
declare i32 @sched_yield()
declare i32 @usleep(i32)
declare intptr @syscall(intptr, ...)

; syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL): only called while
; @use_futex says so, which it never does without a futex.
define internal void @futex_wait(ptr %word, i32 %expected) {{
  %nr = load intptr, ptr @futex_nr
  %r = call intptr (intptr, ...) @syscall(intptr %nr, ptr %word, i32 {_FUTEX_WAIT}, i32 %expected, ptr null)
  ret void
}}

; syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count); nothing without a futex.
define internal void @futex_wake(ptr %word, i32 %count) {{
entry:
  %nr = load intptr, ptr @futex_nr
  %none = icmp slt intptr %nr, 0
  br i1 %none, label %out, label %wake
wake:
  %r = call intptr (intptr, ...) @syscall(intptr %nr, ptr %word, i32 {_FUTEX_WAKE}, i32 %count)
  br label %out
out:
  ret void
}}

; Wakes up to %count threads sleeping on *%word, if *%sleepers counts any (the system
; call is skipped while everyone spins).
define internal void @wake_sleepers(ptr %word, ptr %sleepers, i32 %count) {{
entry:
  %n = load atomic i32, ptr %sleepers seq_cst, align 4
  %any = icmp ne i32 %n, 0
  br i1 %any, label %wake, label %out
wake:
  call void @futex_wake(ptr %word, i32 %count)
  br label %out
out:
  ret void
}}

; Claims and runs chunks of job %g until none is left; returns how many it ran.
define internal i64 @participate(i32 %g, i1 %worker) {{
entry:
  br label %claim
claim:
  %ran = phi i64 [ 0, %entry ], [ %ran1, %done ], [ %ran, %try ]
  %t = load atomic i64, ptr @ticket seq_cst, align 8
  %tg64 = lshr i64 %t, 32
  %tg = trunc i64 %tg64 to i32
  %same = icmp eq i32 %tg, %g
  %rem = and i64 %t, 4294967295
  %left = icmp ne i64 %rem, 0
  %open = and i1 %same, %left
  br i1 %open, label %try, label %out
try:
  %t1 = sub i64 %t, 1
  %pair = cmpxchg ptr @ticket, i64 %t, i64 %t1 seq_cst seq_cst
  %ok = extractvalue {{ i64, i1 }} %pair, 1
  br i1 %ok, label %run, label %claim
run:
  %fn = load ptr, ptr @job_fn, align 64
  %ctx = load ptr, ptr @job_ctx, align 8
  %total = load i64, ptr @job_total, align 8
  %parts = load i64, ptr @job_parts, align 8
  %c = sub i64 %parts, %rem
  %c1 = add i64 %c, 1
  %lo0 = mul i64 %total, %c
  %lo = udiv i64 %lo0, %parts
  %hi0 = mul i64 %total, %c1
  %hi = udiv i64 %hi0, %parts
  call void %fn(ptr %ctx, i64 %lo, i64 %hi)
  %prev = atomicrmw add ptr @completed, i32 1 seq_cst
  %now = add i32 %prev, 1
  %now64 = zext i32 %now to i64
  %last = icmp eq i64 %now64, %parts
  %tell = and i1 %last, %worker
  br i1 %tell, label %wake, label %done
wake:
  call void @wake_sleepers(ptr @completed, ptr @caller_sleepers, i32 1)
  br label %done
done:
  %ran1 = add i64 %ran, 1
  br label %claim
out:
  ret i64 %ran
}}

; Waits until *%word differs from %old and returns its new value: spins `spin` rounds
; (`pause`), then sleeps on the futex, counted in *%sleepers meanwhile (whoever changes
; *%word makes the wake-up call only when *%sleepers is not 0); without the futex
; (@use_futex 0) it sleeps 1, 2, 4 .. 1000 us at a time (uncounted) and looks again.
define internal i32 @await_change(ptr %word, i32 %old, ptr %sleepers) {{
entry:
  %rounds = load i64, ptr @spin, align 8
  br label %spin
spin:
  %i = phi i64 [ 0, %entry ], [ %i1, %spin_next ]
  %vs = load atomic i32, ptr %word acquire, align 4
  %news = icmp ne i32 %vs, %old
  br i1 %news, label %changed, label %spin_next
spin_next:
  call void @cpu_relax()
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, %rounds
  br i1 %more, label %spin, label %choose
choose:
  %uf = load atomic i32, ptr @use_futex monotonic, align 4
  %futex = icmp ne i32 %uf, 0
  br i1 %futex, label %sleep, label %nap
nap:
  %us = phi i32 [ 1, %choose ], [ %us2, %nap_again ]
  %u = call i32 @usleep(i32 %us)
  %vn = load atomic i32, ptr %word acquire, align 4
  %newn = icmp ne i32 %vn, %old
  br i1 %newn, label %changed, label %nap_again
nap_again:
  %us1 = shl i32 %us, 1
  %long = icmp ugt i32 %us1, 1000
  %us2 = select i1 %long, i32 1000, i32 %us1
  br label %nap
sleep:
  %a = atomicrmw add ptr %sleepers, i32 1 seq_cst
  %vz = load atomic i32, ptr %word seq_cst, align 4
  %still = icmp eq i32 %vz, %old
  br i1 %still, label %sleep1, label %woken
sleep1:
  call void @futex_wait(ptr %word, i32 %old)
  br label %woken
woken:
  %b = atomicrmw sub ptr %sleepers, i32 1 seq_cst
  %vw = load atomic i32, ptr %word acquire, align 4
  %neww = icmp ne i32 %vw, %old
  br i1 %neww, label %changed, label %sleep
changed:
  %v = phi i32 [ %vs, %spin ], [ %vw, %woken ], [ %vn, %nap ]
  ret i32 %v
}}

; Saves the calling thread's CPU affinity in %saved and widens it by the process's (its
; main thread's), so that the workers it starts inherit both; false (nothing changed)
; where libc cannot tell or the calls fail.
define internal i1 @take_process_affinity(ptr %saved) {{
entry:
  %mask = alloca [{_AFFINITY_BYTES} x i8], align 8
  %getpid = load ptr, ptr @getpid_fn, align 8
  %get = load ptr, ptr @getaffinity_fn, align 8
  %set = load ptr, ptr @setaffinity_fn, align 8
  %no_pid = icmp eq ptr %getpid, null
  %no_get = icmp eq ptr %get, null
  %no_set = icmp eq ptr %set, null
  %no0 = or i1 %no_pid, %no_get
  %no = or i1 %no0, %no_set
  br i1 %no, label %fail, label %save
save:
  %rs = call i32 %get(i32 0, intptr {_AFFINITY_BYTES}, ptr %saved)
  %saved_ok = icmp eq i32 %rs, 0
  br i1 %saved_ok, label %read, label %fail
read:
  %pid = call i32 %getpid()
  %rp = call i32 %get(i32 %pid, intptr {_AFFINITY_BYTES}, ptr %mask)
  %read_ok = icmp eq i32 %rp, 0
  br i1 %read_ok, label %union, label %fail
union:
  %k = phi i64 [ 0, %read ], [ %k1, %union ]
  %own_at = getelementptr inbounds i64, ptr %saved, i64 %k
  %process_at = getelementptr inbounds i64, ptr %mask, i64 %k
  %own_bits = load i64, ptr %own_at, align 8
  %process_bits = load i64, ptr %process_at, align 8
  %both = or i64 %own_bits, %process_bits
  store i64 %both, ptr %process_at, align 8
  %k1 = add i64 %k, 1
  %more = icmp ult i64 %k1, {_AFFINITY_BYTES // 8}
  br i1 %more, label %union, label %write
write:
  %rw = call i32 %set(i32 0, intptr {_AFFINITY_BYTES}, ptr %mask)
  %ok = icmp eq i32 %rw, 0
  ret i1 %ok
fail:
  ret i1 false
}}

define internal void @restore_affinity(ptr %saved, i1 %taken) {{
entry:
  br i1 %taken, label %restore, label %out
restore:
  %set = load ptr, ptr @setaffinity_fn, align 8
  %r = call i32 %set(i32 0, intptr {_AFFINITY_BYTES}, ptr %saved)
  br label %out
out:
  ret void
}}

; A worker: %arg is the generation current when it was created.
define internal ptr @worker(ptr %arg) {{
entry:
  %g0 = ptrtoint ptr %arg to i64
  %seen0 = trunc i64 %g0 to i32
  br label %wait
wait:
  %seen = phi i32 [ %seen0, %entry ], [ %g, %run ]
  %g = call i32 @await_change(ptr @gen, i32 %seen, ptr @sleepers)
  %stop = load atomic i32, ptr @shutdown acquire, align 4
  %quit = icmp ne i32 %stop, 0
  br i1 %quit, label %exit, label %run
run:
  %n = call i64 @participate(i32 %g, i1 true)
  %s = atomicrmw add ptr @worker_chunks, i64 %n monotonic
  br label %wait
exit:
  ret ptr null
}}

; Starts workers until there are %want (or creation fails); the lock is held. They start
; with the process's CPU affinity and the caller's (`take_process_affinity`); the caller
; keeps its own.
define internal void @grow(i64 %want) {{
entry:
  %own = alloca [{_AFFINITY_BYTES} x i8], align 8
  %cap = icmp ult i64 %want, {MAX_WORKERS}
  %target = select i1 %cap, i64 %want, i64 {MAX_WORKERS}
  %n0 = load i64, ptr @nthreads, align 8
  %any = icmp ult i64 %n0, %target
  br i1 %any, label %pin, label %done
pin:
  %taken = call i1 @take_process_affinity(ptr %own)
  br label %loop
loop:
  %n = load i64, ptr @nthreads, align 8
  %short = icmp ult i64 %n, %target
  br i1 %short, label %create, label %out
create:
  %slot = getelementptr inbounds [{MAX_WORKERS} x intptr], ptr @threads, i64 0, i64 %n
  %g = load atomic i32, ptr @gen monotonic, align 4
  %g64 = zext i32 %g to i64
  %arg = inttoptr i64 %g64 to ptr
  %rc = call i32 @pthread_create(ptr %slot, ptr null, ptr @worker, ptr %arg)
  %ok = icmp eq i32 %rc, 0
  br i1 %ok, label %count, label %out
count:
  %n1 = add i64 %n, 1
  store i64 %n1, ptr @nthreads, align 8
  br label %loop
out:
  call void @restore_affinity(ptr %own, i1 %taken)
  br label %done
done:
  ret void
}}

define void @{POOL_RUN}(ptr %fn, ptr %ctx, i64 %total, i64 %parts) {{
entry:
  %two = icmp ugt i64 %parts, 1
  br i1 %two, label %lock, label %alone
alone:
  call void %fn(ptr %ctx, i64 0, i64 %total)
  ret void
lock:
  %pair = cmpxchg ptr @lock, i32 0, i32 1 acquire monotonic
  %locked = extractvalue {{ i32, i1 }} %pair, 1
  br i1 %locked, label %check, label %alone
check:
  %stop = load atomic i32, ptr @shutdown acquire, align 4
  %down = icmp ne i32 %stop, 0
  br i1 %down, label %unlock_alone, label %start
unlock_alone:
  store atomic i32 0, ptr @lock release, align 4
  br label %alone
start:
  %want = sub i64 %parts, 1
  call void @grow(i64 %want)
  store ptr %fn, ptr @job_fn, align 64
  store ptr %ctx, ptr @job_ctx, align 8
  store i64 %total, ptr @job_total, align 8
  store i64 %parts, ptr @job_parts, align 8
  store atomic i32 0, ptr @completed seq_cst, align 4
  %g0 = load atomic i32, ptr @gen monotonic, align 4
  %g = add i32 %g0, 1
  %g64 = zext i32 %g to i64
  %hi = shl i64 %g64, 32
  %t = or i64 %hi, %parts
  store atomic i64 %t, ptr @ticket seq_cst, align 8
  store atomic i32 %g, ptr @gen seq_cst, align 4
  call void @wake_sleepers(ptr @gen, ptr @sleepers, i32 2147483647)
  %ran = call i64 @participate(i32 %g, i1 false)
  br label %wait
wait:
  %c = load atomic i32, ptr @completed seq_cst, align 4
  %c64 = zext i32 %c to i64
  %fin = icmp eq i64 %c64, %parts
  br i1 %fin, label %finished, label %wait1
wait1:
  %c1 = call i32 @await_change(ptr @completed, i32 %c, ptr @caller_sleepers)
  br label %wait
finished:
  store atomic i32 0, ptr @lock release, align 4
  ret void
}}

; Stops and joins every worker; later foralls run on their calling thread.
define void @xl_pool_shutdown() {{
entry:
  br label %lock
lock:
  %pair = cmpxchg ptr @lock, i32 0, i32 1 acquire monotonic
  %locked = extractvalue {{ i32, i1 }} %pair, 1
  br i1 %locked, label %stop, label %yield
yield:
  %y = call i32 @sched_yield()
  br label %lock
stop:
  store atomic i32 1, ptr @shutdown seq_cst, align 4
  %g0 = load atomic i32, ptr @gen monotonic, align 4
  %g = add i32 %g0, 1
  store atomic i32 %g, ptr @gen seq_cst, align 4
  call void @futex_wake(ptr @gen, i32 2147483647)
  %n = load i64, ptr @nthreads, align 8
  br label %join
join:
  %i = phi i64 [ 0, %stop ], [ %i1, %join_body ]
  %more = icmp ult i64 %i, %n
  br i1 %more, label %join_body, label %out
join_body:
  %slot = getelementptr inbounds [{MAX_WORKERS} x intptr], ptr @threads, i64 0, i64 %i
  %tid = load intptr, ptr %slot
  %rc = call i32 @pthread_join(intptr %tid, ptr null)
  %i1 = add i64 %i, 1
  br label %join
out:
  store i64 0, ptr @nthreads, align 8
  store atomic i32 0, ptr @lock release, align 4
  ret void
}}

; In a forked child: the workers of the parent do not exist here.
define void @xl_pool_after_fork() {{
  store i64 0, ptr @nthreads, align 8
  store i32 0, ptr @sleepers, align 64
  store i32 0, ptr @caller_sleepers, align 64
  store i32 0, ptr @lock, align 64
  ret void
}}

define i64 @xl_pool_workers() {{
  %n = load i64, ptr @nthreads, align 8
  ret i64 %n
}}

define i64 @xl_pool_worker_chunks() {{
  %n = load atomic i64, ptr @worker_chunks monotonic, align 8
  ret i64 %n
}}

define void @xl_pool_set_spin(i64 %rounds) {{
  store i64 %rounds, ptr @spin, align 8
  ret void
}}

; 1: wait on the futex (where there is one), 0: sleep in usleep steps. Threads asleep on
; the futex when it changes are still woken (they are counted as sleepers).
define i32 @xl_pool_set_futex(i32 %on) {{
entry:
  %nr = load intptr, ptr @futex_nr
  %has = icmp sge intptr %nr, 0
  %want = icmp ne i32 %on, 0
  %use = and i1 %has, %want
  %v = zext i1 %use to i32
  store atomic i32 %v, ptr @use_futex seq_cst, align 4
  ret i32 %v
}}

define i32 @xl_pool_uses_futex() {{
  %v = load atomic i32, ptr @use_futex monotonic, align 4
  ret i32 %v
}}

define void @xl_pool_set_affinity_fns(ptr %getpid, ptr %get, ptr %set) {{
  store ptr %getpid, ptr @getpid_fn, align 8
  store ptr %get, ptr @getaffinity_fn, align 8
  store ptr %set, ptr @setaffinity_fn, align 8
  ret void
}}
"""


class _Pool:
    """The compiled runtime (kept alive for the whole process) and its entry points."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(None)
        for name in ("pthread_create", "pthread_join", "sched_yield", "syscall", "usleep"):
            address = _libc_address(libc, name)
            if not address:
                raise BackendError(f"the thread pool needs '{name}', which this process lacks")
            llvm.add_symbol(name, address)
        data_layout = str(host_target_machine().target_data)
        module = llvm.parse_assembly(_runtime_ir(host_triple(), data_layout))
        module.triple = host_triple()
        module.data_layout = data_layout
        module.verify()
        self._engine = llvm.create_mcjit_compiler(module, new_jit_target_machine())
        self._engine.finalize_object()
        self.run_address = self._engine.get_function_address(POOL_RUN)

        def entry(name: str, restype: type | None, *argtypes: type) -> Callable[..., Any]:
            return ctypes.CFUNCTYPE(restype, *argtypes)(self._engine.get_function_address(name))

        self.shutdown = entry("xl_pool_shutdown", None)
        self.after_fork = entry("xl_pool_after_fork", None)
        self.workers = entry("xl_pool_workers", ctypes.c_int64)
        self.worker_chunks = entry("xl_pool_worker_chunks", ctypes.c_int64)
        self.set_spin = entry("xl_pool_set_spin", None, ctypes.c_int64)
        self.set_futex = entry("xl_pool_set_futex", ctypes.c_int32, ctypes.c_int32)
        self.uses_futex = entry("xl_pool_uses_futex", ctypes.c_int32)
        # Linux's affinity calls (absent elsewhere: workers then keep their creator's).
        entry("xl_pool_set_affinity_fns", None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(
            *(
                _libc_address(libc, name)
                for name in ("getpid", "sched_getaffinity", "sched_setaffinity")
            )
        )


def _libc_address(libc: ctypes.CDLL, name: str) -> int | None:
    try:
        return ctypes.cast(getattr(libc, name), ctypes.c_void_p).value
    except AttributeError:
        return None


_POOL: list[_Pool] = []
_POOL_LOCK = threading.Lock()


def pool() -> _Pool:
    """The process's pool: compiled once (whichever Python thread gets here first),
    registered with LLVM's symbol table as `xl_forall_run`, joined at exit and reset in
    forked children. Its engine is never freed."""
    if not _POOL:
        with _POOL_LOCK:
            if not _POOL:
                p = _Pool()
                spin = os.environ.get(SPIN_ENV, "").strip()
                p.set_spin(int(spin) if spin.isdigit() else DEFAULT_SPIN)  # digits only: >= 0
                _set_wait(p, os.environ.get(WAIT_ENV, "").strip() or "futex", f"{WAIT_ENV}=")
                llvm.add_symbol(POOL_RUN, p.run_address)
                atexit.register(p.shutdown)
                os.register_at_fork(after_in_child=p.after_fork)
                _POOL.append(p)
    return _POOL[0]


def pool_run_address() -> int:
    return pool().run_address


def pool_workers() -> int:
    """How many worker threads the pool has started (and not yet joined) in this process."""
    return int(pool().workers())


def pool_worker_chunks() -> int:
    """How many forall chunks the pool's workers (not the calling threads) have run so far."""
    return int(pool().worker_chunks())


def set_pool_spin(rounds: int) -> None:
    """Spin rounds before a waiting thread sleeps on its futex (0: sleep at once)."""
    pool().set_spin(max(0, int(rounds)))


def _set_wait(p: _Pool, mode: str, where: str) -> str:
    if mode not in WAIT_MODES:
        raise BackendError(f"{where}{mode!r}: the pool's wait is one of {', '.join(WAIT_MODES)}")
    return "futex" if p.set_futex(int(mode == "futex")) else "sleep"


def set_pool_wait(mode: str) -> str:
    """How a thread that spun `spin` rounds waits: `futex` (where there is one: Linux on the
    architectures of `_FUTEX_NR`) or `sleep` (`usleep` steps, the fallback elsewhere).
    Returns the mode in effect: `sleep` where there is no futex, whatever was asked."""
    return _set_wait(pool(), mode, "")


def pool_wait() -> str:
    """The wait mode in effect (`set_pool_wait`)."""
    return "futex" if pool().uses_futex() else "sleep"


__all__ = [
    "DEFAULT_SPIN",
    "MAX_WORKERS",
    "POOL_RUN",
    "SPIN_ENV",
    "WAIT_ENV",
    "WAIT_MODES",
    "futex_number",
    "pool",
    "pool_run_address",
    "pool_wait",
    "pool_worker_chunks",
    "pool_workers",
    "set_pool_spin",
    "set_pool_wait",
]
