"""`transform.structured.generalize` applies to structured (LinalgOp) ops only: on
`linalg.softmax`, `pack`, `unpack` and the three winograd transforms it is a silenceable
failure that leaves the op unchanged, as upstream (`iree-opt`: suppressed by
`failures(suppress)`). Their computation is checked instead through their decompositions
and loop lowerings (run/tiled columns). The op list is `handwritten_cases.NOT_GENERALIZABLE`
(the coverage rows' generalize column reads "n/a")."""

from __future__ import annotations

import pytest

import xlinalg
from xlinalg.coverage.linalg_handwritten_cases import NOT_GENERALIZABLE, exercised
from xlinalg.errors import TransformFailure

from support import iree_opt, needs_iree
from support.handwritten import CASES, kernel_text

_ONE_PER_OP = {c.op: c for c in reversed(CASES) if c.dtype == "f32"}


def _schedule(op: str, suppress: bool) -> str:
    generalize = (
        "%g = transform.structured.generalize %op : (!transform.any_op) -> !transform.any_op"
    )
    if suppress:
        generalize = (
            "transform.sequence %root : !transform.any_op failures(suppress) {\n"
            "    ^bb0(%x: !transform.any_op):\n      " + generalize + "\n    }"
        )
    return f"""module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %op = transform.structured.match ops{{["linalg.{op}"]}} in %root : (!transform.any_op) -> !transform.any_op
    {generalize}
    transform.yield
  }}
}}"""


def test_cases_are_the_coverage_entry() -> None:
    assert set(_ONE_PER_OP) == set(NOT_GENERALIZABLE)
    for op, case in _ONE_PER_OP.items():
        assert {name for name, _ in exercised(xlinalg.parse(kernel_text(case, True)))} == {op}


@pytest.mark.parametrize("op", NOT_GENERALIZABLE)
def test_generalize_is_a_silenceable_failure(op: str) -> None:
    payload = kernel_text(_ONE_PER_OP[op], True)
    with pytest.raises(TransformFailure, match=f"cannot generalize 'linalg.{op}'") as info:
        xlinalg.apply_schedule(payload, _schedule(op, suppress=False))
    assert info.value.silenceable
    suppressed = xlinalg.apply_schedule(payload, _schedule(op, suppress=True))
    assert f"linalg.{op} " in str(suppressed)
    assert "linalg.generic" not in str(suppressed)


@needs_iree
@pytest.mark.parametrize("op", NOT_GENERALIZABLE)
def test_upstream_also_leaves_the_op(op: str) -> None:
    payload = kernel_text(_ONE_PER_OP[op], True).replace("m(4) r(3)", "fmr(F_4_3)")
    out = iree_opt(payload + "\n" + _schedule(op, suppress=True), "--transform-interpreter")
    assert f"linalg.{op} " in out
    assert "linalg.generic" not in out
