"""Resuming: kill `xlinalg tune` with SIGKILL mid-run, rerun the same command; every
trial finished before the kill is kept and the study reaches its budget."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

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


def test_resume_after_sigkill_keeps_every_trial(work: Path) -> None:
    args = ("tune", "mm.mlir", "--space", "space.mlir", "--trials", "6", "--study", "r",
            "--sampler", "random", "--seed", "1", "--timing-budget", "0.05")
    log = (work / "first.log").open("w")
    first = subprocess.Popen(_cmd(*args), cwd=work, stdout=log, stderr=subprocess.STDOUT,
                             env=_env())
    deadline = time.monotonic() + 90
    done: list[optuna.trial.FrozenTrial] = []
    while time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.2)
        try:
            done = _counted(_study(work, "r"))
        except Exception:  # noqa: BLE001, S112 - the study may not exist yet or the db is busy
            continue
        if len([t for t in done if t.state == TrialState.COMPLETE]) >= 2:
            break
    assert first.poll() is None, "the first run ended before it could be killed"
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    log.close()
    assert first.returncode == -signal.SIGKILL
    before = {t.number: (t.state, t.value, t.params) for t in _counted(_study(work, "r"))}
    assert 2 <= len(before) < 6

    second = xlinalg(work, *args)
    assert second.returncode == 0, second.stderr
    assert f"{len(before)} trial(s) already done" in second.stdout
    study = _study(work, "r")
    after = {t.number: (t.state, t.value, t.params) for t in _counted(study)}
    assert len(after) == 6
    for number, record in before.items():
        assert after[number] == record
