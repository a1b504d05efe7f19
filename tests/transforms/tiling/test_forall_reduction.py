"""`transform.structured.tile_reduction_using_forall`: the spec's example ([002],
CHECKLIST E.3) reproduced, results against NumPy, return modes, consumed handle."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg

from support.tiling import MATCH, SPEC_PAYLOAD
from support.transform import fails, schedule

TESTED_OPS = ["transform.structured.tile_reduction_using_forall"]

SPEC_SCRIPT = MATCH + (
    "    %forall, %fill, %split, %combine = transform.structured.tile_reduction_using_forall %0\n"
    "      by num_threads = [0, 5], tile_sizes = [], mapping = []\n"
    '    transform.annotate %fill "fill" : !transform.any_op\n'
    '    transform.annotate %split "split" : !transform.any_op\n'
    '    transform.annotate %combine "combine" : !transform.any_op\n'
)


@pytest.mark.parametrize(("rows", "cols"), [(7, 23), (3, 5), (4, 3), (1, 1)])
def test_spec_example_computes_row_sums(rows: int, cols: int) -> None:
    kernel = xlinalg.compile(SPEC_PAYLOAD, schedule=schedule(SPEC_SCRIPT), entry="f")
    rng = np.random.default_rng(rows * 100 + cols)
    a = rng.random((rows, cols), dtype=np.float32)
    out = rng.random(rows, dtype=np.float32)
    got = kernel(a, out)
    np.testing.assert_allclose(got, out + a.sum(axis=1), rtol=1e-5, atol=1e-5)
    assert "xl_forall_run" in kernel.lowered.llvm_ir


def test_max_reduction_uses_its_neutral_element() -> None:
    payload = SPEC_PAYLOAD.replace("arith.addf", "arith.maximumf")
    kernel = xlinalg.compile(payload, schedule=schedule(SPEC_SCRIPT), entry="f")
    a = -np.arange(1, 22, dtype=np.float32).reshape(3, 7)
    out = np.full(3, -100.0, np.float32)
    np.testing.assert_array_equal(kernel(a, out), a.max(axis=1))


def test_return_modes_and_consumed_handle() -> None:
    def script_for(threads: str, sizes: str) -> str:
        return MATCH + (
            "    %a, %b, %c, %d = transform.structured.tile_reduction_using_forall %0\n"
            f"      by num_threads = [{threads}], tile_sizes = [{sizes}]\n"
        )

    fails(SPEC_PAYLOAD, script_for("5, 0", ""), silenceable=True, match="on a reduction loop")
    fails(SPEC_PAYLOAD, script_for("2, 5", ""), silenceable=True, match="exactly one non-zero")
    fails(SPEC_PAYLOAD, script_for("", "2, 0"), silenceable=True, match="on a reduction loop")
    fails(
        SPEC_PAYLOAD,
        script_for("0, 5", "") + '    transform.annotate %0 "again" : !transform.any_op\n',
        silenceable=False,
        match="consumed by 'transform.structured.tile_reduction_using_forall'",
    )


def test_syntax_round_trips() -> None:
    text = schedule(SPEC_SCRIPT)
    printed = str(xlinalg.parse(text))
    # the spec's form (no types) prints in the spec's form, so its handle order survives
    # re-parsing (the upstream form is printed in upstream's spelling:
    # test_transform_tile_reduction_forall.py)
    assert (
        "%forall, %fill, %split, %combine = transform.structured.tile_reduction_using_forall "
        "%0 by num_threads = [0, 5], tile_sizes = [], mapping = []\n" in printed
    )
    assert str(xlinalg.parse(printed)) == printed
