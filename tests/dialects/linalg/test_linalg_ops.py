"""Named linalg ops from the op table: assembly round trips, verifiers, interface, NumPy reference."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO

import numpy as np
import pytest
from xdsl.dialects import builtin
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Block, Operation
from xdsl.ir.affine import AffineMap
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from xlinalg.dialects.context import make_context
from xlinalg.dialects.linalg import (
    OP_TABLE,
    FillOp,
    Linalg,
    MatmulOp,
    NamedStructuredOp,
    TypeFn,
    named_op_class,
)
from xlinalg.dialects.linalg.op_table import Indices, Rule
from xlinalg.errors import XlinalgError
from xlinalg.reference.named import evaluate_named

from support.linalg_table import TABLE_NAMES

CTX = make_context()


def parse_module(text: str) -> builtin.ModuleOp:
    module = Parser(CTX, text).parse_module()
    module.verify()
    return module


def wrap(op_lines: list[str], args: list[tuple[str, str]]) -> str:
    params = ", ".join(f"%{name}: {type_}" for name, type_ in args)
    body = "".join(f"    {line}\n" for line in op_lines)
    return f"builtin.module {{\n  func.func @f({params}) {{\n{body}    func.return\n  }}\n}}"


def named_ops(module: builtin.ModuleOp) -> list[NamedStructuredOp]:
    return [op for op in module.walk() if isinstance(op, NamedStructuredOp)]


# ---------------------------------------------------------------------------
# IR for every table entry
# ---------------------------------------------------------------------------

DIM_SIZES = {"b": 3, "m": 5, "n": 7, "k": 9}
POLY_SHAPE = (5, 7)


def element_of(name: str) -> str:
    return "i32" if name == "div_unsigned" else "f32"


def operand_shapes(name: str) -> list[tuple[int, ...] | None]:
    """A valid shape per operand (None = scalar) for the table entry `name`."""
    spec = named_op_class(name)  # noqa: F841  (checks the class exists)
    entry = next(s for s in OP_TABLE if s.name == name)
    if name == "transpose":
        return [POLY_SHAPE[::-1], POLY_SHAPE]
    if name == "broadcast":
        return [POLY_SHAPE[:1], POLY_SHAPE]
    if name == "conv_2d_nhwc_hwcf":  # default strides/dilations: oh = 9 - 2 + 1, ow = 11 - 3 + 1
        return [(2, 9, 11, 3), (2, 3, 3, 4), (2, 8, 9, 4)]
    shapes: list[tuple[int, ...] | None] = []
    for operand in entry.operands:
        if operand.indexing is Rule.SCALAR:
            shapes.append(None)
        elif operand.indexing is Rule.IDENTITY:
            shapes.append(POLY_SHAPE)
        else:
            assert isinstance(operand.indexing, Indices)
            shapes.append(tuple(DIM_SIZES[e] for e in operand.indexing.exprs))
    return shapes


def shaped_type(kind: str, shape: tuple[int, ...], elt: str) -> str:
    if kind == "tensor":
        return f"tensor<{''.join(f'{s}x' for s in shape)}{elt}>"
    if kind == "dynamic":
        return f"memref<{''.join('?x' for _ in shape)}{elt}>"
    if kind == "strided" and shape:
        strides = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            strides[i] = strides[i + 1] * (shape[i + 1] + 3)
        layout = f", strided<[{', '.join(map(str, strides))}], offset: ?>"
        return f"memref<{''.join(f'{s}x' for s in shape)}{elt}{layout}>"
    return f"memref<{''.join(f'{s}x' for s in shape)}{elt}>"


def op_text(name: str, kind: str) -> tuple[str, list[tuple[str, str]]]:
    entry = next(s for s in OP_TABLE if s.name == name)
    elt = element_of(name)
    args: list[tuple[str, str]] = []
    types: list[str] = []
    for operand, shape in zip(entry.operands, operand_shapes(name)):
        type_ = elt if shape is None else shaped_type(kind, shape, elt)
        args.append((operand.name.lower(), type_))
        types.append(type_)
    n_in = len(entry.inputs)
    ins = f"ins({', '.join('%' + a for a, _ in args[:n_in])} : {', '.join(types[:n_in])})"
    outs = f"outs({', '.join('%' + a for a, _ in args[n_in:])} : {', '.join(types[n_in:])})"
    text = f"linalg.{name} {ins} {outs}"
    if name == "transpose":
        text += " permutation = [1, 0]"
    if name == "broadcast":
        text += " dimensions = [1]"
    if kind == "tensor":
        if entry.print_results:
            text += f" -> {types[-1]}"
        text = "%0 = " + text
    return text, args


KINDS = ["static", "dynamic", "strided", "tensor"]


def test_table_has_the_required_ops() -> None:
    assert set(TABLE_NAMES) <= {spec.name for spec in OP_TABLE}
    for spec in OP_TABLE:
        name = spec.name
        cls = named_op_class(name)
        assert cls.name == f"linalg.{name}"
        assert cls.__name__.endswith("Op")
        assert f"linalg.{name}" in {op.name for op in Linalg.operations}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", TABLE_NAMES)
def test_round_trip_every_op(name: str, kind: str) -> None:
    line, args = op_text(name, kind)
    text = wrap([line], args)
    module = parse_module(text)
    printed = str(module)
    assert printed == text
    assert str(parse_module(printed)) == printed
    (op,) = named_ops(module)
    assert op.name == f"linalg.{name}"
    assert len(op.results) == (1 if kind == "tensor" else 0)


@pytest.mark.parametrize("name", TABLE_NAMES)
def test_generic_form_parses(name: str) -> None:
    line, args = op_text(name, "static")
    module = parse_module(wrap([line], args))
    (_op,) = named_ops(module)

    stream = StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    generic_module = parse_module(stream.getvalue())
    assert str(generic_module) == str(module)


UPSTREAM_LINES = [
    (
        "linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)",
        [("a", "memref<4x8xf32>"), ("b", "memref<8x16xf32>"), ("c", "memref<4x16xf32>")],
    ),
    (
        "linalg.fill ins(%cst : f32) outs(%m : memref<?x?xf32>)",
        [("cst", "f32"), ("m", "memref<?x?xf32>")],
    ),
    (
        (
            "linalg.transpose ins(%in : memref<16x8xf32>) outs(%init : memref<8x16xf32>) "
            "permutation = [1, 0]"
        ),
        [("in", "memref<16x8xf32>"), ("init", "memref<8x16xf32>")],
    ),
    (
        (
            "%0 = linalg.broadcast ins(%in : tensor<16xf32>) outs(%init : tensor<16x64xf32>) "
            "dimensions = [1]"
        ),
        [("in", "tensor<16xf32>"), ("init", "tensor<16x64xf32>")],
    ),
    (
        (
            "linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, "
            "affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] "
            "{cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : memref<8x4xi8>, memref<8x16xi8>) "
            "outs(%c : memref<4x16xi32>)"
        ),
        [("a", "memref<8x4xi8>"), ("b", "memref<8x16xi8>"), ("c", "memref<4x16xi32>")],
    ),
    (
        (
            "%0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, "
            "affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] "
            "ins(%a, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>"
        ),
        [("a", "tensor<4x8xf32>"), ("b", "tensor<8xf32>"), ("c", "tensor<4x16xf32>")],
    ),
    (
        (
            "linalg.copy {my.tag = 3 : i64, cast = #linalg.type_fn<cast_unsigned>} "
            "ins(%a : memref<4xi8>) outs(%b : memref<4xf32>)"
        ),
        [("a", "memref<4xi8>"), ("b", "memref<4xf32>")],
    ),
    (
        (
            "linalg.transpose ins(%in : memref<2x3x4xf64>) outs(%init : memref<4x2x3xf64>) "
            "permutation = [2, 0, 1] {my.tag}"
        ),
        [("in", "memref<2x3x4xf64>"), ("init", "memref<4x2x3xf64>")],
    ),
    (
        (
            "linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : "
            "tensor<2xi64>} ins(%i, %k : memref<2x9x11x3xf32>, memref<2x3x3x4xf32>) outs(%o : memref<2x4x3x4xf32>)"
        ),
        [("i", "memref<2x9x11x3xf32>"), ("k", "memref<2x3x3x4xf32>"), ("o", "memref<2x4x3x4xf32>")],
    ),
]


@pytest.mark.parametrize(("line", "args"), UPSTREAM_LINES)
def test_upstream_syntax_golden(line: str, args: list[tuple[str, str]]) -> None:
    text = wrap([line], args)
    assert str(parse_module(text)) == text


def test_default_indexing_maps_are_elided() -> None:
    line = (
        "linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, "
        "affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] "
        "ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)"
    )
    args = [("a", "memref<4x8xf32>"), ("b", "memref<8x16xf32>"), ("c", "memref<4x16xf32>")]
    printed = str(parse_module(wrap([line], args)))
    assert "indexing_maps" not in printed
    assert "linalg.matmul ins(%a, %b" in printed


# ---------------------------------------------------------------------------
# verifier
# ---------------------------------------------------------------------------

BAD = [
    (
        "linalg.matmul ins(%a : memref<4x8xf32>) outs(%c : memref<4x16xf32>)",
        [("a", "memref<4x8xf32>"), ("c", "memref<4x16xf32>")],
        r"expected 2 input\(s\) \(A, B\), got 1",
    ),
    (
        "linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c, %c : memref<4x16xf32>, memref<4x16xf32>)",
        [("a", "memref<4x8xf32>"), ("b", "memref<8x16xf32>"), ("c", "memref<4x16xf32>")],
        r"expected 1 output\(s\), got 2",
    ),
    (
        "linalg.matmul ins(%a, %b : memref<2x4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)",
        [("a", "memref<2x4x8xf32>"), ("b", "memref<8x16xf32>"), ("c", "memref<4x16xf32>")],
        r"operand rank \(3\) to match the result rank of indexing_map #0 \(2\)",
    ),
    (
        "linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<9x16xf32>) outs(%c : memref<4x16xf32>)",
        [("a", "memref<4x8xf32>"), ("b", "memref<9x16xf32>"), ("c", "memref<4x16xf32>")],
        r"operand #1 \(memref<9x16xf32>\) has size 9 in dimension 0, but loop dimension d2 has size 8",
    ),
    (
        "linalg.add ins(%a, %b : memref<4xf32>, memref<5xf32>) outs(%c : memref<4xf32>)",
        [("a", "memref<4xf32>"), ("b", "memref<5xf32>"), ("c", "memref<4xf32>")],
        r"operand #1 \(memref<5xf32>\) has size 5",
    ),
    (
        "linalg.add ins(%a, %b : memref<4xf32>, memref<4xf64>) outs(%c : memref<4xf32>)",
        [("a", "memref<4xf32>"), ("b", "memref<4xf64>"), ("c", "memref<4xf32>")],
        r"expected identical element types, got f32 and f64",
    ),
    (
        "linalg.exp ins(%a : memref<4xf32>) outs(%c : memref<4xf64>)",
        [("a", "memref<4xf32>"), ("c", "memref<4xf64>")],
        r"computes a value of type f32 but the output element type is f64",
    ),
    (
        "linalg.exp ins(%a : memref<4xi32>) outs(%c : memref<4xi32>)",
        [("a", "memref<4xi32>"), ("c", "memref<4xi32>")],
        r"expected float element types for 'exp'",
    ),
    (
        "linalg.div_unsigned ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%c : memref<4xf32>)",
        [("a", "memref<4xf32>"), ("b", "memref<4xf32>"), ("c", "memref<4xf32>")],
        r"expected int element types for 'div_unsigned'",
    ),
    (
        "linalg.transpose ins(%a : memref<4x8xf32>) outs(%c : memref<8x4xf32>) permutation = [1, 1]",
        [("a", "memref<4x8xf32>"), ("c", "memref<8x4xf32>")],
        r"permutation \[1, 1\] is not a permutation of \[0, 1\]",
    ),
    (
        "linalg.transpose ins(%a : memref<4x8xf32>) outs(%c : memref<4x8xf32>) permutation = [1, 0]",
        [("a", "memref<4x8xf32>"), ("c", "memref<4x8xf32>")],
        r"operand #1 \(memref<4x8xf32>\) has size 4 in dimension 0, but loop dimension d0 has size 8",
    ),
    (
        "linalg.broadcast ins(%a : memref<4xf32>) outs(%c : memref<4x8xf32>) dimensions = [2]",
        [("a", "memref<4xf32>"), ("c", "memref<4x8xf32>")],
        r"dimension 2 is out of range \[0, 2\)",
    ),
    (
        "linalg.broadcast ins(%a : memref<4xf32>) outs(%c : memref<4x8x2xf32>) dimensions = [1]",
        [("a", "memref<4xf32>"), ("c", "memref<4x8x2xf32>")],
        r"operand rank \(1\) to match",
    ),
    (
        "linalg.fill ins(%a : memref<4xf32>) outs(%c : memref<4xf32>)",
        [("a", "memref<4xf32>"), ("c", "memref<4xf32>")],
        r"operand #0 \(value\) to be a scalar",
    ),
    (
        "linalg.fill ins(%a : f32) outs(%c : f32)",
        [("a", "f32"), ("c", "f32")],
        r"operand #1 \(O\) to be a memref or tensor",
    ),
    (
        "linalg.fill ins(%a : f32) outs(%c : memref<4xf16>)",
        [("a", "f32"), ("c", "memref<4xf16>")],
        None,
    ),
    (
        "%0 = linalg.fill ins(%a : f32) outs(%c : memref<4xf32>) -> tensor<4xf32>",
        [("a", "f32"), ("c", "memref<4xf32>")],
        r"one result per tensor output",
    ),
    (
        (
            "linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0 + d2, d2)>, "
            "affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] "
            "ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)"
        ),
        [("a", "memref<4x8xf32>"), ("b", "memref<8x16xf32>"), ("c", "memref<4x16xf32>")],
        r"indexing_map #0 to be a projected permutation",
    ),
    (
        (
            "linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>] "
            "ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)"
        ),
        [("a", "memref<4x8xf32>"), ("b", "memref<8x16xf32>"), ("c", "memref<4x16xf32>")],
        r"expected 3 indexing_maps \(one per operand\), got 1",
    ),
    (
        (
            "linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>} ins(%i, %k : "
            "memref<1x7x9x3xf32>, memref<2x3x3x4xf32>) outs(%o : memref<1x4x4x4xf32>)"
        ),
        [("i", "memref<1x7x9x3xf32>"), ("k", "memref<2x3x3x4xf32>"), ("o", "memref<1x4x4x4xf32>")],
        r"operand #0 \(memref<1x7x9x3xf32>\) needs size >= 8 in dimension 1",
    ),
    (
        (
            "linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>} ins(%i, %k : "
            "memref<1x8x9x3xf32>, memref<2x3x3x4xf32>) outs(%o : memref<1x4x4x4xf32>)"
        ),
        [("i", "memref<1x8x9x3xf32>"), ("k", "memref<2x3x3x4xf32>"), ("o", "memref<1x4x4x4xf32>")],
        None,
    ),
    (
        "linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xi32>) outs(%c : memref<4x16xf32>)",
        [("a", "memref<4x8xf32>"), ("b", "memref<8x16xi32>"), ("c", "memref<4x16xf32>")],
        None,
    ),
]


@pytest.mark.parametrize(("line", "args", "message"), BAD)
def test_verifier_errors(line: str, args: list[tuple[str, str]], message: str | None) -> None:
    text = wrap([line], args)
    if message is None:  # valid: mixed element types are cast to the output type
        parse_module(text)
        return
    with pytest.raises(VerifyException, match=message):
        parse_module(text)


def test_cast_between_incompatible_types_is_rejected() -> None:
    text = wrap(
        ["linalg.copy ins(%a : memref<4xbf16>) outs(%c : memref<4xf16>)"],
        [("a", "memref<4xbf16>"), ("c", "memref<4xf16>")],
    )
    with pytest.raises(
        VerifyException, match="cannot cast: no cast_signed conversion from bf16 to f16"
    ):
        parse_module(text)


@pytest.mark.parametrize(
    ("line", "args", "message"),
    [
        (
            "linalg.transpose ins(%a : memref<4x8xf32>) outs(%c : memref<8x4xf32>)",
            [("a", "memref<4x8xf32>"), ("c", "memref<8x4xf32>")],
            "expects 'permutation = ...'",
        ),
        (
            "linalg.transpose ins(%a, %a : memref<4x8xf32>, memref<4x8xf32>) outs(%c : memref<8x4xf32>) permutation = [1, 0]",
            [("a", "memref<4x8xf32>"), ("c", "memref<8x4xf32>")],
            r"expects 1 input\(s\) and 1 output\(s\), got 2 and 1",
        ),
        (
            "linalg.matmul {cast = 3 : i64} ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)",
            [("a", "memref<4x8xf32>"), ("b", "memref<8x16xf32>"), ("c", "memref<4x16xf32>")],
            r"attribute 'cast': expected #linalg.type_fn",
        ),
        (
            "%0 = linalg.fill ins(%a : f32) outs(%c : tensor<4xf32>)",
            [("a", "f32"), ("c", "tensor<4xf32>")],
            r"Operation has 0 results, but was given 1 to bind",
        ),
    ],
)
def test_parse_errors(line: str, args: list[tuple[str, str]], message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_module(wrap([line], args))


# ---------------------------------------------------------------------------
# interface and builders
# ---------------------------------------------------------------------------


def test_structured_interface_of_matmul() -> None:
    line, args = op_text("matmul", "static")
    (op,) = named_ops(parse_module(wrap([line], args)))
    assert [str(m) for m in op.get_indexing_maps()] == [
        "(d0, d1, d2) -> (d0, d2)",
        "(d0, d1, d2) -> (d2, d1)",
        "(d0, d1, d2) -> (d0, d1)",
    ]
    assert op.get_iterator_types() == [
        IteratorType.PARALLEL,
        IteratorType.PARALLEL,
        IteratorType.REDUCTION,
    ]
    assert op.get_static_loop_ranges() == [5, 7, 9]
    assert len(op.get_inputs()) == 2
    assert len(op.get_outputs()) == 1


def test_dynamic_loop_ranges_and_polymorphic_rank() -> None:
    line, args = op_text("exp", "dynamic")
    (op,) = named_ops(parse_module(wrap([line], args)))
    assert op.get_num_loops() == 2
    assert op.get_static_loop_ranges() == [None, None]
    line, args = op_text("transpose", "static")
    (op,) = named_ops(parse_module(wrap([line], args)))
    assert [str(m) for m in op.get_indexing_maps()] == [
        "(d0, d1) -> (d1, d0)",
        "(d0, d1) -> (d0, d1)",
    ]


def test_three_d_transpose_map_is_the_inverse_permutation() -> None:
    line = (
        "linalg.transpose ins(%in : memref<2x3x4xf64>) outs(%init : memref<4x2x3xf64>) "
        "permutation = [2, 0, 1]"
    )
    (op,) = named_ops(
        parse_module(wrap([line], [("in", "memref<2x3x4xf64>"), ("init", "memref<4x2x3xf64>")]))
    )
    # init[i, j, k] = in[j, k, i]
    assert str(op.get_indexing_maps()[0]) == "(d0, d1, d2) -> (d1, d2, d0)"


def test_conv_maps_resolve_strides_and_dilations() -> None:
    line, args = UPSTREAM_LINES[8]
    (op,) = named_ops(parse_module(wrap([line], args)))
    assert str(op.get_indexing_maps()[0]) == (
        "(d0, d1, d2, d3, d4, d5, d6) -> (d0, ((d1 * 2) + d4), ((d2 * 2) + (d5 * 2)), d6)"
    )
    assert [t.value for t in op.get_iterator_types()] == ["parallel"] * 4 + ["reduction"] * 3
    assert op.get_static_loop_ranges() == [2, 4, 3, 4, 2, 3, 3]
    line, args = op_text("conv_2d_nhwc_hwcf", "static")  # defaults: strides = dilations = 1
    (op,) = named_ops(parse_module(wrap([line], args)))
    assert str(op.get_indexing_maps()[0]) == (
        "(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 + d4), (d2 + d5), d6)"
    )


def test_reference_conv() -> None:
    line, args = UPSTREAM_LINES[8]
    op = single_op(line, args)
    i = random((2, 9, 11, 3), np.dtype(np.float32))
    k = random((2, 3, 3, 4), np.dtype(np.float32))
    o = random((2, 4, 3, 4), np.dtype(np.float32))
    expected = o.astype(np.float64)
    for oh in range(4):
        for ow in range(3):
            for kh in range(2):
                for kw in range(3):
                    patch = i[:, oh * 2 + kh, ow * 2 + kw * 2, :].astype(np.float64)
                    expected[:, oh, ow, :] += patch @ k[kh, kw].astype(np.float64)
    evaluate_named(op, [i, k, o])
    np.testing.assert_allclose(o, expected, rtol=1e-5)


def test_clone_with_operands_keeps_attributes() -> None:
    line, args = UPSTREAM_LINES[4]
    module = parse_module(wrap([line], args))
    (op,) = named_ops(module)
    clone = op.clone_with_operands(op.get_inputs(), op.get_outputs(), [])
    assert type(clone) is type(op)
    assert clone.get_indexing_maps() == op.get_indexing_maps()
    assert clone.get_cast_fn() == TypeFn.CAST_UNSIGNED


def test_builders() -> None:
    block_types = [
        builtin.MemRefType(builtin.f32, [4, 8]),
        builtin.MemRefType(builtin.f32, [8, 3]),
        builtin.TensorType(builtin.f32, [4, 3]),
        builtin.f32,
    ]

    block = Block(arg_types=block_types)
    a, b, c, cst = block.args
    mm = MatmulOp.build([a, b], [c], cast=TypeFn.CAST_SIGNED)
    fill = FillOp.build([cst], [c])
    block.add_ops([mm, fill])
    mm.verify()
    fill.verify()
    assert mm.result_types == (block_types[2],) or list(mm.result_types) == [block_types[2]]
    transposed = named_op_class("matmul").build(
        [a, b],
        [c],
        indexing_maps=[
            AffineMap.from_callable(lambda m, n, k: (m, k)),
            AffineMap.from_callable(lambda m, n, k: (k, n)),
            AffineMap.from_callable(lambda m, n, k: (m, n)),
        ],
    )
    block.add_op(transposed)
    transposed.verify()
    with pytest.raises(TypeError, match="has no attribute 'permutation'"):
        MatmulOp.build([a, b], [c], permutation=[1, 0])
    direct = MatmulOp([a, b], [c])
    block.add_op(direct)
    direct.verify()
    assert str(direct).startswith("%3 = linalg.matmul ins(") or "linalg.matmul ins(" in str(direct)
    transpose_cls = named_op_class("transpose")
    with pytest.raises(ValueError, match=r"takes 1 input\(s\) and 1 output\(s\), got 2 and 1"):
        transpose_cls([a, a], [b], permutation=[1, 0])
    conv = named_op_class("conv_2d_nhwc_hwcf")
    d = Block(
        arg_types=[
            builtin.MemRefType(builtin.f32, [1, 9, 9, 2]),
            builtin.MemRefType(builtin.f32, [3, 3, 2, 4]),
            builtin.MemRefType(builtin.f32, [1, 4, 4, 4]),
        ]
    )
    op = conv(list(d.args[:2]), [d.args[2]], strides=[2, 2])
    d.add_op(op)
    op.verify()
    assert "{strides = dense<2> : tensor<2xi64>}" in str(op)


# ---------------------------------------------------------------------------
# NumPy reference vs NumPy
# ---------------------------------------------------------------------------

RNG = np.random.default_rng(7)


def random(shape: tuple[int, ...], dtype: np.dtype, positive: bool = False) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        low = 1 if positive else -20
        return RNG.integers(low, 20, size=shape).astype(dtype)
    low = 0.1 if positive else -2.0
    return RNG.uniform(low, 2.0, size=shape).astype(dtype)


DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32}


def single_op(line: str, args: list[tuple[str, str]]) -> Operation:
    (op,) = named_ops(parse_module(wrap([line], args)))
    return op


def tol(dtype: np.dtype) -> dict[str, float]:
    return {"rtol": 1e-5, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}


CONTRACTIONS: dict[str, tuple[list[tuple[int, ...]], Callable[..., np.ndarray]]] = {
    "matmul": ([(13, 7), (7, 11), (13, 11)], lambda a, b, c: c + a @ b),
    "batch_matmul": ([(3, 5, 7), (3, 7, 9), (3, 5, 9)], lambda a, b, c: c + np.matmul(a, b)),
    "matvec": ([(13, 7), (7,), (13,)], lambda a, y, x: x + a @ y),
    "vecmat": ([(7,), (7, 11), (11,)], lambda y, a, x: x + y @ a),
    "dot": ([(17,), (17,), ()], lambda a, b, c: c + np.dot(a, b)),
    "batch_reduce_matmul": (
        [(3, 5, 7), (3, 7, 9), (5, 9)],
        lambda a, b, c: c + np.matmul(a, b).sum(axis=0),
    ),
    "batch_matvec": (
        [(3, 5, 7), (3, 7), (3, 5)],
        lambda a, b, c: c + np.einsum("bmk,bk->bm", a, b),
    ),
    "batch_vecmat": (
        [(3, 7), (3, 7, 5), (3, 5)],
        lambda a, b, c: c + np.einsum("bk,bkn->bn", a, b),
    ),
}


@pytest.mark.parametrize("dtype", ["f32", "f64", "i32"])
@pytest.mark.parametrize("name", sorted(CONTRACTIONS))
def test_reference_contractions(name: str, dtype: str) -> None:
    shapes, expected_fn = CONTRACTIONS[name]
    np_dtype = np.dtype(DTYPES[dtype])
    types = [f"memref<{''.join(f'{s}x' for s in shape)}{dtype}>" for shape in shapes]
    names = ["p", "q", "r"]
    line = f"linalg.{name} ins(%p, %q : {types[0]}, {types[1]}) outs(%r : {types[2]})"
    op = single_op(line, list(zip(names, types)))
    arrays = [random(s, np_dtype) for s in shapes]
    expected = expected_fn(*(a.astype(np.float64) if dtype != "i32" else a for a in arrays))
    out = arrays[2]
    (result,) = evaluate_named(op, arrays)
    assert result is out  # memref outputs are written in place
    if dtype == "i32":
        np.testing.assert_array_equal(out, expected.astype(np.int32))
    else:
        np.testing.assert_allclose(out, expected, **tol(np_dtype))


@pytest.mark.parametrize("batched", [False, True])
def test_reference_quantized_matmul(batched: bool) -> None:
    name = "quantized_batch_matmul" if batched else "quantized_matmul"
    lead = (2,) if batched else ()
    shapes = [(*lead, 5, 3), (*lead, 3, 4), (*lead, 5, 4)]
    types = [
        f"memref<{''.join(f'{d}x' for d in shape)}{t}>"
        for shape, t in zip(shapes, ["i8", "i8", "i32"])
    ]
    line = (
        f"linalg.{name} ins(%a, %b, %az, %bz : {types[0]}, {types[1]}, i32, i32) "
        f"outs(%c : {types[2]})"
    )
    op = single_op(
        line, [("a", types[0]), ("b", types[1]), ("az", "i32"), ("bz", "i32"), ("c", types[2])]
    )
    a = RNG.integers(-128, 128, size=shapes[0]).astype(np.int8)
    b = RNG.integers(-128, 128, size=shapes[1]).astype(np.int8)
    c = RNG.integers(-9, 9, size=shapes[2]).astype(np.int32)
    expected = c + np.matmul(a.astype(np.int32) - 3, b.astype(np.int32) + 5)
    evaluate_named(op, [a, b, 3, -5, c])
    np.testing.assert_array_equal(c, expected)


def test_reference_matmul_on_tensors_returns_new_array_and_casts() -> None:
    line = (
        "%0 = linalg.matmul ins(%a, %b : tensor<5x3xi8>, tensor<3x4xi8>) outs(%c : tensor<5x4xf32>)"
        " -> tensor<5x4xf32>"
    )
    op = single_op(
        line, [("a", "tensor<5x3xi8>"), ("b", "tensor<3x4xi8>"), ("c", "tensor<5x4xf32>")]
    )
    a = random((5, 3), np.dtype(np.int8))
    b = random((3, 4), np.dtype(np.int8))
    c = np.zeros((5, 4), np.float32)
    (result,) = evaluate_named(op, [a, b, c])
    assert result is not c
    assert not c.any()
    np.testing.assert_allclose(result, a.astype(np.float32) @ b.astype(np.float32))


def test_reference_cast_unsigned_and_transposed_maps() -> None:
    line, args = UPSTREAM_LINES[4]  # A is transposed, cast_unsigned, i8 -> i32
    op = single_op(line, args)
    a = RNG.integers(-128, 128, size=(8, 4)).astype(np.int8)
    b = RNG.integers(-128, 128, size=(8, 16)).astype(np.int8)
    c = RNG.integers(-5, 5, size=(4, 16)).astype(np.int32)
    expected = c + a.view(np.uint8).astype(np.int32).T @ b.view(np.uint8).astype(np.int32)
    evaluate_named(op, [a, b, c])
    np.testing.assert_array_equal(c, expected)


def test_reference_broadcast_map_in_matmul() -> None:
    line, args = UPSTREAM_LINES[5]  # B broadcast along n
    op = single_op(line, args)
    a, b = random((4, 8), np.dtype(np.float32)), random((8,), np.dtype(np.float32))
    c = random((4, 16), np.dtype(np.float32))
    (result,) = evaluate_named(op, [a, b, c])
    np.testing.assert_allclose(result, c + (a @ b)[:, None], rtol=1e-5)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


UNARY_NP: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp,
    "log": np.log,
    "abs": np.abs,
    "ceil": np.ceil,
    "floor": np.floor,
    "negf": np.negative,
    "reciprocal": lambda x: 1 / x,
    "round": _round_half_away,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "square": np.square,
    "tanh": np.tanh,
    "erf": np.vectorize(__import__("math").erf),
}


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("name", sorted(UNARY_NP))
def test_reference_unary(name: str, dtype: str) -> None:
    np_dtype = np.dtype(DTYPES[dtype])
    t = f"memref<5x7x{dtype}>"
    op = single_op(f"linalg.{name} ins(%a : {t}) outs(%b : {t})", [("a", t), ("b", t)])
    a = random((5, 7), np_dtype, positive=name in ("log", "sqrt", "rsqrt"))
    if name == "round":
        a[0, :3] = [0.5, -2.5, 1.5]
    b = np.zeros_like(a)
    evaluate_named(op, [a, b])
    assert b.dtype == np_dtype
    np.testing.assert_allclose(b, UNARY_NP[name](a.astype(np.float64)), **tol(np_dtype))


BINARY_NP: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
}


@pytest.mark.parametrize("dtype", ["f32", "f64", "i32"])
@pytest.mark.parametrize("name", [*sorted(BINARY_NP), "div", "powf", "div_unsigned"])
def test_reference_binary(name: str, dtype: str) -> None:
    if (name == "powf" and dtype == "i32") or (name == "div_unsigned" and dtype != "i32"):
        pytest.skip("not defined for this element type")
    np_dtype = np.dtype(DTYPES[dtype])
    t = f"memref<3x5x{dtype}>"
    op = single_op(
        f"linalg.{name} ins(%a, %b : {t}, {t}) outs(%c : {t})", [("a", t), ("b", t), ("c", t)]
    )
    a = random((3, 5), np_dtype, positive=name == "powf")
    b = random((3, 5), np_dtype, positive=name in ("powf", "div_unsigned"))
    if name == "div" and dtype == "i32":
        b[b == 0] = 3
        a[0, 0], b[0, 0] = -7, 2  # truncating division: -3, not -4
    c = np.zeros_like(a)
    evaluate_named(op, [a, b, c])
    if name == "div":
        expected = np.trunc(a / b).astype(np_dtype) if dtype == "i32" else a / b
    elif name == "div_unsigned":
        expected = (a.view(np.uint32) // b.view(np.uint32)).astype(np.int32)
    elif name == "powf":
        expected = np.power(a, b)
    else:
        expected = BINARY_NP[name](a, b)
    if dtype == "i32":
        np.testing.assert_array_equal(c, expected)
    else:
        np.testing.assert_allclose(c, expected, **tol(np_dtype))


def test_reference_fill_copy_transpose_broadcast() -> None:
    op = single_op(
        "linalg.fill ins(%v : f64) outs(%o : memref<3x4xi32>)",
        [("v", "f64"), ("o", "memref<3x4xi32>")],
    )
    out = np.zeros((3, 4), np.int32)
    evaluate_named(op, [-2.75, out])
    assert (out == -2).all()  # fptosi truncates toward zero
    op = single_op(
        "linalg.copy ins(%a : memref<7xi8>) outs(%o : memref<7xf64>)",
        [("a", "memref<7xi8>"), ("o", "memref<7xf64>")],
    )
    a = np.array([-128, -1, 0, 1, 2, 3, 127], np.int8)
    out = np.zeros(7, np.float64)
    evaluate_named(op, [a, out])
    np.testing.assert_array_equal(out, a.astype(np.float64))
    line, args = UPSTREAM_LINES[7]
    op = single_op(line, args)
    a = random((2, 3, 4), np.dtype(np.float64))
    out = np.zeros((4, 2, 3))
    evaluate_named(op, [a, out])
    np.testing.assert_array_equal(out, np.transpose(a, [2, 0, 1]))
    line, args = UPSTREAM_LINES[3]
    op = single_op(line, args)
    a = random((16,), np.dtype(np.float32))
    (result,) = evaluate_named(op, [a, np.zeros((16, 64), np.float32)])
    np.testing.assert_array_equal(result, np.broadcast_to(a[:, None], (16, 64)))


def test_reference_strided_memref_views() -> None:
    t = "memref<5x7xf32, strided<[10, 1], offset: ?>>"
    op = single_op(f"linalg.exp ins(%a : {t}) outs(%b : {t})", [("a", t), ("b", t)])
    base_a = random((5, 10), np.dtype(np.float32))
    base_b = np.zeros((5, 10), np.float32)
    evaluate_named(op, [base_a[:, 2:9], base_b[:, 2:9]])
    np.testing.assert_allclose(base_b[:, 2:9], np.exp(base_a[:, 2:9]), rtol=1e-6)
    assert not base_b[:, :2].any()
    assert not base_b[:, 9:].any()


def test_reference_rejects_bad_arrays() -> None:
    line, args = op_text("matmul", "static")
    op = single_op(line, args)
    with pytest.raises(XlinalgError, match="expects 3 operands, got 2"):
        evaluate_named(op, [np.zeros((5, 9), np.float32), np.zeros((9, 7), np.float32)])
    with pytest.raises(XlinalgError, match="expected an array matching memref<9x7xf32>"):
        evaluate_named(
            op,
            [
                np.zeros((5, 9), np.float32),
                np.zeros((7, 9), np.float32),
                np.zeros((5, 7), np.float32),
            ],
        )
