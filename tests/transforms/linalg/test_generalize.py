"""generalize: named op -> linalg.generic (maps, iterators, payload), and named ≡ generic by the references."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from xlinalg.dialects.context import make_context
from xlinalg.dialects.linalg import OP_TABLE, GenericOp, NamedStructuredOp
from xlinalg.dialects.linalg.op_table import Indices, Rule
from xlinalg.errors import TransformFailure
from xlinalg.reference.generic import evaluate_generic
from xlinalg.reference.named import evaluate_named
from xlinalg.transforms.linalg.generalize import LinalgGeneralizeNamedOpsPass, generalize

from support.linalg_table import TABLE_NAMES

CTX = make_context()


def parse(lines: list[str], args: list[tuple[str, str]]) -> ModuleOp:
    params = ", ".join(f"%{n}: {t}" for n, t in args)
    body = "".join(f"    {line}\n" for line in lines)
    module = Parser(CTX, f"func.func @f({params}) {{\n{body}    func.return\n}}").parse_module()
    module.verify()
    return module


def the_op(module: ModuleOp) -> NamedStructuredOp:
    (op,) = [o for o in module.walk() if isinstance(o, NamedStructuredOp)]
    return op


def body_ops(generic: GenericOp) -> list[str]:
    return [op.name for op in generic.body.block.ops]


def test_matmul() -> None:
    module = parse(
        [
            "linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)"
        ],
        [("a", "memref<4x8xf32>"), ("b", "memref<8x16xf32>"), ("c", "memref<4x16xf32>")],
    )
    generic = generalize(the_op(module))
    assert isinstance(generic, GenericOp)
    module.verify()
    assert [str(m) for m in generic.get_indexing_maps()] == [
        "(d0, d1, d2) -> (d0, d2)",
        "(d0, d1, d2) -> (d2, d1)",
        "(d0, d1, d2) -> (d0, d1)",
    ]
    assert [t.value for t in generic.get_iterator_types()] == ["parallel", "parallel", "reduction"]
    assert body_ops(generic) == ["arith.mulf", "arith.addf", "linalg.yield"]
    text = str(module)
    assert (
        "linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, "
        "affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], "
        'iterator_types = ["parallel", "parallel", "reduction"]} '
        "ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>) {\n"
        "    ^bb0(%in: f32, %in_1: f32, %out: f32):\n"
        "      %0 = arith.mulf %in, %in_1 : f32\n"
        "      %1 = arith.addf %out, %0 : f32\n"
        "      linalg.yield %1 : f32\n"
        "    }"
    ) in text
    assert [o for o in module.walk() if isinstance(o, NamedStructuredOp)] == []


def test_matmul_on_tensors_keeps_results() -> None:
    module = parse(
        [
            (
                "%0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) "
                "outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>"
            ),
            "%1 = tensor.dim %0, %i : tensor<4x16xf32>",
        ],
        [
            ("a", "tensor<4x8xf32>"),
            ("b", "tensor<8x16xf32>"),
            ("c", "tensor<4x16xf32>"),
            ("i", "index"),
        ],
    )
    generic = generalize(the_op(module))
    module.verify()
    assert [str(t) for t in generic.result_types] == ["tensor<4x16xf32>"]
    assert generic.res[0].uses  # the tensor.dim now uses the generic's result


def test_mixed_precision_matmul_casts() -> None:
    module = parse(
        ["linalg.matmul ins(%a, %b : memref<4x8xi8>, memref<8x16xi8>) outs(%c : memref<4x16xi32>)"],
        [("a", "memref<4x8xi8>"), ("b", "memref<8x16xi8>"), ("c", "memref<4x16xi32>")],
    )
    assert body_ops(generalize(the_op(module))) == [
        "arith.extsi",
        "arith.extsi",
        "arith.muli",
        "arith.addi",
        "linalg.yield",
    ]
    module = parse(
        [
            (
                "linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : memref<4x8xi8>, "
                "memref<8x16xi8>) outs(%c : memref<4x16xf32>)"
            )
        ],
        [("a", "memref<4x8xi8>"), ("b", "memref<8x16xi8>"), ("c", "memref<4x16xf32>")],
    )
    assert body_ops(generalize(the_op(module))) == [
        "arith.uitofp",
        "arith.uitofp",
        "arith.mulf",
        "arith.addf",
        "linalg.yield",
    ]
    module = parse(
        [
            "linalg.matmul ins(%a, %b : memref<4x8xf16>, memref<8x16xf16>) outs(%c : memref<4x16xf32>)"
        ],
        [("a", "memref<4x8xf16>"), ("b", "memref<8x16xf16>"), ("c", "memref<4x16xf32>")],
    )
    assert body_ops(generalize(the_op(module))) == [
        "arith.extf",
        "arith.extf",
        "arith.mulf",
        "arith.addf",
        "linalg.yield",
    ]
    module.verify()


def test_transpose() -> None:
    module = parse(
        [
            "linalg.transpose ins(%a : memref<16x8xf32>) outs(%b : memref<8x16xf32>) permutation = [1, 0]"
        ],
        [("a", "memref<16x8xf32>"), ("b", "memref<8x16xf32>")],
    )
    generic = generalize(the_op(module))
    module.verify()
    assert [str(m) for m in generic.get_indexing_maps()] == [
        "(d0, d1) -> (d1, d0)",
        "(d0, d1) -> (d0, d1)",
    ]
    assert [t.value for t in generic.get_iterator_types()] == ["parallel", "parallel"]
    assert body_ops(generic) == ["linalg.yield"]
    assert generic.body.block.last_op.operands[0] is generic.body.block.args[0]  # type: ignore[union-attr]


def test_broadcast() -> None:
    module = parse(
        ["linalg.broadcast ins(%a : memref<8xf32>) outs(%b : memref<4x8xf32>) dimensions = [0]"],
        [("a", "memref<8xf32>"), ("b", "memref<4x8xf32>")],
    )
    generic = generalize(the_op(module))
    module.verify()
    assert [str(m) for m in generic.get_indexing_maps()] == [
        "(d0, d1) -> (d1)",
        "(d0, d1) -> (d0, d1)",
    ]
    assert [t.value for t in generic.get_iterator_types()] == ["parallel", "parallel"]


def test_fill() -> None:
    module = parse(
        ["linalg.fill ins(%v : f32) outs(%m : memref<?x?x?xf32>)"],
        [("v", "f32"), ("m", "memref<?x?x?xf32>")],
    )
    generic = generalize(the_op(module))
    module.verify()
    assert [str(m) for m in generic.get_indexing_maps()] == [
        "(d0, d1, d2) -> ()",
        "(d0, d1, d2) -> (d0, d1, d2)",
    ]
    assert [t.value for t in generic.get_iterator_types()] == ["parallel"] * 3
    assert body_ops(generic) == ["linalg.yield"]
    module = parse(
        ["linalg.fill ins(%v : f64) outs(%m : memref<4xi32>)"],
        [("v", "f64"), ("m", "memref<4xi32>")],
    )
    assert body_ops(generalize(the_op(module))) == ["arith.fptosi", "linalg.yield"]


def test_unary_and_binary_payloads() -> None:
    module = parse(
        ["linalg.reciprocal ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)"],
        [("a", "memref<4xf32>"), ("b", "memref<4xf32>")],
    )
    assert body_ops(generalize(the_op(module))) == ["arith.constant", "arith.divf", "linalg.yield"]
    module = parse(
        ["linalg.max ins(%a, %b : memref<4xi32>, memref<4xi32>) outs(%c : memref<4xi32>)"],
        [("a", "memref<4xi32>"), ("b", "memref<4xi32>"), ("c", "memref<4xi32>")],
    )
    assert body_ops(generalize(the_op(module))) == ["arith.maxsi", "linalg.yield"]
    module = parse(
        ["linalg.max ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%c : memref<4xf32>)"],
        [("a", "memref<4xf32>"), ("b", "memref<4xf32>"), ("c", "memref<4xf32>")],
    )
    assert body_ops(generalize(the_op(module))) == ["arith.maximumf", "linalg.yield"]
    module.verify()


def test_generic_is_returned_unchanged_and_others_fail() -> None:
    module = parse(
        ["linalg.copy ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)"],
        [("a", "memref<4xf32>"), ("b", "memref<4xf32>")],
    )
    generic = generalize(the_op(module))
    assert generalize(generic) is generic
    ret = next(o for o in module.walk() if o.name == "func.return")
    with pytest.raises(TransformFailure) as info:
        generalize(ret)
    assert info.value.silenceable
    assert "func.return" in info.value.message


def test_pass_generalizes_every_named_op() -> None:
    module = parse(
        [
            "linalg.fill ins(%v : f32) outs(%c : memref<4x16xf32>)",
            "linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)",
            "linalg.exp ins(%c : memref<4x16xf32>) outs(%c : memref<4x16xf32>)",
        ],
        [
            ("v", "f32"),
            ("a", "memref<4x8xf32>"),
            ("b", "memref<8x16xf32>"),
            ("c", "memref<4x16xf32>"),
        ],
    )
    assert LinalgGeneralizeNamedOpsPass.name == "linalg-generalize-named-ops"
    LinalgGeneralizeNamedOpsPass().apply(CTX, module)
    module.verify()
    ops = [
        o.name for o in module.walk() if o.name.startswith("linalg.") and o.name != "linalg.yield"
    ]
    assert ops == ["linalg.generic"] * 3
    reparsed = Parser(CTX, str(module)).parse_module()
    assert str(reparsed) == str(module)


# ---------------------------------------------------------------------------
# named ≡ generic, for every table op
# ---------------------------------------------------------------------------

SIZES = {"b": 3, "m": 5, "n": 7, "k": 9}
POLY = (5, 7)


def instance(
    name: str, elt: str
) -> tuple[list[str], list[tuple[str, str]], list[tuple[int, ...] | None]]:
    spec = next(s for s in OP_TABLE if s.name == name)
    if name == "transpose":
        shapes: list[tuple[int, ...] | None] = [POLY[::-1], POLY]
    elif name == "broadcast":
        shapes = [POLY[1:], POLY]
    elif name == "conv_2d_nhwc_hwcf":
        shapes = [(2, 9, 11, 3), (2, 3, 3, 4), (2, 4, 3, 4)]
    else:
        shapes = []
        for operand in spec.operands:
            if operand.indexing is Rule.SCALAR:
                shapes.append(None)
            elif operand.indexing is Rule.IDENTITY:
                shapes.append(POLY)
            else:
                assert isinstance(operand.indexing, Indices)
                shapes.append(tuple(SIZES[e] for e in operand.indexing.exprs))
    types = [elt if s is None else f"memref<{''.join(f'{d}x' for d in s)}{elt}>" for s in shapes]
    names = [f"x{i}" for i in range(len(types))]
    n_in = len(spec.inputs)
    line = (
        f"linalg.{name} ins({', '.join('%' + n for n in names[:n_in])} : {', '.join(types[:n_in])}) "
        f"outs({', '.join('%' + n for n in names[n_in:])} : {', '.join(types[n_in:])})"
    )
    if name == "transpose":
        line += " permutation = [1, 0]"
    if name == "broadcast":
        line += " dimensions = [0]"
    if name == "conv_2d_nhwc_hwcf":
        line = line.replace(
            f"linalg.{name} ",
            f"linalg.{name} {{dilations = dense<[1, 2]> : "
            "tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ",
        )
    return [line], list(zip(names, types)), shapes


FLOAT_ONLY = {
    "powf",
    "exp",
    "log",
    "abs",
    "ceil",
    "floor",
    "negf",
    "reciprocal",
    "round",
    "sqrt",
    "rsqrt",
    "tanh",
    "erf",
}
POSITIVE = {"log", "sqrt", "rsqrt", "powf", "div", "div_unsigned"}


#: the ops of the hand-written `instance` above (every op: test_linalg_table.py)
BASE_OPS = set(TABLE_NAMES)


def cases() -> list[tuple[str, str]]:
    out = []
    for spec in OP_TABLE:
        if spec.name not in BASE_OPS:
            continue
        for elt in ("f32", "f64", "i32"):
            if spec.name in FLOAT_ONLY and elt == "i32":
                continue
            if spec.name == "div_unsigned" and elt != "i32":
                continue
            out.append((spec.name, elt))
    return out


@pytest.mark.parametrize(("name", "elt"), cases())
def test_named_equals_generalized(name: str, elt: str) -> None:
    rng = np.random.default_rng(zlib.crc32(f"{name}-{elt}".encode()))
    lines, args, shapes = instance(name, elt)
    module = parse(lines, args)
    op = the_op(module)
    dtype = {"f32": np.float32, "f64": np.float64, "i32": np.int32}[elt]

    def make(shape: tuple[int, ...] | None) -> np.ndarray:
        shape = () if shape is None else shape
        if elt == "i32":
            low = 1 if name in POSITIVE else -9
            return rng.integers(low, 10, size=shape).astype(dtype)
        low = 0.25 if name in POSITIVE else -2.0
        return rng.uniform(low, 2.0, size=shape).astype(dtype)

    inputs = [make(s) for s in shapes]
    named_out = [a.copy() for a in inputs]
    generic_out = [a.copy() for a in inputs]
    n_in = len(op.get_inputs())
    expected = evaluate_named(op, named_out)
    generic = generalize(op)
    module.verify()
    got = evaluate_generic(generic, generic_out)
    assert len(expected) == len(got) == len(inputs) - n_in
    for e, g in zip(expected, got):
        if elt == "i32":
            np.testing.assert_array_equal(g, e)
        else:
            np.testing.assert_allclose(g, e, rtol=1e-5 if elt == "f32" else 1e-12, atol=1e-6)
