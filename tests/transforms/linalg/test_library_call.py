"""`linalg.generic {library_call = "name"}` lowers to `func.call @name` with the operand memrefs."""

from __future__ import annotations

import re

import numpy as np
import pytest
from xdsl.dialects import func, memref

import xlinalg
from xlinalg.coverage.linalg_handwritten_cases import RUN_CASES, TILED_CASES, exercised
from xlinalg.errors import BackendError, LoweringError
from xlinalg.lowering.pipeline import lower_to_loops

GENERIC = """\
  linalg.generic {{indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]{extra}}}
      ins(%a, %b : {t}, {t}) outs(%c : {t}) {{
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    %q = arith.mulf %s, %s : f32
    linalg.yield %q : f32
  }}"""


def payload(
    callee_type: str,
    call_type: str = "memref<7x5xf32>",
    name: str = "square_sum",
    define: bool = True,
) -> str:
    library = (
        (
            f"func.func @{name}(%a: {callee_type}, %b: {callee_type}, %c: {callee_type}) {{\n"
            + GENERIC.format(t=callee_type, extra="")
            + "\n  return\n}\n"
        )
        if define
        else ""
    )
    return (
        "#map = affine_map<(d0, d1) -> (d0, d1)>\n"
        + library
        + f"func.func @k(%a: {call_type}, %b: {call_type}, %c: {call_type}) {{\n"
        + GENERIC.format(t=call_type, extra=f', library_call = "{name}"')
        + "\n  return\n}\n"
    )


def test_prints_and_lowers_to_a_call() -> None:
    module = xlinalg.parse(payload("memref<7x5xf32>"))
    assert 'library_call = "square_sum"' in str(module)
    lower_to_loops(module)
    calls = [op for op in module.walk() if isinstance(op, func.CallOp)]
    assert len(calls) == 1
    assert calls[0].callee.string_value() == "square_sum"
    k = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "k")
    assert list(calls[0].arguments) == list(k.body.block.args)


@pytest.mark.parametrize(
    "callee_type",
    ["memref<7x5xf32>", "memref<?x?xf32>", "memref<7x5xf32, strided<[?, ?], offset: ?>>"],
)
def test_execution_calls_the_module_function(callee_type: str) -> None:
    assert exercised(xlinalg.parse(payload(callee_type))) == set(
        RUN_CASES["test_library_call.py::test_execution_calls_the_module_function"]
    )
    kernel = xlinalg.compile(payload(callee_type), entry="k")
    rng = np.random.default_rng(0)
    a, b = (
        rng.standard_normal((7, 5), dtype=np.float32),
        rng.standard_normal((7, 5), dtype=np.float32),
    )
    c = np.zeros((7, 5), np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, (a + b) ** 2, rtol=1e-6)
    assert kernel.check(a, b, np.zeros_like(c)).ok


def test_cast_to_compatible_parameter_types() -> None:
    module = xlinalg.parse(payload("memref<?x?xf32>"))
    lower_to_loops(module)
    casts = [op for op in module.walk() if isinstance(op, memref.CastOp)]
    assert len(casts) == 3


def test_tiled_generic_calls_the_library_on_each_tile() -> None:
    schedule = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match attributes {library_call = "square_sum"} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %k tile_sizes [3, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}"""
    text = payload("memref<?x?xf32, strided<[?, ?], offset: ?>>")
    assert exercised(xlinalg.parse(text)) == set(
        TILED_CASES["test_library_call.py::test_tiled_generic_calls_the_library_on_each_tile"]
    )
    kernel = xlinalg.compile(text, schedule=schedule, entry="k")
    rng = np.random.default_rng(1)
    a, b = (
        rng.standard_normal((7, 5), dtype=np.float32),
        rng.standard_normal((7, 5), dtype=np.float32),
    )
    c = np.zeros((7, 5), np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, (a + b) ** 2, rtol=1e-6)


def test_undefined_library_call_is_a_clear_error() -> None:
    text = payload("memref<7x5xf32>", name="no_such_kernel", define=False)
    module = xlinalg.parse(text)
    lower_to_loops(module)
    decl = [
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.sym_name.data == "no_such_kernel"
    ]
    assert len(decl) == 1
    assert decl[0].is_declaration
    with pytest.raises(
        BackendError, match="external function 'no_such_kernel', which is not allowed"
    ):
        xlinalg.compile(text, entry="k")


def test_incompatible_signature_is_a_lowering_error() -> None:
    text = (
        payload("memref<7x5xf32>")
        .replace(
            "func.func @square_sum(%a: memref<7x5xf32>, %b: memref<7x5xf32>, %c: memref<7x5xf32>)",
            "func.func @square_sum(%a: memref<5x7xf32>, %b: memref<7x5xf32>, %c: memref<7x5xf32>)",
        )
        .replace(
            "ins(%a, %b : memref<7x5xf32>, memref<7x5xf32>) outs(%c : memref<7x5xf32>) {\n  ^bb0",
            "ins(%a, %b : memref<5x7xf32>, memref<7x5xf32>) outs(%c : memref<7x5xf32>) {\n  ^bb0",
            1,
        )
    )
    with pytest.raises(
        LoweringError,
        match=re.escape(
            "operand #0 of type memref<7x5xf32> does not match parameter type memref<5x7xf32>"
        ),
    ):
        xlinalg.compile(text, entry="k")
