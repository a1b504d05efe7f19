"""The transform-dialect coverage table is generated from the code."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlinalg.coverage.transform import (
    RENAMED,
    SPEC_OPS,
    coverage_table,
    format_transform_coverage,
    print_transform_coverage,
    transform_op_classes,
)
from xlinalg.coverage.transform import (
    tested_ops as collect_tested_ops,
)
from xlinalg.interpreter import TRANSFORM_IMPLS

TESTED_OPS: list[str] = []


def test_table_lists_the_73_spec_ops_then_the_extras() -> None:
    rows = coverage_table()
    spec = [r for r in rows if r.in_spec]
    assert len(SPEC_OPS) == 73
    assert [r.op for r in spec] == list(SPEC_OPS)
    extras = {r.op for r in rows if not r.in_spec}
    assert {
        "transform.get_parent_op",
        "transform.apply_patterns",
        "transform.param.constant",
    } <= extras
    assert not extras & set(SPEC_OPS)


def test_implemented_means_registered_and_interpreted() -> None:
    classes = transform_op_classes()
    for row in coverage_table():
        name = RENAMED.get(row.op, row.op)
        if row.implemented and not row.op.startswith("transform.apply_patterns."):
            assert classes[name] in TRANSFORM_IMPLS or name == "transform.yield", row.op
    by_op = {r.op: r for r in coverage_table()}
    assert by_op["transform.loop.peel"].implemented
    assert by_op["transform.split_handles"].implemented  # parsed as split_handle
    assert by_op["transform.gpu.map_forall_to_blocks"].implemented


def test_tests_come_from_tested_ops_lists(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text('TESTED_OPS = ["transform.loop.peel", "transform.cast"]\n')
    (tmp_path / "test_b.py").write_text(
        'TESTED_OPS: list[str] = ["transform.cast"]\nOTHER = ["transform.print"]\n'
    )
    (tmp_path / "helper.py").write_text('TESTED_OPS = ["transform.print"]\n')
    found = collect_tested_ops(tmp_path)
    assert found == {
        "transform.loop.peel": ["test_a.py"],
        "transform.cast": ["test_a.py", "test_b.py"],
    }
    rows = {r.op: r for r in coverage_table(tmp_path)}
    assert rows["transform.cast"].tests == ("test_a.py", "test_b.py")
    assert rows["transform.print"].tests == ()


def test_print_transform_coverage(capsys: pytest.CaptureFixture[str]) -> None:
    print_transform_coverage()
    out = capsys.readouterr().out
    assert out.startswith("Spec ops implemented: ")
    assert "| `transform.loop.peel` | yes | yes | " in out
    assert out.strip() == format_transform_coverage().strip()
