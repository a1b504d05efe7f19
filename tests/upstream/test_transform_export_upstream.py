"""Exported schedules (`--as-constants`) for upstream tools: every search space in
search_spaces/, exported with the first option of every knob, has no tune-extension op
left, parses and verifies in iree-opt, and (where a payload IREE 3.13 knows exists)
runs in `iree-opt --transform-interpreter`. Param pack sizes, which upstream takes only
as handles, are folded into static sizes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX

import xlinalg
from tuner.export import export_schedule
from xlinalg.dialects.transform.structured_pack import PackOp
from xlinalg.transforms.transform.static_params import fold_static_params

from support import REPO, needs_iree, run_iree_opt

TESTED_OPS = ["transform.structured.pack"]

SPACES = sorted(p.stem for p in (REPO / "search_spaces").glob("*.mlir"))
# payloads iree-opt can run each space on (the others: IREE 3.13 lacks linalg.add/mul
# (elementwise_fusion), or the payload is ours only; see RUN_DIFFERS for two more)
PAYLOADS = {
    "matmul_tile": "matmul_512.mlir",
    "matmul_vectorize": "matmul_512.mlir",
    "matmul_parallel": "matmul_tensor_512.mlir",
    "mmt4d": "mmt4d_1024.mlir",
    "batch_matmul": "batch_matmul_8x256.mlir",
    "reduction": "reduction_rows.mlir",
}
# Spaces that parse in iree-opt but whose default knobs do more than upstream's ops:
# our vectorize also vectorizes 2-D convolutions (upstream: 1-D ones only), and
# upstream cannot vectorize the packed generic of matmul_mmt4d's micro-kernel.
RUN_DIFFERS = {
    "conv2d_nhwc_hwcf": ("conv2d_56x56x64.mlir", "Attempted to vectorize, but failed"),
    "matmul_mmt4d": ("matmul_tensor_512.mlir", "Attempted to vectorize, but failed"),
}


def _export(name: str) -> str:
    space = (REPO / "search_spaces" / f"{name}.mlir").read_text()
    values = {k.name: k.options[0] for k in xlinalg.list_knobs(space)}
    return export_schedule(space, values, as_constants=True).replace("builtin.module", "module", 1)


@pytest.mark.parametrize("name", SPACES)
def test_export_has_no_tune_ops_and_reparses(name: str) -> None:
    text = _export(name)
    assert "transform.tune." not in text
    assert str(xlinalg.parse(text)).replace("builtin.module", "module", 1) == text


def test_pack_sizes_are_folded_to_static() -> None:
    text = _export("matmul_mmt4d")
    (pack,) = [op for op in xlinalg.parse(text).walk() if isinstance(op, PackOp)]
    assert not pack.packed_sizes
    assert DYNAMIC_INDEX not in list(pack.static_packed_sizes.get_values())  # type: ignore[union-attr]
    assert "packed_sizes = [4, 16, 0]" in text  # m0, n0 first options


def test_fold_leaves_non_constant_params_alone() -> None:
    text = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}, %p: !transform.param<i64> {transform.readonly}) {
    %c = transform.param.constant 8 : i64 -> !transform.param<i64>
    %packed = transform.structured.pack %root packed_sizes = [%c, %p, 0] : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}
"""
    module = xlinalg.parse(text)
    assert fold_static_params(module) == 1
    printed = str(module)
    assert "packed_sizes = [8, %p, 0]" in printed
    assert "param.constant" not in printed


@needs_iree
@pytest.mark.parametrize("name", SPACES)
def test_iree_opt_parses_every_export(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.mlir"
    path.write_text(_export(name))
    proc = run_iree_opt(path)
    assert proc.returncode == 0, proc.stderr


def _run(name: str, payload: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    text = (REPO / "examples" / payload).read_text()
    path = tmp_path / f"run_{name}.mlir"
    path.write_text("module {\n" + text + "\n" + _export(name) + "\n}\n")
    return run_iree_opt(path, "--transform-interpreter")


@needs_iree
@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_iree_opt_runs_the_export_on_its_payload(name: str, tmp_path: Path) -> None:
    proc = _run(name, PAYLOADS[name], tmp_path)
    assert proc.returncode == 0, proc.stderr


@needs_iree
@pytest.mark.parametrize("name", sorted(RUN_DIFFERS))
def test_documented_differences_still_hold(name: str, tmp_path: Path) -> None:
    payload, message = RUN_DIFFERS[name]
    proc = _run(name, payload, tmp_path)
    assert proc.returncode != 0
    assert message in proc.stderr
    # ours applies the same export to the same payload
    xlinalg.apply_schedule(xlinalg.parse((REPO / "examples" / payload).read_text()), _export(name))
