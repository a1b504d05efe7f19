"""The compile-speed machinery is correct: caches never hand out stale or shared state.

- parse cache (`xlinalg.api._parse_text`): fresh clones, keyed by the text;
- per-process LLVM state (target machine) gives identical code for identical input;
- two schedules on the same payload give different, correct kernels;
- memoised text/attributes of the LLVM conversion leave the emitted IR deterministic;
- stage timings, the GC pause and the forkserver warm-up.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import xlinalg
from xlinalg.api import _parse_text
from xlinalg.backend.gc_pause import gc_paused
from xlinalg.backend.jit import JitModule
from xlinalg.host import host_target_machine
from xlinalg.ir.stage_times import StageTimes
from xlinalg.lowering.pipeline import lower_to_llvm
from xlinalg.warmup import import_all_modules, warm_up

PAYLOAD = """
func.func @mm(%A: memref<{m}x16xf32>, %B: memref<16x32xf32>, %C: memref<{m}x32xf32>) {{
  linalg.matmul ins(%A, %B : memref<{m}x16xf32>, memref<16x32xf32>) outs(%C : memref<{m}x32xf32>)
  return
}}
"""

SCHEDULE = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %tm = transform.tune.knob<"tm"> options = [4, 8] -> !transform.param<i64>
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [%tm, 16, 4]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %t vector_sizes [%tm, 16, 4]
      : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}
"""


def _check(kernel: xlinalg.Kernel) -> None:
    result = kernel.check(*kernel.make_inputs(seed=3))
    assert result.ok, result.message


def test_parse_returns_fresh_clones_of_one_parse() -> None:
    text = PAYLOAD.format(m=8)
    first, second = xlinalg.parse(text), xlinalg.parse(text)
    assert first is not second
    assert str(first) == str(second)
    # mutating one parse (as apply_schedule does in place) leaves the next one intact
    first.body.block.first_op.detach()
    assert str(xlinalg.parse(text)) == str(second)
    assert _parse_text.cache_info().hits >= 2


def test_parse_cache_keeps_locations() -> None:
    text = PAYLOAD.format(m=8)
    cold = _parse_text.__wrapped__(text, "<payload>")
    warm = xlinalg.parse(text, "payload")
    locations = [str(op.location) for op in warm.walk()]
    assert locations == [str(op.location) for op in cold.walk()]
    assert any(":3:" in loc for loc in locations)  # file:line:col of the linalg.matmul


def test_parse_errors_are_not_cached() -> None:
    bad = PAYLOAD.format(m=8).replace("linalg.matmul", "linalg.matmull")
    for _ in range(2):  # raised each time (a failed parse is not remembered as a module)
        with pytest.raises(xlinalg.errors.ParseFailure):
            xlinalg.parse(bad)


def test_changed_payload_text_is_never_served_from_the_cache() -> None:
    small = xlinalg.compile(PAYLOAD.format(m=8), schedule=SCHEDULE, knobs={"tm": 4})
    large = xlinalg.compile(PAYLOAD.format(m=24), schedule=SCHEDULE, knobs={"tm": 4})
    assert small.signature.args[0].shape == (8, 16)
    assert large.signature.args[0].shape == (24, 16)
    _check(small)
    _check(large)


def test_two_schedules_on_one_payload_give_different_correct_kernels() -> None:
    payload = PAYLOAD.format(m=16)
    k4 = xlinalg.compile(payload, schedule=SCHEDULE, knobs={"tm": 4})
    k8 = xlinalg.compile(payload, schedule=SCHEDULE, knobs={"tm": 8})
    untiled = xlinalg.compile(payload)
    assert k4.lowered.llvm_ir != k8.lowered.llvm_ir != untiled.lowered.llvm_ir
    for kernel in (k4, k8, untiled):
        _check(kernel)
    # the first kernel still runs correctly after the others were compiled
    _check(k4)


def test_same_input_same_llvm_ir_and_machine_code() -> None:
    payload = PAYLOAD.format(m=16)
    a = xlinalg.compile(payload, schedule=SCHEDULE, knobs={"tm": 8})
    b = xlinalg.compile(payload, schedule=SCHEDULE, knobs={"tm": 8})
    assert a.lowered.llvm_ir == b.lowered.llvm_ir  # memoised emitter text is deterministic
    assert a._jit.optimized_ir == b._jit.optimized_ir
    assert a._jit.asm("mm") == b._jit.asm("mm")
    args = a.make_inputs(seed=1)
    out_a, out_b = [x.copy() for x in args], [x.copy() for x in args]
    a(*out_a)
    b(*out_b)
    assert np.array_equal(out_a[2], out_b[2])


def test_shared_target_machine_compiles_a_lowered_module_identically() -> None:
    assert host_target_machine() is host_target_machine()
    module = xlinalg.apply_schedule(PAYLOAD.format(m=8), SCHEDULE, {"tm": 4})
    lowered = lower_to_llvm(module)
    first, second = JitModule(lowered), JitModule(lowered)
    assert first.optimized_ir == second.optimized_ir
    assert first.asm() == second.asm()


def test_stage_times_cover_the_compile_path() -> None:
    times = StageTimes()
    kernel = xlinalg.compile(PAYLOAD.format(m=8), schedule=SCHEDULE, knobs={"tm": 4}, timings=times)
    expected = {
        "parse-payload",
        "apply-schedule",
        "linalg-to-loops",
        "to-llvm",
        "xl-convert-vector-to-llvm",
        "emit-llvm-ir",
        "llvm-parse-verify",
        "llvm-o3",
        "mcjit-codegen",
    }
    assert expected <= set(times)
    assert set(times) == set(times.cpu)
    assert all(v >= 0 for v in (*times.values(), *times.cpu.values()))
    stages = sum(
        v
        for k, v in times.items()
        if k != "to-llvm" and not k.startswith("xl-") and k not in ("signatures", "emit-llvm-ir")
    )
    assert stages <= kernel.compile_seconds * 1.05 + 1e-3


def test_gc_pause_restores_the_collector_state() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # not switched on when it was off
    finally:
        gc.enable()
    with pytest.raises(xlinalg.errors.XlinalgError):
        xlinalg.compile("func.func @f( {")
    assert gc.isenabled()  # also after a failed compile


def test_warm_up_imports_everything_and_compiles() -> None:
    assert import_all_modules() > 100
    warm_up()  # the tuner's forkserver runs this; it must compile and run cleanly
