"""`failure_of`: a payload transformation's `TransformFailure` re-raised as a failure of
the transform op (message, silenceable/definite kind, partial results bound first)."""

from __future__ import annotations

import pytest

from xlinalg.errors import TransformFailure
from xlinalg.interpreter.diagnostics import failure_of

from support import generalize_transform_op


@pytest.mark.parametrize("silenceable", [True, False])
def test_message_and_kind_of_the_inner_failure(silenceable: bool) -> None:
    op = generalize_transform_op()
    inner = TransformFailure("no good", silenceable=silenceable)
    with pytest.raises(TransformFailure) as info, failure_of(op, "cannot do X: ", " (here)"):
        raise inner
    err = info.value
    assert err.message.endswith("transform.structured.generalize: cannot do X: no good (here)")
    assert err.location == "schedule.mlir:3:5"
    assert err.silenceable is silenceable
    assert err.__cause__ is inner


def test_kind_override_and_partial_results_bound_first() -> None:
    op = generalize_transform_op()
    calls: list[str] = []
    with (
        pytest.raises(TransformFailure) as info,
        failure_of(op, silenceable=False, before=lambda: calls.append("bound")),
    ):
        raise TransformFailure("soft", silenceable=True)
    assert not info.value.silenceable
    assert calls == ["bound"]
    assert info.value.message.endswith("transform.structured.generalize: soft")


def test_success_and_other_errors_pass_through() -> None:
    op = generalize_transform_op()
    calls: list[str] = []
    with failure_of(op, before=lambda: calls.append("bound")):
        pass
    with (
        pytest.raises(ValueError, match="a bug"),
        failure_of(op, before=lambda: calls.append("bound")),
    ):
        raise ValueError("a bug")
    assert calls == []
