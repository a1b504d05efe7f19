"""linalg.map / linalg.reduce: assembly (short and long forms), verifier, generalize, execution, tiling."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xlinalg
from xlinalg.coverage.linalg_handwritten_cases import (
    GENERALIZE_CASES,
    IREE_ROUND_TRIP,
    MAP_REDUCE_DTYPES,
    MAP_REDUCE_VERIFY_CASES,
    RUN_CASES,
    TILED_CASES,
    exercised,
)
from xlinalg.dialects.linalg import GenericOp
from xlinalg.dialects.linalg.map_reduce import MapOp, ReduceOp
from xlinalg.errors import XlinalgError
from xlinalg.reference.function import run_function
from xlinalg.transforms.linalg.generalize import generalize

from support import iree_opt, needs_iree
from support.linalg_forms import MAP_REDUCE


def _ops(module, cls):
    return [op for op in module.walk() if isinstance(op, cls)]


def test_short_and_long_forms_print_and_reparse() -> None:
    # how each form prints: tests/filecheck/linalg/map.mlir and reduce.mlir
    text = str(xlinalg.parse(MAP_REDUCE))
    assert str(xlinalg.parse(text)) == text


def test_short_form_builds_upstream_region() -> None:
    module = xlinalg.parse(MAP_REDUCE)
    reduce_op = _ops(module, ReduceOp)[0]
    block = reduce_op.combiner.block
    payload = block.first_op
    assert payload is not None
    assert payload.name == "arith.addf"
    # reduce's short form applies the payload to (init, in), like upstream
    assert list(payload.operands) == [block.args[1], block.args[0]]
    map_op = _ops(module, MapOp)[0]
    assert len(map_op.mapper.block.args) == 3  # ins..., init (unused)


@needs_iree
def test_upstream_round_trip() -> None:
    ours = str(xlinalg.parse(MAP_REDUCE))
    assert {op for op, _ in exercised(xlinalg.parse(ours))} == set(
        IREE_ROUND_TRIP["test_linalg_map_reduce.py::test_upstream_round_trip"]
    )
    upstream = iree_opt(ours)
    assert upstream.count("linalg.map { arith.addf }") == 1
    assert upstream.count("linalg.reduce { arith.addf }") == 1
    again = xlinalg.parse(upstream)
    assert len(_ops(again, MapOp)) == 3
    assert len(_ops(again, ReduceOp)) == 2
    generic_form = iree_opt(ours, "--mlir-print-op-generic")
    assert len(_ops(xlinalg.parse(generic_form), ReduceOp)) == 2


@pytest.mark.parametrize(("snippet", "message"), MAP_REDUCE_VERIFY_CASES)
def test_verifier_messages(snippet: str, message: str) -> None:
    shape = (
        snippet.split("outs(%r : ")[1].split(")")[0]
        if "outs(%r" in snippet
        else "memref<4x5x6xf32>"
    )
    text = (
        f"func.func @f(%a: memref<4x5x6xf32>, %b: memref<4x5x6xf32>, %r: {shape}) {{\n"
        f"  {snippet}\n  return\n}}\n"
    )
    with pytest.raises(XlinalgError, match=re.escape(message)):
        xlinalg.parse(text)


def test_generalize_gives_equivalent_generic() -> None:
    module = xlinalg.parse(MAP_REDUCE)
    reduce_op = _ops(module, ReduceOp)[1]
    generic = generalize(reduce_op)
    assert isinstance(generic, GenericOp)
    assert [str(m) for m in generic.get_indexing_maps()] == [
        "(d0, d1) -> (d0, d1)",
        "(d0, d1) -> (d0)",
    ]
    assert [t.value for t in generic.get_iterator_types()] == ["parallel", "reduction"]
    assert generic.body.block.first_op is not None
    assert generic.body.block.first_op.name == "arith.maximumf"
    module.verify()


KERNEL = """\
func.func @k(%a: memref<5x7x3xf64>, %b: memref<5x7x3xf64>, %c: memref<5x7x3xf64>, %r: memref<7xf64>,
             %i: memref<5x7x3xi32>, %ri: memref<5x3xi32>) {
  linalg.map ins(%a, %b : memref<5x7x3xf64>, memref<5x7x3xf64>) outs(%c : memref<5x7x3xf64>) (%x: f64, %y: f64, %o: f64) {
    %e = math.exp %x : f64
    %s = arith.mulf %e, %y : f64
    linalg.yield %s : f64
  }
  linalg.reduce { arith.addf } ins(%a : memref<5x7x3xf64>) outs(%r : memref<7xf64>) dimensions = [0, 2]
  linalg.reduce { arith.maxsi } ins(%i : memref<5x7x3xi32>) outs(%ri : memref<5x3xi32>) dimensions = [1]
  return
}
"""


def _kernel_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    a = rng.standard_normal((5, 7, 3))
    b = rng.standard_normal((5, 7, 3))
    i = rng.integers(-1000, 1000, (5, 7, 3), dtype=np.int32)
    return [a, b, np.zeros((5, 7, 3)), np.full(7, 0.5), i, np.full((5, 3), -(2**31), np.int32)]


def _check_kernel(args: list[np.ndarray], orig: list[np.ndarray]) -> None:
    _, _, c, r, _, ri = args
    np.testing.assert_allclose(c, np.exp(orig[0]) * orig[1], rtol=1e-14)
    np.testing.assert_allclose(r, 0.5 + orig[0].sum(axis=(0, 2)), rtol=1e-13)
    np.testing.assert_array_equal(ri, orig[4].max(axis=1))


def test_execution_matches_numpy_odd_sizes() -> None:
    assert exercised(xlinalg.parse(KERNEL)) == set(
        RUN_CASES["test_linalg_map_reduce.py::test_execution_matches_numpy_odd_sizes"]
    )
    kernel = xlinalg.compile(KERNEL)
    args = _kernel_inputs(np.random.default_rng(0))
    orig = [x.copy() for x in args]
    kernel(*args)
    _check_kernel(args, orig)
    fresh = [x.copy() for x in orig]
    assert kernel.check(*fresh).ok


TILE = """\
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.map", "linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %m tile_sizes [2, 4, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
"""


def test_tiled_with_non_dividing_sizes() -> None:
    assert exercised(xlinalg.parse(KERNEL)) == set(
        TILED_CASES["test_linalg_map_reduce.py::test_tiled_with_non_dividing_sizes"]
    )
    module = xlinalg.apply_schedule(xlinalg.parse(KERNEL), TILE)
    assert len(_ops(module, MapOp)) == 1
    assert len(_ops(module, ReduceOp)) == 2
    assert "scf.for" in str(module)
    kernel = xlinalg.compile(KERNEL, schedule=TILE)
    args = _kernel_inputs(np.random.default_rng(1))
    orig = [x.copy() for x in args]
    kernel(*args)
    _check_kernel(args, orig)


@pytest.mark.parametrize(("elem", "add"), MAP_REDUCE_DTYPES)
def test_dtypes(elem: str, add: str) -> None:
    dtype: type = np.dtype(elem.replace("f", "float").replace("i", "int")).type
    text = f"""
func.func @k(%a: memref<3x5xELEM>, %b: memref<3x5xELEM>, %c: memref<3x5xELEM>, %r: memref<5xELEM>) {{
  linalg.map {{ {add} }} ins(%a, %b : memref<3x5xELEM>, memref<3x5xELEM>) outs(%c : memref<3x5xELEM>)
  linalg.reduce {{ {add} }} ins(%a : memref<3x5xELEM>) outs(%r : memref<5xELEM>) dimensions = [0]
  return
}}""".replace("ELEM", elem)
    kernel = xlinalg.compile(text)
    rng = np.random.default_rng(2)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, (3, 5), dtype=dtype)
        b = rng.integers(info.min, info.max, (3, 5), dtype=dtype)
    else:
        a, b = rng.standard_normal((3, 5)).astype(dtype), rng.standard_normal((3, 5)).astype(dtype)
    c, r = np.zeros((3, 5), dtype), np.ones(5, dtype)
    kernel(a, b, c, r)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(c, a + b)  # modular for integers, one rounding for floats
        expected_r = (np.ones(5, dtype) + a[0] + a[1] + a[2]).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        np.testing.assert_array_equal(r, expected_r)
    else:
        np.testing.assert_allclose(r, expected_r, rtol=2e-3)


def test_tensor_reference() -> None:
    rng = np.random.default_rng(3)
    a, b = (
        rng.standard_normal((4, 5), dtype=np.float32),
        rng.standard_normal((4, 5), dtype=np.float32),
    )
    c, r = np.zeros((4, 5), np.float32), np.full(4, 2.0, np.float32)
    (result,) = run_function(xlinalg.parse(MAP_REDUCE), "f", [a, b, c, r])
    np.testing.assert_allclose(result, np.exp(a) + c, rtol=1e-6)
    module = xlinalg.parse(
        MAP_REDUCE.replace("return %4 : tensor<4x5xf32>", "return %3 : tensor<4xf32>").replace(
            "%r: tensor<4xf32>) -> tensor<4x5xf32>", "%r: tensor<4xf32>) -> tensor<4xf32>"
        )
    )
    (maxed,) = run_function(module, "f", [a, b, c, r])
    np.testing.assert_array_equal(maxed, np.maximum(a.max(axis=1), 2.0))


@needs_iree
def test_tiling_matches_upstream() -> None:
    """Same schedule through upstream's interpreter and ours: same loops, same tiled ops and types."""
    payload = """
func.func @k(%a: memref<5x7xf32>, %c: memref<5x7xf32>, %r: memref<5xf32>) {
  linalg.map { math.exp } ins(%a : memref<5x7xf32>) outs(%c : memref<5x7xf32>)
  linalg.reduce { arith.addf } ins(%a : memref<5x7xf32>) outs(%r : memref<5xf32>) dimensions = [1]
  return
}
"""
    schedule = (
        TILE.replace("tile_sizes [2, 4, 2]", "tile_sizes [2, 3]")
        .replace("%l:3", "%l:2")
        .replace(
            "(!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)",
            "(!transform.any_op, !transform.any_op, !transform.any_op)",
        )
    )

    def shape(text: str) -> list[str]:
        lines = [ln.strip() for ln in text.split("module attributes")[0].splitlines()]
        kept = [ln for ln in lines if ln.startswith(("scf.for", "linalg.map", "linalg.reduce"))]
        return [re.sub(r"%[\w]+", "%", ln).rstrip() for ln in kept]

    upstream = shape(iree_opt(payload + schedule, "--transform-interpreter"))
    ours = shape(str(xlinalg.apply_schedule(xlinalg.parse(payload), schedule)))
    assert len(upstream) == 6
    assert ours == upstream


@pytest.mark.parametrize(
    ("snippet", "message"),
    [
        (
            "linalg.map { nosuch.op } ins(%a : memref<4x5x6xf32>) outs(%b : memref<4x5x6xf32>)",
            "unknown payload operation 'nosuch.op'",
        ),
        (
            "linalg.map { arith.addf } ins(%a : memref<4x5x6xf32>) outs(%b : memref<4x5x6xf32>)",
            "payload 'arith.addf' cannot be applied to (f32) -> f32",
        ),
        (
            "linalg.map { arith.negf } ins(%a : memref<4x5x6xf32>) outs(%a, %b : memref<4x5x6xf32>, memref<4x5x6xf32>)",
            "expects exactly one init",
        ),
        (
            "linalg.reduce { arith.addf } ins(%a : memref<4x5x6xf32>) outs(%b : memref<4x5x6xf32>)",
            "Expected 'dimensions'",
        ),
    ],
)
def test_malformed_input_is_a_parse_error(snippet: str, message: str) -> None:
    text = f"func.func @f(%a: memref<4x5x6xf32>, %b: memref<4x5x6xf32>) {{\n  {snippet}\n  return\n}}\n"
    with pytest.raises(XlinalgError, match=re.escape(message)):
        xlinalg.parse(text)


@needs_iree
def test_generalize_matches_upstream() -> None:
    payload = """
func.func @k(%a: memref<5x7xf32>, %c: memref<5x7xf32>, %r: memref<5xf32>) {
  linalg.map { math.exp } ins(%a : memref<5x7xf32>) outs(%c : memref<5x7xf32>)
  linalg.reduce { arith.addf } ins(%a : memref<5x7xf32>) outs(%r : memref<5xf32>) dimensions = [1]
  return
}
"""
    schedule = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.map", "linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.structured.generalize %m : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}"""

    def normalized(text: str) -> str:
        module = xlinalg.parse(
            text.split("module attributes")[0] if "module {" not in text else text
        )
        body = str(module).split("module attributes")[0]
        return re.sub(r"%[\w]+", "%", body)

    assert exercised(xlinalg.parse(payload)) == set(
        GENERALIZE_CASES["test_linalg_map_reduce.py::test_generalize_matches_upstream"]
    )
    upstream = (
        iree_opt(payload + schedule, "--transform-interpreter").split("  module attributes")[0]
        + "}\n"
    )
    ours = str(xlinalg.apply_schedule(xlinalg.parse(payload), schedule))
    assert normalized(ours).count("linalg.generic") == 2
    assert normalized(ours) == normalized(upstream)


def test_tensor_kernel_compiles_and_matches() -> None:
    kernel = xlinalg.compile(MAP_REDUCE)
    rng = np.random.default_rng(8)
    a, b = (
        rng.standard_normal((4, 5), dtype=np.float32),
        rng.standard_normal((4, 5), dtype=np.float32),
    )
    c, r = rng.standard_normal((4, 5), dtype=np.float32), np.zeros(4, np.float32)
    np.testing.assert_allclose(kernel(a, b, c, r), np.exp(a) + c, rtol=1e-6)
    assert kernel.check(a, b, c, r).ok
