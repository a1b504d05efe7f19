"""`scripts/sweep_templates.py`: its payloads are valid MLIR of the shapes they name, its
samples satisfy the templates' constraints, and one sample goes through the tuner's
isolated worker to a status the sweep's table counts (not timed; the sweep's figures come
from running the script)."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX

import xlinalg
from tuner.constraints import first_violated, parse_constraints
from tuner.worker import FAILED_STATUSES, measure

from support import REPO, load_script

sweep_templates = load_script("sweep_templates")

Shape = tuple[int, ...]


def _sizes(text: str) -> list[int]:
    return [int(x) for x in text.split("x")]


def _matmul(label: str) -> tuple[list[Shape], Shape]:
    """`MxNxK`: A is M x K, B K x N, C M x N."""
    m, n, k = _sizes(label.split()[0])
    return [(m, k), (k, n)], (m, n)


def _batch(label: str) -> tuple[list[Shape], Shape]:
    b, m, n, k = _sizes(label)
    return [(b, m, k), (b, k, n)], (b, m, n)


def _conv(label: str) -> tuple[list[Shape], Shape]:
    """`nN OHxOW cC->F kKHxKW sS dD`: the input reaches the last window's last tap."""
    found = re.fullmatch(r"n(\d+) (\d+)x(\d+) c(\d+)->(\d+) k(\d+)x(\d+) s(\d+) d(\d+) \w+", label)
    assert found, label
    n, oh, ow, c, f, kh, kw, s, d = (int(g) for g in found.groups())
    ih, iw = (oh - 1) * s + (kh - 1) * d + 1, (ow - 1) * s + (kw - 1) * d + 1
    return [(n, ih, iw, c), (kh, kw, c, f)], (n, oh, ow, f)


def _chain(label: str) -> tuple[list[Shape], Shape]:
    m, n = _sizes(label.split()[0])
    return [(m, n)] * 3, (m, n)


def _reduction(label: str) -> tuple[list[Shape], Shape]:
    m, n = _sizes(label.split()[0])
    return [(m, n)], (m,)


def _attention(label: str) -> tuple[list[Shape], Shape]:
    """`bB nN lL dD`: Q is B x N x D, K and V B x L x D."""
    b, n, l_, d = (int(x[1:]) for x in label.split())
    return [(b, n, d), (b, l_, d), (b, l_, d)], (b, n, d)


def _mmt4d(label: str) -> tuple[list[Shape], Shape]:
    """`[bB ]M1xN1xK1 tiles M0xN0xK0`: packed lhs, rhs and accumulator."""
    *batch, outer, _, inner = label.split()
    b = (int(batch[0][1:]),) if batch else ()
    (m1, n1, k1), (m0, n0, k0) = _sizes(outer), _sizes(inner)
    return [(*b, m1, k1, m0, k0), (*b, n1, k1, n0, k0)], (*b, m1, n1, m0, n0)


#: per template: the operand shapes its case labels name, and where the output is: a buffer
#: argument ("arg"), the result ("result") or both (an init tensor and the result)
NAMED = {
    "matmul_tile": (_matmul, "arg"),
    "matmul_vectorize": (_matmul, "arg"),
    "matmul_parallel": (_matmul, "arg"),
    "conv2d_nhwc_hwcf": (_conv, "arg"),
    "conv2d_img2col": (_conv, "result"),
    "elementwise_fusion": (_chain, "result"),
    "reduction": (_reduction, "arg"),
    "attention_tile": (_attention, "both"),
    "encoding_matmul": (_matmul, "both"),
    "batch_matmul": (_batch, "arg"),
    "batch_matmul_mmt4d": (_batch, "result"),
    "batch_mmt4d": (_mmt4d, "arg"),
    "mmt4d": (_mmt4d, "arg"),
    "matmul_mmt4d": (_matmul, "result"),
    "matmul_mmt4d_parallel": (_matmul, "result"),
}


def test_every_template_has_its_label_grammar() -> None:
    assert set(NAMED) == set(sweep_templates.CASES)


