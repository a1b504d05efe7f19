"""f16, bf16, f64: every op of the op table that takes floats, compiled (one module per
element type) and checked against the NumPy reference."""

from __future__ import annotations

import pytest

from support.linalg_table import RUN_GROUPS, check_all, expected_count


@pytest.mark.slow
@pytest.mark.parametrize("elt", RUN_GROUPS["test_linalg_table_run_dtypes.py"])
def test_every_op_runs_in_every_float_type(elt: str) -> None:
    assert check_all(elt, schedule=False) == expected_count(elt, schedule=False)
