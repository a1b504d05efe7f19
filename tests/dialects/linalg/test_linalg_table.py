"""Every op of the op table: round trips (ours and upstream's), verifier rules, generalize ≡ named,
and agreement with upstream's generalization (iree-opt) on maps, iterators and values.

The per-op cases come from `xlinalg.coverage.linalg_samples` (the lists `xlinalg.coverage.table`
reports); execution and tiling are in `test_linalg_table_run.py`.
"""

from __future__ import annotations

import io
import re
import zlib
from functools import cache

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

import xlinalg
from xlinalg.coverage.linalg_samples import (
    GENERALIZE_CASES,
    NOT_UPSTREAM,
    ROUND_TRIP_OPS,
    TABLE_OPS,
    Sample,
    all_verify_cases,
    dtypes_of,
    sample,
)
from xlinalg.dialects.linalg import GenericOp, NamedStructuredOp
from xlinalg.dialects.linalg.casting import named_scalar_type
from xlinalg.errors import XlinalgError
from xlinalg.ir.numpy_dtypes import numpy_dtype
from xlinalg.reference.compare import compare, reduction_length
from xlinalg.reference.function import run_function
from xlinalg.reference.generic import evaluate_generic
from xlinalg.reference.named import evaluate_named
from xlinalg.transforms.linalg.generalize import generalize

from support import iree_opt, needs_iree

KINDS = ("memref", "tensor", "dynamic")


def default_elt(name: str) -> str:
    return "f32" if "f32" in dtypes_of(name) else "i32"


def the_op(module: ModuleOp) -> NamedStructuredOp:
    ops = [op for op in module.walk() if isinstance(op, NamedStructuredOp)]
    assert len(ops) == 1
    return ops[0]