@pytest.mark.parametrize("template", list(sweep_templates.CASES))
def test_every_payload_has_the_shapes_and_type_its_name_says(template: str) -> None:
    """The function's argument and result types are the shapes the case label names, in the
    label's element type (f32 unless it names one); a `dynamic` case has `?` dims and passes
    the named sizes with the case."""
    named, output = NAMED[template]
    for case in sweep_templates.CASES[template]():
        func = next(op for op in xlinalg.parse(case.payload()).walk() if op.name == "func.func")
        inputs, out = named(case.label)
        args = [*inputs, out] if output in ("arg", "both") else inputs
        results = [out] if output in ("result", "both") else []
        words = case.label.split()
        dtype = next((w for w in words if w in ("f16", "bf16", "f64", "i32")), "f32")
        ftype = func.function_type
        got_args, got_results = list(ftype.inputs.data), list(ftype.outputs.data)
        assert [str(t.get_element_type()) for t in got_args + got_results] == [dtype] * (
            len(args) + len(results)
        ), case.label
        if "dynamic" in words:
            assert all(d == DYNAMIC_INDEX for t in got_args for d in t.get_shape()), case.label
            assert case.sizes == {
                f"{i}:{j}": size for i, shape in enumerate(args) for j, size in enumerate(shape)
            }, case.label
        else:
            assert [tuple(t.get_shape()) for t in got_args] == args, case.label
            assert case.sizes is None
        assert [tuple(t.get_shape()) for t in got_results] == results, case.label


def test_conv_input_extent_covers_stride_and_dilation() -> None:
    """The input of a strided, dilated window is exactly what the last output pixel reads:
    the default compile of the payload agrees with a direct NumPy convolution."""
    conv = sweep_templates.Conv(1, 3, 4, 2, 3, kh=2, kw=3, stride=2, dilation=2)
    kernel = xlinalg.compile(conv.tensor())
    rng = np.random.default_rng(0)
    i = rng.standard_normal((1, 7, 11, 2)).astype(np.float32)
    assert conv.types("tensor")[0] == "tensor<1x7x11x2xf32>"
    f = rng.standard_normal((2, 3, 2, 3)).astype(np.float32)
    want = np.zeros((1, 3, 4, 3), np.float64)
    for y in range(3):
        for x in range(4):
            for p in range(2):
                for q in range(3):
                    want[0, y, x] += i[0, 2 * y + 2 * p, 2 * x + 2 * q] @ f[p, q]
    got = kernel(i, f)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_samples_satisfy_the_constraints_and_differ() -> None:
    schedule = (REPO / "search_spaces" / "matmul_vectorize.mlir").read_text()
    constraints = parse_constraints(schedule)
    found = sweep_templates.samples("matmul_vectorize", 3, seed=7)
    assert len(found) == 3 * len(sweep_templates.TEMPLATES["matmul_vectorize"]())
    for sample in found:
        assert first_violated(constraints, sample.knobs) is None
    first_case = [s.knobs for s in found if s.case == found[0].case]
    assert len({tuple(sorted(k.items())) for k in first_case}) == 3
    assert (
        sweep_templates.samples("matmul_vectorize", 3, seed=7)[0].knobs == found[0].knobs
    )  # seeded


def test_one_sample_runs_isolated_and_is_checked() -> None:
    sample = next(
        s for s in sweep_templates.samples("matmul_tile", 1, seed=0) if s.case == "7x13x5"
    )
    result = measure(sample.request, time_limit_s=120)
    assert result["status"] == "ok", result
    assert result["max_rel_error"] < 1e-5
    # the sweep's row counts it under `ok` and nothing else
    row = sweep_templates._row("matmul_tile", sample.case, Counter([result["status"]]))
    cells = [cell.strip() for cell in row.split("|")[2:]]
    assert cells == ["1" if s == "ok" else "0" for s in sweep_templates.STATUSES]


def test_the_table_has_a_column_for_every_status_a_sample_can_get() -> None:
    """Every status the tuner's worker gives has its column, but `too_slow`: the sweep's
    requests set no per-call limit, so none of its samples can get it."""
    assert set(sweep_templates.STATUSES) == {"ok", *FAILED_STATUSES} - {"too_slow"}
    assert all(
        s.request.slow_limit_s is None for s in sweep_templates.samples("reduction", 1, seed=0)
    )
