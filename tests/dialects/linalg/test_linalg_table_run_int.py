"""i32, i8, i16, i64: every integer-capable op of the op table, compiled (one module per
element type) and checked against the NumPy reference (unsigned ops on signless integers
with unsigned semantics: the operands include negative bit patterns)."""

from __future__ import annotations

import pytest

from support.linalg_table import RUN_GROUPS, check_all, expected_count


@pytest.mark.slow
@pytest.mark.parametrize("elt", RUN_GROUPS["test_linalg_table_run_int.py"])
def test_every_integer_op_runs(elt: str) -> None:
    assert check_all(elt, schedule=False) == expected_count(elt, schedule=False)
