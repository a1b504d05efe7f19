"""Every op of the op table in f32, compiled and checked against the NumPy reference, and the
mixed element types of the spec's casting rules (helpers and the other element types:
support/linalg_table.py, test_linalg_table_run_*.py)."""

from __future__ import annotations

import pytest

import xlinalg
from xlinalg.backend.jit import JitModule
from xlinalg.coverage.linalg_samples import MIXED_CASES, sample
from xlinalg.dialects.linalg import NamedStructuredOp
from xlinalg.lowering.pipeline import lower_to_llvm

from support.linalg_table import RUN_GROUPS, check_all, check_function, expected_count


@pytest.mark.slow
@pytest.mark.parametrize("elt", RUN_GROUPS["test_linalg_table_run.py"])
def test_every_op_runs_and_matches_the_reference(elt: str) -> None:
    assert check_all(elt, schedule=False) == expected_count(elt, schedule=False)


def test_mixed_precision_runs() -> None:
    """i8 x i8 -> i32, f16/bf16 -> f32, widening/narrowing copies, default (no attribute)
    strides/dilations: `MIXED_CASES`, all in one module."""
    samples = {
        f"k{i}": sample(n, e, out_elt=o, unit_windows=u)
        for i, (n, e, o, u) in enumerate(MIXED_CASES)
    }
    for s in samples.values():  # really mixed: inputs and output differ
        assert s.types[0] != s.types[s.n_inputs], s
    text = "".join(s.function(sym) for sym, s in samples.items())
    module = xlinalg.parse(text)
    ops = {
        op.parent_op().sym_name.data: op  # type: ignore[union-attr]
        for op in module.walk()
        if isinstance(op, NamedStructuredOp)
    }
    jit = JitModule(lower_to_llvm(module.clone()))
    for sym, s in samples.items():
        check_function(jit.function(sym), ops[sym], s, 3, f"{s.name} {s.types}")
