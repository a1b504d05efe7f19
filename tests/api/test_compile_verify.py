"""Where `xlinalg.compile` verifies: the user's IR where it enters, the transformed
payload only on request or when lowering fails (then a `VerifyFailure`, not the
lowering's error)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i32, i64
from xdsl.rewriter import InsertPoint, Rewriter

import xlinalg
from xlinalg import api
from xlinalg.errors import VerifyFailure
from xlinalg.ir.stage_times import StageTimes

PAYLOAD = """
func.func @add(%a: memref<8xf32>, %b: memref<8xf32>) {
  linalg.add ins(%a, %a : memref<8xf32>, memref<8xf32>) outs(%b : memref<8xf32>)
  return
}
"""


def _invalid_op():
    """An `arith.addi` of an i32 and an i64: does not verify."""
    x = arith.ConstantOp(IntegerAttr(1, i32))
    y = arith.ConstantOp(IntegerAttr(1, i64))
    return [x, y, arith.AddiOp(x.result, y.result, result_type=i32)]


def _break_after_schedule(monkeypatch: pytest.MonkeyPatch) -> None:
    """The transformed payload gets an op that does not verify (as a faulty transform would)."""
    real = api.materialize_remaining_encodings

    def broken(module):
        real(module)
        func = module.body.block.first_op
        Rewriter.insert_op(_invalid_op(), InsertPoint.at_start(func.body.block))

    monkeypatch.setattr(api, "materialize_remaining_encodings", broken)


def _run(kernel) -> None:
    a = np.arange(8, dtype=np.float32)
    b = np.zeros(8, dtype=np.float32)
    kernel(a, b)
    np.testing.assert_array_equal(b, a + a)


def test_default_compile_skips_the_transformed_verify() -> None:
    times = StageTimes()
    kernel = xlinalg.compile(PAYLOAD, timings=times)
    assert "verify-transformed" not in times
    _run(kernel)
    times = StageTimes()
    _run(xlinalg.compile(PAYLOAD, verify_transformed=True, timings=times))
    assert "verify-transformed" in times


def test_a_module_payload_is_verified_where_it_enters() -> None:
    module = xlinalg.parse(PAYLOAD)
    func = module.body.block.first_op
    Rewriter.insert_op(_invalid_op(), InsertPoint.at_start(func.body.block))
    with pytest.raises(VerifyFailure, match="payload"):
        xlinalg.compile(module)


def test_invalid_transformed_ir_is_reported_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    _break_after_schedule(monkeypatch)
    with pytest.raises(VerifyFailure, match=r"transformed payload(.|\n)*but got i64"):
        xlinalg.compile(PAYLOAD, verify_transformed=True)


def test_a_lowering_failure_on_invalid_ir_is_a_verify_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _break_after_schedule(monkeypatch)

    def failing(module, timings=None):
        raise RuntimeError("lowering tripped over the invalid op")

    monkeypatch.setattr(api, "lower_to_llvm", failing)
    with pytest.raises(VerifyFailure, match=r"transformed payload(.|\n)*but got i64"):
        xlinalg.compile(PAYLOAD)


def test_a_lowering_failure_on_valid_ir_keeps_its_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(module, timings=None):
        raise RuntimeError("a lowering bug")

    monkeypatch.setattr(api, "lower_to_llvm", failing)
    with pytest.raises(RuntimeError, match="a lowering bug"):
        xlinalg.compile(PAYLOAD)
