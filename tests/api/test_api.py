"""End to end through the public API: parse → schedule → lower → JIT → check → time."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import xlinalg
from xlinalg.errors import BackendError, KnobError, ParseFailure, TransformFailure, XlinalgError

MATMUL_ODD = """
func.func @mm(%A: memref<37x29xf32>, %B: memref<29x23xf32>, %C: memref<37x23xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<37x23xf32>)
  linalg.matmul ins(%A, %B : memref<37x29xf32>, memref<29x23xf32>) outs(%C : memref<37x23xf32>)
  return
}
"""

MATMUL_DYN = """
func.func @mm(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  linalg.matmul ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  return
}
"""

SCHEDULE = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %tm = transform.param.constant 8 : i64 -> !transform.param<i64>
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [%tm, 16, 5] interchange = [1, 0, 2]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %g = transform.structured.generalize %t : (!transform.any_op) -> !transform.any_op
    %i = transform.structured.interchange %g iterator_interchange = [2, 0, 1] : (!transform.any_op) -> !transform.any_op
    transform.loop.unroll %l#1 factor = 2 : !transform.any_op
    transform.yield
  }
}
"""


def _inputs(k: xlinalg.Kernel, **sizes: int) -> list[np.ndarray]:
    return k.make_inputs(seed=3, sizes={key.replace("_", ":"): v for key, v in sizes.items()})


