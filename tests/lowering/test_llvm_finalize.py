"""`xl-finalize-llvm` (`xlinalg/lowering/to_llvm/finalize.py`): cast pairs fold away, and the
first leftover in walk order (a cast still used, or an op no pass lowered) is reported."""

from __future__ import annotations

import pytest

import xlinalg
from xlinalg.dialects.context import make_context
from xlinalg.errors import LoweringError
from xlinalg.lowering.to_llvm.finalize import FinalizeLLVMPass

CAST_PAIR = "  %c = builtin.unrealized_conversion_cast %a : i64 to index\n  %d = builtin.unrealized_conversion_cast %c : index to i64\n"
LEFT_CAST = (
    "  %e = builtin.unrealized_conversion_cast %a : i64 to i32\n  %f = llvm.trunc %e : i32 to i16\n"
)
UNLOWERED = "  %z = arith.constant 0 : i64\n"


def _finalize(body: str) -> str:
    module = xlinalg.parse(f"llvm.func @f(%a: i64) -> i64 {{\n{body}  llvm.return %a : i64\n}}\n")
    FinalizeLLVMPass().apply(make_context(), module)
    return str(module)


def test_cast_pairs_fold_and_dead_casts_go() -> None:
    text = _finalize(CAST_PAIR)
    assert "unrealized_conversion_cast" not in text


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (LEFT_CAST, r"a value of type i64 is still used by 'llvm.trunc'"),
        (UNLOWERED, r"cannot lower 'arith.constant' to LLVM"),
        (
            CAST_PAIR + UNLOWERED + LEFT_CAST,
            r"cannot lower 'arith.constant' to LLVM",
        ),  # the first one
        (CAST_PAIR + LEFT_CAST + UNLOWERED, r"a value of type i64 is still used by 'llvm.trunc'"),
    ],
)
def test_the_first_leftover_is_reported(body: str, message: str) -> None:
    with pytest.raises(LoweringError, match=message):
        _finalize(body)
