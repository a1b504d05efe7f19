"""Ops that upstream implements with `TransformEachOpTrait` (applyTransformToEach) are
applied to EVERY target: a target that fails silenceably does not stop the others, the
failures of all targets are reported together (in target order) as one silenceable
failure, and the handle holds the results of the targets that succeeded. Checked against
`iree-opt --transform-interpreter` on a handle to [tensor.empty, linalg.matmul]: the first
is the wrong op kind, the second is transformed under failures(suppress) and, with
failures(propagate), before the failure is reported."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.errors import TransformFailure
from xlinalg.interpreter.diagnostics import ApplyToEach

from support import generalize_transform_op, iree_opt, needs_iree

PAYLOAD = """func.func @mm(%a: tensor<10x16xf32>, %b: tensor<16x12xf32>, %c: tensor<10x12xf32>) -> tensor<10x12xf32> {
  %e = tensor.empty() : tensor<10x12xf32>
  %r = linalg.matmul ins(%a, %b : tensor<10x16xf32>, tensor<16x12xf32>) outs(%c : tensor<10x12xf32>) -> tensor<10x12xf32>
  %e2 = tensor.empty() : tensor<10x12xf32>
  return %r : tensor<10x12xf32>
}
"""

TRANSFORMS = {
    "generalize": "%g = transform.structured.generalize %x : (!transform.any_op) -> !transform.any_op",
}

SCHEDULE = """module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    transform.sequence %root : !transform.any_op failures({outer}) {{
    ^bb0(%r: !transform.any_op):
      transform.sequence %r : !transform.any_op failures({inner}) {{
      ^bb1(%s: !transform.any_op):
        %x = transform.structured.match ops{{["tensor.empty", "linalg.matmul"]}} in %s : (!transform.any_op) -> !transform.any_op
        {transform}
      }}
    }}
    transform.yield
  }}
}}
"""


def _schedule(name: str, inner: str, outer: str = "suppress") -> str:
    return SCHEDULE.format(transform=TRANSFORMS[name], inner=inner, outer=outer)


def _check_matmul(ir: str) -> None:
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal(s, dtype=np.float32) for s in ((10, 16), (16, 12), (10, 12)))
    out = xlinalg.compile(ir)(a, b, c.copy())
    np.testing.assert_allclose(out, c + a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
@pytest.mark.parametrize("inner", ["suppress", "propagate"])
def test_second_target_is_transformed_after_the_first_fails(name: str, inner: str) -> None:
    # the generalized matmul: tests/filecheck/transform/structured/generalize.mlir
    _check_matmul(str(xlinalg.apply_schedule(PAYLOAD, _schedule(name, inner))))


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_every_failure_is_reported_in_target_order(name: str) -> None:
    with pytest.raises(TransformFailure) as info:
        xlinalg.apply_schedule(PAYLOAD, _schedule(name, "propagate", "propagate"))
    message = str(info.value)
    assert message.count("error:") == 1
    assert message.count(f"transform.structured.{name}") == 1
    # both tensor.empty targets (payload lines 2 and 4), in target order
    assert message.count("payload op 'tensor.empty'") == 2
    assert message.index("<payload>:2:") < message.index("<payload>:4:")


@needs_iree
@pytest.mark.parametrize("name", sorted(TRANSFORMS))
@pytest.mark.parametrize("inner", ["suppress", "propagate"])
def test_upstream_transforms_the_second_target_too(name: str, inner: str) -> None:
    out = iree_opt(PAYLOAD + _schedule(name, inner), "--transform-interpreter")
    payload = out.split("module attributes {transform.with_named_sequence}")[0]
    assert "linalg.matmul" not in payload
    assert payload.count("linalg.generic") == 1


UNROLL = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [5] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %e = transform.structured.match ops{["tensor.empty"]} in %root : (!transform.any_op) -> !transform.any_op
    %x = transform.merge_handles %e, %l : !transform.any_op
    transform.sequence %root : !transform.any_op failures(suppress) {
    ^bb0(%r: !transform.any_op):
      transform.loop.unroll %x factor = 2 : !transform.any_op
    }
    transform.yield
  }
}
"""


def _unrolled(ir: str) -> bool:
    payload = ir.split("module attributes {transform.with_named_sequence}")[0]
    return "scf.for" not in payload and payload.count("linalg.matmul ins") == 2


def test_loop_unroll_skips_a_wrong_kind_target() -> None:
    """[tensor.empty, scf.for (2 trips)]: the loop is still unrolled by 2 (into its body)."""
    # the unrolled loop: tests/filecheck/transform/loop/unroll.mlir
    _check_matmul(str(xlinalg.apply_schedule(PAYLOAD, UNROLL)))


@needs_iree
def test_upstream_unrolls_the_loop_after_a_wrong_kind_target() -> None:
    assert _unrolled(iree_opt(PAYLOAD + UNROLL, "--transform-interpreter"))


def test_apply_to_each_definite_failure_propagates_at_once() -> None:
    each = ApplyToEach(generalize_transform_op())
    done: list[int] = []

    def apply_to_each() -> None:
        for index, kind in enumerate([True, None, False, None]):
            with each.target(f"target {index}: "):
                if kind is not None:
                    raise TransformFailure(f"bad {index}", silenceable=kind)
                done.append(index)

    with pytest.raises(TransformFailure) as info:
        apply_to_each()
    assert not info.value.silenceable
    assert "target 2: bad 2" in str(info.value)
    assert done == [1]


def test_apply_to_each_reports_all_silenceable_failures_in_order() -> None:
    each = ApplyToEach(generalize_transform_op())
    done: list[int] = []
    for index in range(4):
        with each.target(f"target {index}: "):
            if index % 2 == 0:
                raise TransformFailure(f"bad {index}", silenceable=True)
            done.append(index)
    each.fail("wrong kind 4")
    assert done == [1, 3]
    with pytest.raises(TransformFailure) as info:
        each.finish()
    err = info.value
    assert err.silenceable
    assert err.location == "schedule.mlir:3:5"
    assert err.message == (
        "transform.structured.generalize: target 0: bad 0; target 2: bad 2; wrong kind 4"
    )
    assert isinstance(err.__cause__, TransformFailure)
    ApplyToEach(generalize_transform_op()).finish()  # nothing recorded: no failure
