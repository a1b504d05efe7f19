"""Upstream syntax xDSL 0.74 lacks, now ours: `arith.trunci` with `overflow<nsw, nuw>`
(`xlinalg/dialects/arith_trunci.py`), the custom forms of `memref.copy` and `memref.cast`
(`xlinalg/dialects/memref.py`), and `linalg.unpack`'s generic form as upstream prints it
(a discardable `operandSegmentSizes` our custom form must not repeat). Each parses and
prints here, goes through `iree-opt` (custom and generic form) and back to the same IR,
and the kernels using them compile and run."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

import xlinalg
from xlinalg.errors import VerifyFailure

from support import iree_opt, needs_iree

TRUNCI = """func.func @trunc(%a: i32) -> (i8, i16, i8) {
  %0 = arith.trunci %a overflow<nsw, nuw> : i32 to i8
  %1 = arith.trunci %a overflow<nuw> : i32 to i16
  %2 = arith.trunci %a : i32 to i8
  return %0, %1, %2 : i8, i16, i8
}
"""

MEMREF = """func.func @copy(%m: memref<4xf32>, %n: memref<4xf32>) -> memref<?xf32> {
  memref.copy %m, %n : memref<4xf32> to memref<4xf32>
  %c = memref.cast %m : memref<4xf32> to memref<?xf32>
  return %c : memref<?xf32>
}
"""

UNPACK = """func.func @unpack(%p: tensor<3x5x4xf32>, %u: tensor<9x5xf32>) -> tensor<9x5xf32> {
  %0 = linalg.unpack %p inner_dims_pos = [0] inner_tiles = [4] into %u : tensor<3x5x4xf32> -> tensor<9x5xf32>
  return %0 : tensor<9x5xf32>
}
"""


def _generic(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


def _normalized(text: str) -> str:
    return re.sub(r"%[\w.$-]+", "%v", text)


def test_custom_forms_print_as_upstream() -> None:
    trunc = str(xlinalg.parse(TRUNCI))
    assert "arith.trunci %a overflow<nsw,nuw> : i32 to i8" in trunc
    assert "arith.trunci %a overflow<nuw> : i32 to i16" in trunc
    assert "arith.trunci %a : i32 to i8" in trunc  # no flags: none printed
    mem = str(xlinalg.parse(MEMREF))
    assert "memref.copy %m, %n : memref<4xf32> to memref<4xf32>" in mem
    assert "%c = memref.cast %m : memref<4xf32> to memref<?xf32>" in mem


def test_generic_forms_parse() -> None:
    text = """func.func @g(%a: i32, %m: memref<4xf32>, %n: memref<4xf32>) -> i8 {
  %0 = "arith.trunci"(%a) <{overflowFlags = #arith.overflow<nsw>}> : (i32) -> i8
  "memref.copy"(%m, %n) : (memref<4xf32>, memref<4xf32>) -> ()
  %c = "memref.cast"(%m) : (memref<4xf32>) -> memref<?xf32>
  return %0 : i8
}"""
    printed = str(xlinalg.parse(text))
    assert "arith.trunci %a overflow<nsw> : i32 to i8" in printed
    assert "memref.copy %m, %n" in printed
    assert "memref.cast %m" in printed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("%0 = arith.trunci %a : i32 to i64", "Destination bit-width must be smaller"),
        ("memref.copy %m, %w : memref<4xf32> to memref<5xf32>", "same shape"),
        ("memref.copy %m, %i : memref<4xf32> to memref<4xi32>", "same element type"),
    ],
)
def test_verifier_rules(text: str, message: str) -> None:
    src = (
        "func.func @v(%a: i32, %m: memref<4xf32>, %w: memref<5xf32>, %i: memref<4xi32>) {\n"
        f"  {text}\n  return\n}}"
    )
    with pytest.raises(VerifyFailure, match=message):
        xlinalg.parse(src)


def test_overflow_flags_on_extensions_are_rejected_as_upstream() -> None:
    with pytest.raises(xlinalg.errors.ParseFailure):
        xlinalg.parse(
            "func.func @e(%a: i8) -> i32 {\n %0 = arith.extui %a overflow<nuw> : i8 to i32\n"
            " return %0 : i32\n}"
        )


@needs_iree
@pytest.mark.parametrize("text", [TRUNCI, MEMREF, UNPACK], ids=["trunci", "memref", "unpack"])
@pytest.mark.parametrize("generic", [False, True], ids=["custom", "generic"])
def test_round_trip_through_upstream(text: str, generic: bool) -> None:
    ours = xlinalg.parse(text)
    for source in (str(ours), _generic(ours)):  # upstream reads both of our forms
        upstream_text = iree_opt(source, *(["--mlir-print-op-generic"] if generic else []))
        back = xlinalg.parse(upstream_text)
        assert _normalized(str(back)) == _normalized(str(ours))
        iree_opt(str(back))  # and what we print from upstream's text parses upstream again


def test_our_generic_unpack_has_no_segment_sizes() -> None:
    """Upstream's unpack has one variadic operand group: no operandSegmentSizes property."""
    generic = _generic(xlinalg.parse(UNPACK))
    line = next(line for line in generic.splitlines() if "linalg.unpack" in line)
    assert "operandSegmentSizes" not in line


def test_kernels_with_the_new_syntax_run() -> None:
    src = """func.func @f(%x: memref<6xi32>, %lo: memref<6xi8>, %out: memref<6xf32>, %src: memref<6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  scf.for %i = %c0 to %c6 step %c1 {
    %v = memref.load %x[%i] : memref<6xi32>
    %t = arith.trunci %v overflow<nsw> : i32 to i8
    memref.store %t, %lo[%i] : memref<6xi8>
  }
  %d = memref.cast %src : memref<6xf32> to memref<?xf32>
  %s = memref.cast %d : memref<?xf32> to memref<6xf32>
  memref.copy %s, %out : memref<6xf32> to memref<6xf32>
  return
}"""
    x = np.array([-128, -3, 0, 5, 100, 127], np.int32)  # in i8 range: nsw holds
    lo = np.zeros(6, np.int8)
    out = np.zeros(6, np.float32)
    src_values = np.arange(6, dtype=np.float32) / 3
    xlinalg.compile(src, entry="f")(x, lo, out, src_values)
    np.testing.assert_array_equal(lo, x.astype(np.int8))
    np.testing.assert_array_equal(out, src_values)