def generic_text(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


# ---------------------------------------------------------------------------
# round trips
# ---------------------------------------------------------------------------


def test_table_has_every_op_of_the_spec() -> None:
    convs = [n for n in TABLE_OPS if n.startswith("conv_")]
    depthwise = [n for n in TABLE_OPS if n.startswith("depthwise_conv_")]
    poolings = [n for n in TABLE_OPS if n.startswith("pooling_")]
    assert (len(convs), len(depthwise), len(poolings)) == (19, 11, 17)
    for name in (
        "mmt4d",
        "batch_mmt4d",
        "contract",
        "elementwise",
        "elemwise_unary",
        "elemwise_binary",
        "select",
        "matmul_transpose_a",
        "matmul_transpose_b",
        "batch_matmul_transpose_a",
        "batch_matmul_transpose_b",
        "quantized_matmul",
        "quantized_batch_matmul",
        "fill_rng_2d",
    ):
        assert name in TABLE_OPS


@pytest.mark.parametrize("name", ROUND_TRIP_OPS)
def test_round_trip(name: str) -> None:
    s = sample(name, default_elt(name))
    for kind in KINDS:
        text = str(xlinalg.parse(s.function("f", kind)))
        assert str(xlinalg.parse(text)) == text
        # the generic form (what xDSL prints with print_generic_format) parses back too
        module = xlinalg.parse(text)
        again = xlinalg.parse(generic_text(module))
        assert str(again) == text


def test_elementwise_maps_transpose_and_broadcast() -> None:
    text = """
#transpose = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#broadcast = affine_map<(d0, d1, d2) -> (d0, d1)>
#identity = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @f(%x: tensor<4x16x8xf32>, %y: tensor<4x8xf32>, %o: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %r = linalg.elementwise kind=#linalg.elementwise_kind<add> indexing_maps = [#transpose, #broadcast, #identity] ins(%x, %y : tensor<4x16x8xf32>, tensor<4x8xf32>) outs(%o: tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %r : tensor<4x8x16xf32>
}"""
    op = the_op(xlinalg.parse(text))
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((4, 16, 8)), rng.standard_normal((4, 8))
    out = evaluate_named(op, [x, y, np.zeros((4, 8, 16))])[0]
    np.testing.assert_allclose(
        out, np.transpose(x, (0, 2, 1)) + y[:, :, None], rtol=1e-5, atol=1e-6
    )
    assert "indexing_maps = [" in str(op)


def test_enum_attribute_errors_are_clear() -> None:
    text = (
        "func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {\n"
        "  linalg.elemwise_unary {fun = #linalg.type_fn<cast_signed>} ins(%a : memref<4xf32>) "
        "outs(%b : memref<4xf32>)\n  return\n}"
    )
    with pytest.raises(
        XlinalgError, match=re.escape("expected #linalg.unary_fn<...> with one of exp, log")
    ):
        xlinalg.parse(text)


# ---------------------------------------------------------------------------
# verifier: one clear message per rule
# ---------------------------------------------------------------------------

VERIFY_CASES = all_verify_cases()


@pytest.mark.parametrize("case", VERIFY_CASES, ids=[f"{c.name}-{c.rule}" for c in VERIFY_CASES])
def test_verifier_rule(case) -> None:
    with pytest.raises(XlinalgError) as info:
        xlinalg.parse(case.text)
    assert case.message in str(info.value)
    assert "Traceback" not in str(info.value)


def test_every_op_has_a_verifier_case() -> None:
    assert {c.name for c in VERIFY_CASES} == set(TABLE_OPS)


# ---------------------------------------------------------------------------
# generalize ≡ named (two independent evaluators)
# ---------------------------------------------------------------------------


def random_operands(s: Sample, seed: int, positive: bool = False) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for shape, elt in zip(s.shapes, s.types):
        size = () if shape is None else shape
        dtype = numpy_dtype(named_scalar_type(elt))
        if dtype == np.bool_:
            value = rng.integers(0, 2, size=size).astype(np.bool_)
        elif dtype.kind == "i":
            low = 1 if positive else -9
            value = rng.integers(low, 10, size=size).astype(dtype)
        else:
            low = 0.25 if positive else -2.0
            value = rng.uniform(low, 2.0, size=size).astype(dtype)
        out.append(np.asarray(value))
    return out


POSITIVE = {"log", "sqrt", "rsqrt", "powf", "div", "div_unsigned"}


@pytest.mark.parametrize(("name", "elt"), GENERALIZE_CASES)
def test_generalize_equals_named(name: str, elt: str) -> None:
    s = sample(name, elt)
    module = xlinalg.parse(s.function("f"))
    op = the_op(module)
    operands = random_operands(s, zlib.crc32(f"{name}-{elt}".encode()), name in POSITIVE)
    expected = evaluate_named(op, [a.copy() for a in operands])
    generic = generalize(op)
    module.verify()
    got = evaluate_generic(generic, [a.copy() for a in operands])
    for e, g in zip(expected, got):
        if elt.startswith("i"):
            np.testing.assert_array_equal(g, e)
        elif elt in ("f16", "bf16"):  # 16-bit floats: the tolerance of the dtype
            result = compare(g, e, dtype=e.dtype, reduction_length=reduction_length(op))
            assert result.ok, result.message
        else:
            np.testing.assert_allclose(g, e, rtol=1e-5 if elt == "f32" else 1e-12, atol=1e-6)


# ---------------------------------------------------------------------------
# upstream (iree-opt): our printed form parses there, theirs here, same generalization
# ---------------------------------------------------------------------------

UPSTREAM_OPS = tuple(n for n in TABLE_OPS if n not in NOT_UPSTREAM)


@cache
def upstream_corpus(elt_kind: str) -> tuple[str, str, str]:
    """(our text, iree-opt's re-print, iree-opt's generalization) of every upstream op."""
    funcs = []
    for name in UPSTREAM_OPS:
        elt = "f32" if elt_kind == "f32" and "f32" in dtypes_of(name) else "i32"
        if elt not in dtypes_of(name):
            continue
        funcs.append(sample(name, elt).function(f"k_{name}"))
        funcs.append(sample(name, elt).function(f"t_{name}", "tensor"))
    ours = str(xlinalg.parse("".join(funcs)))
    # IREE 3.13 spells elementwise's kind `<add>` (the spec and later upstream: `kind=#...<add>`)
    text = re.sub(r"kind = #linalg.elementwise_kind(<\w+>)", r"\1", ours)
    return ours, iree_opt(text), iree_opt(text, "--linalg-generalize-named-ops")


@needs_iree
@pytest.mark.parametrize("elt_kind", ["f32", "i32"])
def test_upstream_reads_ours_and_we_read_upstream(elt_kind: str) -> None:
    ours, theirs, _ = upstream_corpus(elt_kind)

    # upstream's custom print (its `#map` aliases, `<kind>` short form) parses here to the same IR
    # (up to SSA names: upstream renames them %argN / %N)
    def normalized(text: str) -> str:
        return re.sub(r"%[\w.$-]+", "%v", text)

    assert normalized(str(xlinalg.parse(theirs))) == normalized(ours)


def _functions(module: ModuleOp) -> dict[str, list]:
    out = {}
    for func in module.walk():
        if func.name == "func.func":
            out[func.sym_name.data] = [  # type: ignore[attr-defined]
                op for op in func.walk() if isinstance(op, (GenericOp, NamedStructuredOp))
            ]
    return out


@needs_iree
@pytest.mark.parametrize("elt_kind", ["f32", "i32"])
def test_generalization_matches_upstream(elt_kind: str) -> None:
    ours_text, _, generalized = upstream_corpus(elt_kind)
    ours = _functions(xlinalg.parse(ours_text))
    upstream_module = xlinalg.parse(generalized)
    theirs = _functions(upstream_module)
    assert set(ours) == set(theirs)
    for symbol, (named,) in ours.items():
        (upstream,) = theirs[symbol]
        assert isinstance(upstream, GenericOp), symbol
        assert named.get_indexing_maps() == upstream.get_indexing_maps(), symbol
        assert named.get_iterator_types() == upstream.get_iterator_types(), symbol
        if not symbol.startswith("k_"):
            continue
        ours_generic = named.to_generic()

        def payload_ops(generic: GenericOp) -> list[str]:
            # upstream creates fill_rng_2d's constants outside the generic; we keep them inside
            return sorted(o.name for o in generic.body.block.ops if o.name != "arith.constant")

        assert payload_ops(ours_generic) == payload_ops(upstream), symbol
        # values: our NumPy reference of the named op = upstream's generic, interpreted
        name = symbol[2:]
        s = sample(name, "f32" if elt_kind == "f32" and "f32" in dtypes_of(name) else "i32")
        operands = random_operands(s, 5, name in POSITIVE)
        want = evaluate_named(named, [a.copy() for a in operands])
        args = [a.item() if shape is None else a.copy() for a, shape in zip(operands, s.shapes)]
        run_function(upstream_module, symbol, args)
        for w, g in zip(want, args[s.n_inputs :]):
            if name == "fill_rng_2d":  # our reference reproduces upstream's LCG bit for bit
                np.testing.assert_array_equal(g, w, err_msg=symbol)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=symbol)


def test_bf16_parses_verifies_and_generalizes() -> None:
    """bf16 is supported in the IR (no NumPy dtype, so it is not run)."""
    names = [n for n in TABLE_OPS if "f32" in dtypes_of(n)]
    text = "".join(sample(n, "bf16").function(f"k_{n}") for n in names)
    module = xlinalg.parse(text)
    ops = [op for op in module.walk() if isinstance(op, NamedStructuredOp)]
    assert len(ops) == len(names)
    for op in ops:
        generic = generalize(op)
        assert generic.body.block.args[-1].type == named_scalar_type("bf16")
    module.verify()
    assert str(xlinalg.parse(str(module))) == str(module)
