"""End to end through the `xlinalg` command: tune -> report -> export -> run, and a second
worker joining the study. Tiny 16x16 kernels, few trials (resuming: test_cli_resume.py)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from xlinalg.cli import main

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("xlinalg.lowering.pipeline") is None,
    reason="the lowering pipeline (xlinalg.lowering.pipeline) is not in the tree yet",
)

PAYLOAD = """\
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (k, n)>
#mC = affine_map<(m, n, k) -> (m, n)>
func.func @matmul(%A: memref<16x16xf32>, %B: memref<16x16xf32>, %C: memref<16x16xf32>) {
  linalg.generic {indexing_maps = [#mA, #mB, #mC],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<16x16xf32>, memref<16x16xf32>) outs(%C : memref<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  }
  return
}
"""

SPACE = """\
// xlinalg.constraint: tile_m % reg_m == 0
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.generic"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %tm = transform.tune.knob<"tile_m"> options = [4, 8] -> !transform.param<i64>
    %rm = transform.tune.knob<"reg_m"> options = [1, 2, 3] -> !transform.param<i64>
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [%tm, 8, 0]
      : (!transform.any_op, !transform.param<i64>)
      -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %r, %rl = transform.structured.tile_using_for %t tile_sizes [%rm, 0, 0]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
"""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "mm.mlir").write_text(PAYLOAD)
    (tmp_path / "space.mlir").write_text(SPACE)
    return tmp_path


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "xlinalg.cli", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def xlinalg(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_cmd(*args), cwd=cwd, capture_output=True, text=True, env=_env(),
                          timeout=timeout, check=False)


def _study(cwd: Path, name: str) -> optuna.Study:
    return optuna.load_study(study_name=name, storage=f"sqlite:///{cwd}/results/xlinalg.db")


def _counted(study: optuna.Study) -> list[optuna.trial.FrozenTrial]:
    return [t for t in study.get_trials()
            if t.state in (TrialState.COMPLETE, TrialState.PRUNED)
            or (t.state == TrialState.FAIL and "status" in t.user_attrs)]


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run a command in this process (faster than a new interpreter); returns its stdout."""
    code = main(list(argv))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Traceback" not in captured.err
    return captured.out


def test_tune_report_export_run(work: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    tune = xlinalg(work, "tune", "mm.mlir", "--space", "space.mlir", "--trials", "4",
                   "--sampler", "random", "--seed", "0", "--timing-budget", "0.05")
    assert tune.returncode == 0, tune.stderr
    out = tune.stdout
    assert "Traceback" not in tune.stderr
    assert sum(line.startswith("[") and "trial" in line for line in out.splitlines()) == 4
    assert "study:    mm-space" in out
    assert "storage:  sqlite:///results/xlinalg.db" in out
    assert "schedule: results/mm-space.best.mlir" in out
    assert "GFLOP/s" in out.split("best:", 1)[1]
    assert (work / "results" / "mm-space.best.mlir").is_file()

    monkeypatch.chdir(work)
    _main(capsys, "report", "--study", "mm-space", "--csv", "t.csv", "--top", "2")
    lines = (work / "t.csv").read_text().splitlines()
    assert lines[0].startswith("number,tile_m,reg_m,status,median_s,gflops")
    assert len(lines) == 1 + 4
    assert lines[1].split(",")[3] == "ok"

    _main(capsys, "export", "--study", "mm-space", "-o", "best.mlir")
    best = (work / "best.mlir").read_text()
    assert 'transform.tune.knob<"tile_m"> = ' in best and "from options = [4, 8]" in best
    _main(capsys, "export", "--study", "mm-space", "-o", "c.mlir", "--as-constants")
    assert "transform.tune" not in (work / "c.mlir").read_text()

    out = _main(capsys, "run", "mm.mlir", "--schedule", "best.mlir", "--check", "--repeats", "3")
    assert "check:   ok" in out and "GFLOP/s" in out
    assert "(3 repeats x" in out

    _main(capsys, "worker", "--storage", "sqlite:///results/xlinalg.db", "--study", "mm-space",
          "--trials", "5")
    assert len(_counted(_study(work, "mm-space"))) == 5
