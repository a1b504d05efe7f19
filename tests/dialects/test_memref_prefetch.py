"""`memref.prefetch`: upstream's syntax (parsed, printed, checked against iree-opt), its
verifier, and its lowering to `llvm.prefetch` (x86 prefetcht0 / prefetchw on the element's
address) in a kernel that still computes what NumPy computes."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.errors import ParseFailure, VerifyFailure

from support import needs_iree, run_iree_opt

PREFETCHES = """func.func @f(%m: memref<4x4xf32>, %i: index) {
  memref.prefetch %m[%i, %i], write, locality<1>, data : memref<4x4xf32>
  memref.prefetch %m[%i, %i], read, locality<3>, instr : memref<4x4xf32>
  func.return
}
"""

# b[i] = 2 a[i], prefetching a[i + 16] (read, keep in all levels) and b[i + 16] (write,
# no temporal locality) while in bounds
KERNEL = """func.func @f(%a: memref<64xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %j = arith.addi %i, %c16 : index
    %in = arith.cmpi ult, %j, %c64 : index
    scf.if %in {
      memref.prefetch %a[%j], read, locality<3>, data : memref<64xf32>
      memref.prefetch %b[%j], write, locality<0>, data : memref<64xf32>
    }
    %v = memref.load %a[%i] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %b[%i] : memref<64xf32>
  }
  func.return
}
"""


def _prefetch_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "memref.prefetch" in line]


def test_round_trip_keeps_the_hints() -> None:
    printed = str(xlinalg.parse(PREFETCHES))
    assert _prefetch_lines(printed) == [
        "memref.prefetch %m[%i, %i], write, locality<1>, data : memref<4x4xf32>",
        "memref.prefetch %m[%i, %i], read, locality<3>, instr : memref<4x4xf32>",
    ]
    assert _prefetch_lines(str(xlinalg.parse(printed))) == _prefetch_lines(printed)


@needs_iree
def test_printed_form_is_upstream_syntax() -> None:
    """iree-opt reads what we print and prints the same ops (its value names are %argN)."""
    printed = str(xlinalg.parse(PREFETCHES))
    proc = run_iree_opt(printed)
    assert proc.returncode == 0, proc.stderr
    upstream = [
        line.replace("%arg0", "%m").replace("%arg1", "%i") for line in _prefetch_lines(proc.stdout)
    ]
    assert upstream == _prefetch_lines(printed)


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("%m[%i], read, locality<4>, data", VerifyFailure, "'localityHint' failed to satisfy"),
        (
            "%m[%i], fetch, locality<3>, data",
            ParseFailure,
            "rw specifier has to be 'read' or 'write'",
        ),
        ("%m[%i], read, locality<3>, code", ParseFailure, "cache type has to be 'data' or 'instr'"),
        ("%m[], read, locality<3>, data", VerifyFailure, "too few indices: expected 1, got 0"),
    ],
)
def test_bad_prefetch_is_a_clear_error(text: str, error: type[Exception], message: str) -> None:
    payload = f"""func.func @f(%m: memref<4xf32>, %i: index) {{
  memref.prefetch {text} : memref<4xf32>
  func.return
}}
"""
    with pytest.raises(error, match=message):
        xlinalg.compile(payload)


@pytest.mark.perf
def test_lowers_to_prefetch_instructions() -> None:
    kernel = xlinalg.compile(KERNEL)
    ir = kernel._jit.optimized_ir
    assert "@llvm.prefetch.p0(ptr nonnull %" in ir
    assert ", i32 0, i32 3, i32 1)" in ir
    assert ", i32 1, i32 0, i32 1)" in ir
    asm = kernel._jit.asm(kernel.entry)
    assert "prefetcht0" in asm
    assert "prefetchw" in asm
    # a prefetch reads nothing into the program and writes nothing: `a` stays read-only
    assert [arg.written for arg in kernel.signature.args] == [False, True]
    a = np.arange(64, dtype=np.float32)
    b = np.zeros(64, np.float32)
    kernel(a, b)
    np.testing.assert_array_equal(b, 2 * a)
