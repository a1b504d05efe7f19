"""one_shot_bufferize {test_analysis_only = true}: the payload stays on tensors and its
ops carry upstream's `__inplace_operands_attr__` with the in-place decisions xlinalg's
bufferizer takes (the markers of one payload: tests/filecheck/transform/bufferization/
one_shot_bufferize.mlir); a single-op target is a silenceable failure as upstream."""

from __future__ import annotations

import pytest

import xlinalg
from xlinalg.errors import TransformFailure
from xlinalg.transforms.bufferization.markers import INPLACE_ATTR

from support import needs_iree
from support.tensors import ANALYSIS_PAYLOAD
from support.transform import schedule, upstream_output

TESTED_OPS = ["transform.bufferization.one_shot_bufferize"]

ANY = "!transform.any_op"
ANALYSIS = (
    f"    %b = transform.bufferization.one_shot_bufferize %root "
    f"<bufferize_function_boundaries = true, test_analysis_only = true> : ({ANY}) -> {ANY}\n"
)


def _marks(module) -> dict[str, list[str]]:
    marks: dict[str, list[str]] = {}
    for op in module.walk():
        if INPLACE_ATTR in op.attributes:
            key = (
                op.name
                if op.name not in marks
                else f"{op.name}#{sum(k.startswith(op.name) for k in marks)}"
            )
            marks[key] = [m.data for m in op.attributes[INPLACE_ATTR].data]
    return marks


def test_a_single_op_target_is_a_silenceable_failure() -> None:
    body = (
        f'    %g = transform.structured.match ops{{["linalg.fill"]}} in %root : ({ANY}) -> {ANY}\n'
        f"    %b = transform.bufferization.one_shot_bufferize %g : ({ANY}) -> {ANY}\n"
    )
    with pytest.raises(TransformFailure, match="expected module or function target") as info:
        xlinalg.apply_schedule(ANALYSIS_PAYLOAD, schedule(body))
    assert info.value.silenceable


@needs_iree
def test_iree_opt_annotates_the_same_ops(tmp_path) -> None:
    """Same schedule in iree-opt: the same ops get a marker with the same number of
    entries, and the same "none"s (the decisions themselves may differ: upstream writes
    function arguments in place, xlinalg never does)."""

    theirs = _marks(
        xlinalg.parse(upstream_output(ANALYSIS_PAYLOAD, ANALYSIS.replace("    ", ""), tmp_path))
    )
    ours = _marks(xlinalg.apply_schedule(ANALYSIS_PAYLOAD, schedule(ANALYSIS)))
    assert theirs.keys() == ours.keys()
    for key in ours:
        assert [m == "none" for m in theirs[key]] == [m == "none" for m in ours[key]]
    assert theirs == ours  # on this payload (no argument written) the decisions agree too
