"""f16, f64, i8, i16, i64: the ops of `RUN_CASES` in those types (every elementwise-like op
and one op per payload form), compiled and checked against the NumPy reference."""

from __future__ import annotations

import pytest
from linalg_table_cases import check_all

from xlinalg.dialects.linalg.samples import RUN_CASES


@pytest.mark.parametrize("elt", ["f16", "f64", "i8", "i16", "i64"])
def test_ops_run_in_every_element_type(elt: str) -> None:
    assert check_all(elt, schedule=False) == sum(1 for _, e in RUN_CASES if e == elt)
