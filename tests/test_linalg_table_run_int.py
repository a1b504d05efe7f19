"""Every integer-capable op of the op table in i32, compiled and checked against the reference."""

from __future__ import annotations

from linalg_table_cases import check_all

from xlinalg.dialects.linalg.samples import RUN_CASES


def test_every_i32_op_runs_and_matches_the_reference() -> None:
    assert check_all("i32", schedule=False) == sum(1 for _, e in RUN_CASES if e == "i32")
