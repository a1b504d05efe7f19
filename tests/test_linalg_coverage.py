"""The op coverage table (`xlinalg.coverage`) is derived from the case lists the tests run."""

from __future__ import annotations

import io

from xlinalg.coverage import CoverageRow, coverage_rows, format_coverage, print_coverage, register
from xlinalg.dialects.linalg import samples


def test_one_row_per_table_op_with_the_tested_cases() -> None:
    rows = {r.op: r for r in coverage_rows()}
    for name in samples.TABLE_OPS:
        row = rows[f"linalg.{name}"]
        assert row.run.split(",") == [e for n, e in samples.RUN_CASES if n == name]
        assert row.tiled.split(",") == [e for n, e in samples.TILED_CASES if n == name]
        assert row.generalize.split(",") == [e for n, e in samples.GENERALIZE_CASES if n == name]
        assert row.verify == f"{len(samples.verify_cases(name))} rules"
        assert row.parse == ("yes" if name in samples.NOT_UPSTREAM else "yes+iree")


def test_the_table_tests_parametrize_over_the_same_lists() -> None:
    import linalg_table_cases
    import test_linalg_table

    assert test_linalg_table.ROUND_TRIP_OPS is samples.ROUND_TRIP_OPS
    assert test_linalg_table.GENERALIZE_CASES is samples.GENERALIZE_CASES
    assert [c.text for c in test_linalg_table.VERIFY_CASES] == [
        c.text for c in samples.all_verify_cases()]
    assert linalg_table_cases.RUN_CASES is samples.RUN_CASES
    assert linalg_table_cases.TILED_CASES is samples.TILED_CASES


def test_print_and_register() -> None:
    out = io.StringIO()
    print_coverage(out)
    text = out.getvalue()
    assert text.splitlines()[0].split() == ["op", "parse", "verify", "generalize", "run", "tiled"]
    assert "linalg.conv_2d_nhwc_hwcf " in text and "linalg.fill_rng_2d " in text

    def extra() -> list[CoverageRow]:
        return [CoverageRow("test.op", "yes", "-", "-", "-", "-")]

    register(extra)
    try:
        assert "test.op" in format_coverage()
    finally:
        from xlinalg import coverage

        coverage._SOURCES.remove(extra)
