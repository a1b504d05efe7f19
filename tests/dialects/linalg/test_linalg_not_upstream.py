"""The 28 ops of the spec that IREE 3.13's iree-opt does not register (`NOT_UPSTREAM`: the
6 legacy ops, `select`, the 21 named unary/binary elementwise ops): iree-opt rejects each
one as unknown, in our printed memref and tensor forms, so the coverage table's
`yes,not-iree` (round trips through ours only) is exactly right; every other table op is
round-tripped through iree-opt by test_linalg_table.py."""

from __future__ import annotations

from pathlib import Path

import pytest

import xlinalg
from xlinalg.coverage.linalg_samples import NOT_UPSTREAM, TABLE_OPS, dtypes_of, sample

from support import needs_iree, run_iree_opt


def test_the_not_upstream_ops_are_the_documented_28() -> None:
    legacy = {
        "elemwise_unary",
        "elemwise_binary",
        "matmul_transpose_a",
        "matmul_transpose_b",
        "batch_matmul_transpose_a",
        "batch_matmul_transpose_b",
    }
    assert legacy | {"select"} <= NOT_UPSTREAM
    assert len(NOT_UPSTREAM) == 28
    assert set(TABLE_OPS) >= NOT_UPSTREAM


@needs_iree
@pytest.mark.parametrize("name", sorted(NOT_UPSTREAM))
def test_iree_opt_does_not_register_the_op(name: str, tmp_path: Path) -> None:
    for kind in ("memref", "tensor"):
        text = str(xlinalg.parse(sample(name, dtypes_of(name)[0]).function("f", kind)))
        path = tmp_path / f"{name}_{kind}.mlir"
        path.write_text(text)
        proc = run_iree_opt(path)
        assert proc.returncode != 0
        assert f"custom op 'linalg.{name}' is unknown" in proc.stderr
