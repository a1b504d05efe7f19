"""`xlinalg` command line: error paths (one line, exit 1, no traceback) and usage errors."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import FunctionType, f32

import xlinalg
from tuner.study import create_or_load
from xlinalg.cli import main

from support import PAYLOAD, REPO, cli_env, run_cli

SPACE = """\
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.generic"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %tm = transform.tune.knob<"tile_m"> options = [4, 8] -> !transform.param<i64>
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [%tm, 8, 0]
      : (!transform.any_op, !transform.param<i64>)
      -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
"""


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mm.mlir").write_text(PAYLOAD)
    (tmp_path / "space.mlir").write_text(SPACE)
    (tmp_path / "bad.mlir").write_text("func.func @f(%a: memref<4xf32>) {\n  %x = \n}\n")
    (tmp_path / "badspace.mlir").write_text(SPACE + "// xlinalg.constraint: tile_m %% 0\n")
    return tmp_path


def _fails_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    return err


def test_missing_file(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "'nope.mlir' does not exist" in _fails_with_one_line(capsys, ["opt", "nope.mlir"])
    err = _fails_with_one_line(capsys, ["run", "mm.mlir", "--schedule", "nope.mlir"])
    assert "schedule file 'nope.mlir' does not exist" in err
    err = _fails_with_one_line(capsys, ["tune", "mm.mlir", "--space", "nope.mlir"])
    assert "'nope.mlir' does not exist" in err


def test_malformed_payload_has_location(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails_with_one_line(capsys, ["opt", "bad.mlir"])
    assert re.match(r"bad\.mlir:3:1: error: ", err), err


def test_tune_rejects_malformed_payload_before_any_trial(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _fails_with_one_line(capsys, ["tune", "bad.mlir", "--space", "space.mlir"])
    assert re.match(r"bad\.mlir:3:1: error: ", err), err
    assert not (files / "results").exists()


def test_bad_knob_value(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails_with_one_line(
        capsys, ["opt", "mm.mlir", "--schedule", "space.mlir", "--knob", "tile_m=5"]
    )
    assert "tile_m" in err
    assert "5" in err


def test_bad_constraint_in_space(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails_with_one_line(
        capsys, ["tune", "mm.mlir", "--space", "badspace.mlir", "--trials", "1"]
    )
    assert err.startswith("badspace.mlir:12:23: error: constraint 'tile_m %% 0'")


def test_report_and_export_of_missing_study(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _fails_with_one_line(capsys, ["report", "--study", "nope"])
    assert "storage 'sqlite:///results/xlinalg.db' does not exist" in err
    assert not (files / "results").exists()  # reading never creates a storage
    storage = f"sqlite:///{files}/x.db"

    create_or_load(storage, "other")
    err = _fails_with_one_line(
        capsys, ["export", "--storage", storage, "--study", "nope", "-o", "b.mlir"]
    )
    assert "no study named 'nope'" in err
    assert "other" in err
    err = _fails_with_one_line(
        capsys, ["report", "--storage", "postgresql://u@127.0.0.1:1/x", "--study", "s"]
    )
    assert "cannot open storage 'postgresql://u@127.0.0.1:1/x'" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["tune", "mm.mlir"],  # --space is required
        ["tune", "mm.mlir", "--space", "s", "--trials", "0"],
        ["tune", "job.toml", "--space", "s"],  # a job file names its spaces
        ["opt", "mm.mlir", "--schedule", "space.mlir", "--knob", "tile_m"],
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_2(
    files: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
def test_console_entry_point_exit_codes(files: Path) -> None:
    proc = run_cli(files, "opt", "bad.mlir", timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.startswith("bad.mlir:3:1: error:")
    assert "Traceback" not in proc.stderr
    proc = run_cli(files, "opt", "bad.mlir", "--debug", timeout=60)
    assert proc.returncode == 1
    assert "Traceback" in proc.stderr


def test_cli_does_not_import_the_tuner() -> None:
    code = (
        "import sys, xlinalg, xlinalg.cli; "
        "assert not any(m == 'tuner' or m.startswith('tuner.') for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, env=cli_env())


@pytest.mark.slow
def test_ops_prints_the_coverage_tables() -> None:
    linalg = run_cli(REPO, "ops")
    assert linalg.returncode == 0, linalg.stderr
    assert "linalg.matmul" in linalg.stdout
    assert "linalg.conv_2d_nhwc_hwcf" in linalg.stdout
    transform = run_cli(REPO, "ops", "--transform")
    assert transform.returncode == 0, transform.stderr
    assert "transform.structured.tile_using_for" in transform.stdout


def test_opt_does_not_print_a_transformed_payload_that_does_not_verify(
    files: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`opt` verifies what the schedule produced before printing it: a transform that left
    invalid IR is one clear VerifyFailure, not text upstream tools would reject."""
    real = xlinalg.apply_schedule

    def breaking(*args: object, **kwargs: object) -> object:
        module = real(*args, **kwargs)  # type: ignore[arg-type]
        fn = next(op for op in module.walk() if op.name == "func.func")
        fn.function_type = FunctionType.from_lists([f32], [])  # arguments no longer match
        return module

    monkeypatch.setattr(xlinalg, "apply_schedule", breaking)
    err = _fails_with_one_line(
        capsys, ["opt", "mm.mlir", "--schedule", "space.mlir", "--knob", "tile_m=4"]
    )
    assert "transformed payload" in err, err
    assert "does not verify" in err, err
    monkeypatch.setattr(xlinalg, "apply_schedule", real)
    assert main(["opt", "mm.mlir", "--schedule", "space.mlir", "--knob", "tile_m=4"]) == 0
    assert "scf.for" in capsys.readouterr().out
