"""The LLVM options xlinalg sets for its O3 pipeline (`xlinalg.host.LLVM_OPTIONS`)."""

from __future__ import annotations

import llvmlite.binding as llvm
import pytest

from xlinalg.backend.jit import optimize_module
from xlinalg.host import (
    LLVM_OPTIONS,
    host_has_feature,
    host_target_machine,
    host_triple,
)


def _table_loop() -> str:
    """A loop of 8 iterations (strided stores) whose body (a 120-instruction chain on a constant-table
    load) is too large to unroll on its size, but folds to a constant once unrolled: the
    case LLVM's unroll-cost simulation exists for."""
    chain, prev = [], "%v"
    for j in range(60):
        chain.append(f"  %t{j} = mul i32 {prev}, {prev}\n  %u{j} = xor i32 %t{j}, {j + 3}")
        prev = f"%u{j}"
    body = "\n".join(chain)
    return f"""
@tbl = internal constant [8 x i32] [i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8]
define void @f(ptr noalias %p) {{
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%n, %loop]
  %a = getelementptr [8 x i32], ptr @tbl, i64 0, i64 %i
  %v = load i32, ptr %a
{body}
  %k = mul i64 %i, 3
  %q = getelementptr i32, ptr %p, i64 %k
  store i32 {prev}, ptr %q
  %n = add i64 %i, 1
  %c = icmp ult i64 %n, 8
  br i1 %c, label %loop, label %exit
exit:
  ret void
}}
"""


@pytest.mark.perf
@pytest.mark.skipif(
    not host_has_feature("avx512f"),
    reason="without AVX-512's scatter the loop vectoriser folds this loop to constant stores "
    "too, so its output cannot tell whether the unroll-cost simulation ran",
)
def test_unroll_cost_simulation_is_off() -> None:
    assert "-unroll-max-iteration-count-to-analyze=0" in LLVM_OPTIONS
    tm = host_target_machine()  # sets the options
    module = llvm.parse_assembly(_table_loop())
    module.triple = host_triple()
    module.data_layout = str(tm.target_data)
    optimize_module(module, tm)
    text = str(module)
    # With the simulation LLVM fully unrolls the loop because it folds (8 scalar constant
    # stores); without it the loop is left to the loop vectoriser (one vector of lanes).
    assert text.count("store i32 ") == 0, text
