"""transform.structured.convert_conv2d_to_img2col: the IR it builds (checked
against `iree-opt --transform-interpreter` for the same schedule), results equal
to a NumPy convolution on odd sizes, strides and dilations, the two result
handles, the silenceable failures and the consumed handle."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.dialects.linalg.generic import GenericOp

from support import needs_iree, run_iree_opt
from support.conv import numpy_conv_nhwc
from support.transform import apply, fails, schedule

TESTED_OPS = ["transform.structured.convert_conv2d_to_img2col"]

CONVERT = (
    '    %c = transform.structured.match ops{["linalg.OP"]} in %root : (!transform.any_op) -> !transform.any_op\n'
    "    %col, %res = transform.structured.convert_conv2d_to_img2col %c"
    " : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
)
ANNOTATE = (
    '    transform.annotate %col "the_col" : !transform.any_op\n'
    '    transform.annotate %res "the_res" : !transform.any_op\n'
)


def _conv_payload(
    op: str, shapes: list[tuple[int, ...]], strides: tuple[int, int], dilations: tuple[int, int]
) -> str:
    types = [f"tensor<{'x'.join(map(str, s))}xf32>" for s in shapes]
    return f"""
func.func @f(%i: {types[0]}, %w: {types[1]}, %o: {types[2]}) -> {types[2]} {{
  %r = linalg.{op} {{strides = dense<[{strides[0]}, {strides[1]}]> : tensor<2xi64>,
                     dilations = dense<[{dilations[0]}, {dilations[1]}]> : tensor<2xi64>}}
    ins(%i, %w : {types[0]}, {types[1]}) outs(%o : {types[2]}) -> {types[2]}
  func.return %r : {types[2]}
}}
"""


def _numpy_conv(
    op: str, x: np.ndarray, w: np.ndarray, out: np.ndarray, s: tuple[int, int], d: tuple[int, int]
) -> np.ndarray:
    """Direct definition, independent of xlinalg: nhwc input, hwcf filter, nhwf output."""
    if op == "conv_2d_nchw_fchw":
        x = x.transpose(0, 2, 3, 1)
        w = w.transpose(2, 3, 1, 0)
        out = out.transpose(0, 2, 3, 1)
    elif op == "conv_2d_nhwc_fhwc":
        w = w.transpose(1, 2, 3, 0)
    res = numpy_conv_nhwc(x, w, out, list(s), list(d))
    if op == "conv_2d_nchw_fchw":
        res = res.transpose(0, 3, 1, 2)
    return res


def _shapes(
    op: str,
    n: int,
    c: int,
    f: int,
    oh: int,
    ow: int,
    kh: int,
    kw: int,
    s: tuple[int, int],
    d: tuple[int, int],
) -> list[tuple[int, ...]]:
    ih, iw = (oh - 1) * s[0] + (kh - 1) * d[0] + 1, (ow - 1) * s[1] + (kw - 1) * d[1] + 1
    if op == "conv_2d_nhwc_hwcf":
        return [(n, ih, iw, c), (kh, kw, c, f), (n, oh, ow, f)]
    if op == "conv_2d_nhwc_fhwc":
        return [(n, ih, iw, c), (f, kh, kw, c), (n, oh, ow, f)]
    return [(n, c, ih, iw), (f, c, kh, kw), (n, f, oh, ow)]


OPS = ["conv_2d_nhwc_hwcf", "conv_2d_nhwc_fhwc", "conv_2d_nchw_fchw"]
GEOMETRIES = [
    # n, c, f, oh, ow, kh, kw, strides, dilations
    (1, 3, 5, 4, 3, 3, 2, (2, 3), (1, 2)),
    (2, 5, 7, 3, 5, 2, 3, (1, 1), (2, 1)),
    (1, 1, 1, 1, 1, 1, 1, (1, 1), (1, 1)),
]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_img2col_matches_numpy(op: str, geometry: tuple) -> None:
    *sizes, s, d = geometry
    shapes = _shapes(op, *sizes, s, d)
    payload = _conv_payload(op, shapes, s, d)
    module = apply(payload, CONVERT.replace("OP", op) + ANNOTATE)
    text = str(module)
    assert f"linalg.{op}" not in text
    generics = [o for o in module.walk() if isinstance(o, GenericOp)]
    assert len(generics) == 2
    assert "the_col" in generics[0].attributes
    assert "the_res" not in generics[0].attributes
    reshape = [o for o in module.walk() if o.name == "tensor.expand_shape"]
    assert len(reshape) == 1
    assert "the_res" in reshape[0].attributes
    rng = np.random.default_rng(1)
    args = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
    got = xlinalg.compile(text, entry="f")(*args)
    want = _numpy_conv(op, *args, s, d)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _upstream(payload: str, body: str) -> str:

    readonly = schedule(body).replace("{transform.consumed}", "{transform.readonly}")
    proc = run_iree_opt(payload + readonly, "--transform-interpreter", "--mlir-print-local-scope")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split("module attributes")[0]


@needs_iree
@pytest.mark.parametrize("op", OPS)
def test_img2col_structure_matches_upstream(op: str) -> None:
    """Same ops in the same order, same indexing maps and iterators, same results."""
    *sizes, s, d = GEOMETRIES[0]
    shapes = _shapes(op, *sizes, s, d)
    payload = _conv_payload(op, shapes, s, d)
    ours = apply(payload, CONVERT.replace("OP", op))
    theirs = xlinalg.parse(_upstream(payload, CONVERT.replace("OP", op)) + "}")

    def summary(module) -> list[tuple[str, ...]]:
        rows: list[tuple[str, ...]] = []
        for o in module.walk():
            if (
                o.name in ("builtin.module", "func.func", "func.return")
                or o.parent_op().name == "linalg.generic"
            ):
                continue
            row: tuple[str, ...] = (o.name, *(str(r.type) for r in o.results))
            if isinstance(o, GenericOp):
                # maps compared by value on sample points (the printers differ in parentheses)
                for m in (attr.data for attr in o.indexing_maps):
                    points = [
                        tuple((i * 7 + j * 3) % 11 for j in range(m.num_dims)) for i in range(13)
                    ]
                    row += (str([m.eval(p, ()) for p in points]),)
                row += tuple(str(i) for i in o.iterator_types)
            rows.append(row)
        return rows

    assert summary(ours) == summary(theirs)


def test_img2col_silenceable_failures_and_consumed_handle() -> None:
    *sizes, s, d = GEOMETRIES[0]
    shapes = _shapes("conv_2d_nhwc_hwcf", *sizes, s, d)
    payload = _conv_payload("conv_2d_nhwc_hwcf", shapes, s, d)
    memref = payload.replace("tensor<", "memref<").replace(") -> memref<1x4x3x5xf32> {", ") {")
    memref = (
        memref.replace("%r = ", "")
        .replace(" -> memref<1x4x3x5xf32>\n", "\n")
        .replace("func.return %r : memref<1x4x3x5xf32>", "func.return")
    )
    fails(
        memref,
        CONVERT.replace("OP", "conv_2d_nhwc_hwcf"),
        silenceable=True,
        match="tensor semantics",
    )
    matmul = """
func.func @f(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>, %c: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x5xf32>, tensor<5x6xf32>) outs(%c : tensor<4x6xf32>) -> tensor<4x6xf32>
  func.return %r : tensor<4x6xf32>
}
"""
    fails(
        matmul,
        CONVERT.replace("OP", "matmul"),
        silenceable=True,
        match="'linalg.matmul' is not a supported 2-D convolution",
    )
    dynamic = payload.replace("1x9x9x3", "?x9x9x3")
    assert "?x9x9x3" in dynamic
    fails(
        dynamic, CONVERT.replace("OP", "conv_2d_nhwc_hwcf"), silenceable=True, match="static shapes"
    )
    fails(
        payload,
        CONVERT.replace("OP", "conv_2d_nhwc_hwcf")
        + '    transform.annotate %c "again" : !transform.any_op\n',
        silenceable=False,
        match="consumed by 'transform.structured.convert_conv2d_to_img2col'",
    )