def test_untiled_matmul_matches_numpy() -> None:
    k = xlinalg.compile(MATMUL_ODD)
    a, b, c = _inputs(k)
    c[...] = 7.0  # the fill must overwrite it
    k(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    assert k.check(a, b, c).ok
    assert k.flops() == 2 * 37 * 29 * 23


def test_scheduled_matmul_non_dividing_tiles() -> None:
    k = xlinalg.compile(MATMUL_ODD, schedule=SCHEDULE)
    assert "scf.for" in str(k.module)
    a, b, c = _inputs(k)
    k(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_dynamic_shapes() -> None:
    k = xlinalg.compile(MATMUL_DYN, schedule=SCHEDULE)
    a = np.random.default_rng(0).standard_normal((19, 11)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((11, 17)).astype(np.float32)
    c = np.zeros((19, 17), np.float32)
    k(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    assert k.check(a, b, c).ok
    assert k.flops(a, b, c) == 2 * 19 * 11 * 17


def test_check_detects_a_wrong_kernel() -> None:
    """A kernel whose code differs from the payload it is checked against must fail the check."""
    wrong = xlinalg.compile(MATMUL_ODD.replace("arith.constant 0.0", "arith.constant 0.5"))
    a, b, c = _inputs(wrong)
    assert wrong.check(a, b, c).ok
    wrong.payload = xlinalg.parse(MATMUL_ODD)  # now the reference is the true matmul
    result = wrong.check(a, b, c)
    assert not result.ok
    assert result.message


def test_template_with_knobs_and_resolved_export_reapply(root: Path) -> None:
    space = root / "search_spaces" / "matmul_tile.mlir"
    knobs = xlinalg.list_knobs(space)
    names = {k.name for k in knobs}
    assert {"tile_m", "tile_n", "tile_k", "reg_m", "reg_n"} <= names
    values = {k.name: k.options[-1] if k.kind == "knob" else 0 for k in knobs}
    values.update(tile_m=16, tile_n=64, tile_k=32, reg_m=4, reg_n=16, unroll_n=1)
    payload = MATMUL_ODD
    direct = xlinalg.apply_schedule(xlinalg.parse(payload), space, values)
    resolved = xlinalg.resolve_knobs(space, values)
    assert 'transform.tune.knob<"tile_m"> = 16 from options' in resolved
    again = xlinalg.apply_schedule(xlinalg.parse(payload), resolved)
    assert str(direct) == str(again)
    k = xlinalg.compile(payload, schedule=resolved)
    a, b, c = _inputs(k)
    k(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_knob_value_outside_options(root: Path) -> None:
    space = root / "search_spaces" / "matmul_tile.mlir"
    with pytest.raises(KnobError, match="tile_m"):
        xlinalg.resolve_knobs(space, {"tile_m": 3})


def test_malformed_payload_has_location(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f(%a: memref<4xf32>) {\n  linalg.matmul ins(%a : \n}\n")
    with pytest.raises(ParseFailure) as err:
        xlinalg.parse(bad)
    assert str(err.value).startswith(f"{bad}:")


def test_unknown_op_is_a_parse_error() -> None:
    with pytest.raises(ParseFailure, match=re.escape("linalg.frobnicate")):
        xlinalg.parse('func.func @f() {\n  "linalg.frobnicate"() : () -> ()\n  return\n}')


def test_missing_file() -> None:
    with pytest.raises(XlinalgError, match="does not exist"):
        xlinalg.parse("no/such/file.mlir")


def test_disallowed_external_symbol_is_rejected() -> None:
    payload = """
    func.func private @system(i64) -> i32
    func.func @evil(%a: memref<4xf32>) {
      %c = arith.constant 0 : i64
      %r = func.call @system(%c) : (i64) -> i32
      return
    }
    """
    with pytest.raises(BackendError, match="system"):
        xlinalg.compile(payload)


def test_timing_reports_median_and_cv() -> None:
    k = xlinalg.compile(MATMUL_ODD)
    t = k.time(*_inputs(k))
    assert 0 < t.min_s <= t.median_s
    assert t.cv >= 0
    assert t.repeats >= 1


def test_kernel_named_like_a_libm_function_is_rejected() -> None:
    payload = """
    func.func @powf(%a: memref<4xf32>) {
      return
    }
    """
    with pytest.raises(BackendError, match="powf"):
        xlinalg.compile(payload)


# --------------------------------------------------------------- extra bindings, expensive checks

BOUND_SCHEDULE = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly},
      %target: !transform.any_op {transform.consumed}, %size: !transform.param<i64> {transform.readonly}) {
    %t, %l:2 = transform.structured.tile_using_for %target tile_sizes [%size, 0, 4]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
"""


def _matmul_of(module) -> list:
    return [op for op in module.walk() if op.name == "linalg.matmul"]


def test_compile_extra_bindings_from_a_module_payload() -> None:
    payload = xlinalg.parse(MATMUL_ODD)
    k = xlinalg.compile(payload, BOUND_SCHEDULE, extra_bindings=[_matmul_of(payload), [8]])
    steps = [op.step.owner.value.value.data for op in k.module.walk() if op.name == "scf.for"]
    assert sorted(steps) == [4, 8]
    assert "scf.for" not in str(payload)  # compile works on a copy; the binding was renamed
    assert k.check(*_inputs(k)).ok


def test_apply_schedule_extra_bindings_callable_for_text_payloads() -> None:
    module = xlinalg.apply_schedule(
        MATMUL_ODD, BOUND_SCHEDULE, extra_bindings=lambda m: [_matmul_of(m), [5]]
    )
    steps = sorted(op.step.owner.value.value.data for op in module.walk() if op.name == "scf.for")
    assert steps == [4, 5]


def test_extra_bindings_errors() -> None:
    with pytest.raises(TransformFailure, match="1 extra binding\\(s\\) were given"):
        xlinalg.apply_schedule(MATMUL_ODD, BOUND_SCHEDULE, extra_bindings=lambda m: [_matmul_of(m)])
    with pytest.raises(XlinalgError, match="extra binding #1 holds a str"):
        xlinalg.apply_schedule(
            MATMUL_ODD, BOUND_SCHEDULE, extra_bindings=lambda m: [_matmul_of(m), ["8"]]
        )
    with pytest.raises(XlinalgError, match="extra binding #0 must be a list"):
        xlinalg.apply_schedule(MATMUL_ODD, BOUND_SCHEDULE, extra_bindings=[8])
    with pytest.raises(XlinalgError, match="no schedule to bind them to"):
        xlinalg.compile(MATMUL_ODD, extra_bindings=[[8]])


def test_expensive_checks_flag_reaches_the_interpreter() -> None:
    # A handle to an op nested in a consumed payload op: reported with expensive checks,
    # not tracked without them (the spec's cheap mode only invalidates the consumed handle).
    schedule = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [8]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %inner = transform.structured.match ops{["linalg.matmul"]} in %l : (!transform.any_op) -> !transform.any_op
    transform.loop.unroll %l factor = 5 : !transform.any_op
    transform.annotate %inner "late" : !transform.any_op
    transform.yield
  }
}
"""
    with pytest.raises(TransformFailure, match="invalidated"):
        xlinalg.apply_schedule(MATMUL_ODD, schedule)
    xlinalg.apply_schedule(MATMUL_ODD, schedule, expensive_checks=False)
