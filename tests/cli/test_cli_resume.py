"""Resuming: kill `xlinalg tune` with SIGKILL mid-run, rerun the same command; every
trial finished before the kill is kept and the study reaches its budget."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from tuner.study import budget_trials

from support import (
    cli_command,
    cli_env,
    load_cli_study,
    needs_pipeline,
    run_cli,
    write_tuner_files,
)

pytestmark = needs_pipeline


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return write_tuner_files(tmp_path)


@pytest.mark.slow
def test_resume_after_sigkill_keeps_every_trial(work: Path) -> None:
    # 12 trials over a 4-point space (repeats are pruned at once) with 0.5 s of timing per
    # measured point: after two completed trials at least two new points (>= 1 s) are left,
    # so the kill below lands before the run is done (with 6 trials and 0.05 s the whole
    # run could finish between two polls).
    args = (
        "tune",
        "mm.mlir",
        "--space",
        "space.mlir",
        "--trials",
        "12",
        "--study",
        "r",
        "--sampler",
        "random",
        "--seed",
        "1",
        "--timing-budget",
        "0.5",
    )
    log = (work / "first.log").open("w")
    first = subprocess.Popen(
        cli_command(*args), cwd=work, stdout=log, stderr=subprocess.STDOUT, env=cli_env()
    )
    deadline = time.monotonic() + 90
    done: list[optuna.trial.FrozenTrial] = []
    while time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.2)
        try:
            done = budget_trials(load_cli_study(work, "r"))
        except Exception:  # the study may not exist yet or the db is busy
            continue
        if len([t for t in done if t.state == TrialState.COMPLETE]) >= 2:
            break
    assert first.poll() is None, "the first run ended before it could be killed"
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    log.close()
    assert first.returncode == -signal.SIGKILL
    before = {
        t.number: (t.state, t.value, t.params) for t in budget_trials(load_cli_study(work, "r"))
    }
    assert 2 <= len(before) < 12

    second = run_cli(work, *args)
    assert second.returncode == 0, second.stderr
    assert f"{len(before)} trial(s) already done" in second.stdout
    study = load_cli_study(work, "r")
    after = {t.number: (t.state, t.value, t.params) for t in budget_trials(study)}
    assert len(after) == 12
    for number, record in before.items():
        assert after[number] == record
