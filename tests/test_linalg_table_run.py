"""Every op of the op table in f32, compiled and checked against the NumPy reference
(helpers and the other element types: linalg_table_cases.py, test_linalg_table_run_*.py)."""

from __future__ import annotations

from linalg_table_cases import check_all, check_function

import xlinalg
from xlinalg.backend.jit import JitModule
from xlinalg.dialects.linalg import NamedStructuredOp
from xlinalg.dialects.linalg.samples import RUN_CASES, sample
from xlinalg.lowering.pipeline import lower_to_llvm


def test_every_f32_op_runs_and_matches_the_reference() -> None:
    assert check_all("f32", schedule=False) == sum(1 for _, e in RUN_CASES if e == "f32")


def test_unit_windows_and_mixed_precision_run() -> None:
    """Default strides/dilations (no attribute) and i8 x i8 -> i32 / f16 x f16 -> f32 ops."""
    cases = [("conv_2d_nhwc_hwcf", "i8", "i32", True), ("depthwise_conv_2d_nhwc_hwc_q", "i8",
             "i32", False), ("pooling_nchw_sum", "f16", "f32", True),
             ("conv_1d_ncw_fcw", "f16", "f32", False), ("matmul", "i8", "i32", True)]
    samples = {f"k{i}": sample(n, e, out_elt=o, unit_windows=u) for i, (n, e, o, u)
               in enumerate(cases)}
    text = "".join(s.function(sym) for sym, s in samples.items())
    module = xlinalg.parse(text)
    ops = {op.parent_op().sym_name.data: op  # type: ignore[union-attr]
           for op in module.walk() if isinstance(op, NamedStructuredOp)}
    jit = JitModule(lower_to_llvm(module.clone()))
    for sym, s in samples.items():
        check_function(jit.function(sym), ops[sym], s, 3, f"{s.name} {s.types}")
