"""transform.bufferization.empty_tensor_to_alloc_tensor and one_shot_bufferize: effect,
options, return modes, consumed handles, upstream syntax (checked with iree-opt), and the
lowering pipeline after a schedule that bufferized already."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xlinalg
from xlinalg.errors import TransformFailure, VerifyFailure

from support import IREE_OPT, needs_iree, run_iree_opt

TESTED_OPS = [
    "transform.bufferization.empty_tensor_to_alloc_tensor",
    "transform.bufferization.one_shot_bufferize",
]

PAYLOAD = """
func.func @f(%a: tensor<16x8xf32>, %b: tensor<8x12xf32>) -> tensor<16x12xf32> {
  %e = tensor.empty() : tensor<16x12xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x12xf32>) -> tensor<16x12xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x12xf32>) outs(%f : tensor<16x12xf32>) -> tensor<16x12xf32>
  return %m : tensor<16x12xf32>
}
"""

DYNAMIC = """
func.func @g(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.copy ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
"""

ANY = "!transform.any_op"
EMPTY = '!transform.op<"tensor.empty">'
ALLOC = '!transform.op<"bufferization.alloc_tensor">'


def schedule(body: str) -> str:
    return (
        "module attributes {transform.with_named_sequence} {\n"
        f"  transform.named_sequence @__transform_main(%root: {ANY} {{transform.consumed}}) {{\n"
        f"{body}\n    transform.yield\n  }}\n}}\n"
    )


TO_ALLOC = (
    f'    %e = transform.structured.match ops{{["tensor.empty"]}} in %root : ({ANY}) -> {EMPTY}\n'
    f"    %a = transform.bufferization.empty_tensor_to_alloc_tensor %e : ({EMPTY}) -> {ALLOC}\n"
)
BUFFERIZE = (
    "    %b = transform.bufferization.one_shot_bufferize %root <bufferize_function_boundaries = true>"
    f" : ({ANY}) -> {ANY}\n"
)


def names(module) -> list[str]:
    return [op.name for op in module.walk()]


def test_empty_tensor_to_alloc_tensor_replaces_and_runs() -> None:
    # the lowering pipeline bufferizes alloc_tensor like tensor.empty
    k = xlinalg.compile(PAYLOAD, schedule(TO_ALLOC))
    a, b = k.make_inputs(seed=1)
    np.testing.assert_allclose(k(a, b), a @ b, rtol=1e-5, atol=1e-5)
    k = xlinalg.compile(DYNAMIC, schedule(TO_ALLOC))
    x = np.arange(7, dtype=np.float32)
    np.testing.assert_array_equal(k(x), x)


def test_empty_tensor_to_alloc_tensor_handle_type_is_checked() -> None:
    # a non-empty payload cannot reach it: the handle's type check fails (silenceable)
    wrong = TO_ALLOC.replace('ops{["tensor.empty"]}', 'ops{["linalg.fill"]}')
    with pytest.raises(TransformFailure, match=re.escape("tensor.empty")) as info:
        xlinalg.apply_schedule(PAYLOAD, schedule(wrong))
    assert info.value.silenceable


def test_empty_tensor_to_alloc_tensor_consumes_its_operand() -> None:
    body = TO_ALLOC + f'    transform.annotate %e "x" : {EMPTY}\n'
    with pytest.raises(TransformFailure, match=r"was (consumed|invalidated) by"):
        xlinalg.apply_schedule(PAYLOAD, schedule(body))


def test_one_shot_bufferize_module_then_lowering() -> None:
    k = xlinalg.compile(PAYLOAD, schedule(TO_ALLOC + BUFFERIZE))
    a, b = k.make_inputs(seed=2)
    np.testing.assert_allclose(k(a, b), a @ b, rtol=1e-5, atol=1e-5)
    assert k.check(a, b).ok


def test_one_shot_bufferize_result_is_the_bufferized_op_and_target_is_consumed() -> None:
    func = (
        f'    %f = transform.structured.match ops{{["func.func"]}} in %root : ({ANY}) -> {ANY}\n'
        "    %b = transform.bufferization.one_shot_bufferize %f <bufferize_function_boundaries = true>"
        f" : ({ANY}) -> {ANY}\n"
        f'    transform.annotate %b "done" : {ANY}\n'
    )
    out = xlinalg.apply_schedule(PAYLOAD, schedule(func))
    fn = next(op for op in out.walk() if op.name == "func.func")
    assert "done" in fn.attributes
    assert "tensor<" not in str(fn.function_type)
    with pytest.raises(TransformFailure, match=r"was (consumed|invalidated) by"):
        xlinalg.apply_schedule(
            PAYLOAD, schedule(func + f'    transform.annotate %f "late" : {ANY}\n')
        )


def test_spec_form_needs_the_module_as_target() -> None:
    func = (
        f'    %f = transform.structured.match ops{{["func.func"]}} in %root : ({ANY}) -> {ANY}\n'
        "    transform.bufferization.one_shot_bufferize %f {bufferize_function_boundaries = true}\n"
    )
    with pytest.raises(
        TransformFailure,
        match=re.escape("target_is_module is set but the target is payload op 'func.func'"),
    ) as info:
        xlinalg.apply_schedule(PAYLOAD, schedule(func))
    assert not info.value.silenceable


INSERT_ADD = """
func.func @h(%a: tensor<8xf32>) -> tensor<8xf32> {
  %z = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %t = tensor.insert %z into %a[%c0] : tensor<8xf32>
  %s = linalg.add ins(%a, %t : tensor<8xf32>, tensor<8xf32>) outs(%t : tensor<8xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}
"""


def test_memcpy_op_linalg_copy() -> None:
    linalg = BUFFERIZE.replace("= true>", '= true, memcpy_op = "linalg.copy">')
    k = xlinalg.compile(INSERT_ADD, schedule(linalg))
    x = np.arange(8, dtype=np.float32) + 5
    t = x.copy()
    t[0] = 1.0
    np.testing.assert_allclose(k(x), x + t)
    np.testing.assert_array_equal(x, np.arange(8, dtype=np.float32) + 5)  # read-only argument


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            "bufferize_function_boundaries = false",
            "bufferize_function_boundaries = false cannot be honoured: @f",
        ),
    ],
)
def test_options_that_cannot_be_honoured_are_definite_failures(options: str, message: str) -> None:
    body = f"    %b = transform.bufferization.one_shot_bufferize %root <{options}> : ({ANY}) -> {ANY}\n"
    with pytest.raises(TransformFailure, match=message) as info:
        xlinalg.apply_schedule(PAYLOAD, schedule(body))
    assert not info.value.silenceable


def test_layout_and_allow_return_allocs() -> None:
    body = (
        f"    %b = transform.bufferization.one_shot_bufferize layout{{FullyDynamicLayoutMap}} %root "
        f"<bufferize_function_boundaries = true> : ({ANY}) -> {ANY}\n"
    )
    with pytest.raises(
        TransformFailure,
        match="function_boundary_type_conversion = FullyDynamicLayoutMap cannot be honoured",
    ):
        xlinalg.apply_schedule(PAYLOAD, schedule(body))
    no_allocs = (
        f"    %b = transform.bufferization.one_shot_bufferize %root "
        f"<bufferize_function_boundaries = true, allow_return_allocs = false> : ({ANY}) -> {ANY}\n"
    )
    # static result: written into a caller-allocated buffer, nothing allocated is returned
    xlinalg.apply_schedule(PAYLOAD, schedule(no_allocs))
    with pytest.raises(
        TransformFailure, match="allow_return_allocs = false cannot be honoured: @g returns"
    ):
        xlinalg.apply_schedule(DYNAMIC, schedule(no_allocs))


def test_unbufferizable_payload_is_a_silenceable_failure_and_untouched() -> None:
    weird = """
func.func @w(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = scf.execute_region -> (tensor<4xf32>) {
    scf.yield %x : tensor<4xf32>
  }
  return %t : tensor<4xf32>
}
"""
    module = xlinalg.parse(weird)
    before = str(module)
    with pytest.raises(
        TransformFailure, match=re.escape("bufferization failed for payload op 'builtin.module'")
    ) as info:
        xlinalg.apply_schedule(
            module, schedule(BUFFERIZE.replace("= true>", "= true, allow_unknown_ops = true>"))
        )
    assert info.value.silenceable
    assert "allow_unknown_ops cannot be honoured" in str(info.value)
    assert str(module) == before
    suppressed = (
        "module attributes {transform.with_named_sequence} {\n"
        f"  transform.named_sequence @__transform_main(%root: {ANY} {{transform.readonly}}) {{\n"
        f"    transform.sequence %root : {ANY} failures(suppress) {{\n"
        f"    ^bb0(%r: {ANY}):\n"
        f"      %b = transform.bufferization.one_shot_bufferize %r <bufferize_function_boundaries = true> : ({ANY}) -> {ANY}\n"
        "    }\n    transform.yield\n  }\n}\n"
    )
    xlinalg.apply_schedule(module, suppressed)
    assert str(module) == before


def test_other_targets_and_bad_options_are_rejected() -> None:
    body = (
        f'    %m = transform.structured.match ops{{["linalg.matmul"]}} in %root : ({ANY}) -> {ANY}\n'
        f"    %b = transform.bufferization.one_shot_bufferize %m <bufferize_function_boundaries = true> : ({ANY}) -> {ANY}\n"
    )
    with pytest.raises(
        TransformFailure,
        match=re.escape("expected module or function target, got payload op 'linalg.matmul'"),
    ) as info:
        xlinalg.apply_schedule(PAYLOAD, schedule(body))
    assert info.value.silenceable  # as upstream (IREE 3.13)
    with pytest.raises(VerifyFailure, match=re.escape("unsupported memcpy op 'foo.copy'")):
        xlinalg.parse(schedule(BUFFERIZE.replace("= true>", '= true, memcpy_op = "foo.copy">')))
    with pytest.raises(VerifyFailure, match="unknown layout 'Weird'"):
        xlinalg.parse(
            schedule(
                BUFFERIZE.replace(
                    "one_shot_bufferize %root", "one_shot_bufferize layout{Weird} %root"
                )
            )
        )


ROUND_TRIP = [
    f"%a = transform.bufferization.empty_tensor_to_alloc_tensor %e : ({EMPTY}) -> {ALLOC}",
    f"%b = transform.bufferization.one_shot_bufferize %root : ({ANY}) -> {ANY}",
    (
        f"%b = transform.bufferization.one_shot_bufferize layout{{IdentityLayoutMap}} %root "
        f'<bufferize_function_boundaries = true, memcpy_op = "linalg.copy"> : ({ANY}) -> {ANY}'
    ),
]


@pytest.mark.parametrize("line", ROUND_TRIP)
def test_round_trip_and_upstream_parses_it(line: str) -> None:
    prefix = f'    %e = transform.structured.match ops{{["tensor.empty"]}} in %root : ({ANY}) -> {EMPTY}\n'
    text = schedule(prefix + "    " + line + "\n")
    printed = str(xlinalg.parse(text))
    assert line.split(" = ", 1)[1] in printed
    # the generic `<{...}>` spelling parses to the same op
    generic = line.replace(
        '<bufferize_function_boundaries = true, memcpy_op = "linalg.copy">',
        '<{bufferize_function_boundaries = true, memcpy_op = "linalg.copy"}>',
    )
    assert str(xlinalg.parse(schedule(prefix + "    " + generic + "\n"))) == printed
    if IREE_OPT is not None:
        done = run_iree_opt(printed)
        assert done.returncode == 0, done.stderr


@needs_iree
def test_same_schedule_upstream_gives_the_same_structure() -> None:
    """iree-opt applies the same schedule: same ops (alloc, fill, matmul on memrefs), no tensors."""
    sched = schedule(
        TO_ALLOC
        + BUFFERIZE.replace(
            "one_shot_bufferize %root", "one_shot_bufferize layout{IdentityLayoutMap} %root"
        )
    )
    done = run_iree_opt(PAYLOAD + sched, "--transform-interpreter")
    assert done.returncode == 0, done.stderr
    theirs = done.stdout.split("module attributes {transform.with_named_sequence}")[0]
    ours = str(xlinalg.apply_schedule(PAYLOAD, sched))
    for text in (theirs, ours):
        assert "tensor<" not in text
        assert "linalg.fill" in text
        assert "linalg.matmul" in text
        assert "memref<16x8xf32>" in text
