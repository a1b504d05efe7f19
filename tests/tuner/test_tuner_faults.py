"""Faulty candidates each end as their own status while the study goes on: a real
segfault (`crash`), a hang (`timeout`), a genuinely wrong output (`wrong_result`: the
kernel runs, then the child corrupts its output buffer before the real comparison
with the reference) and a candidate far slower than the best (`too_slow`)."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from tuner import study as tuner_study
from tuner.candidate import CandidateRequest, probe_seconds
from tuner.worker import FAULT_ENV, measure, slow_limit

from support import PAYLOAD, SPACE, needs_pipeline

pytestmark = needs_pipeline


def test_crash_hang_and_wrong_result_are_distinct(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FAULT_ENV, "crash@0,hang@1,wrong@2")
    storage = f"sqlite:///{tmp_path}/f.db"
    study, space = tuner_study.setup(
        storage,
        "faults",
        PAYLOAD,
        SPACE,
        "mm.mlir",
        "space.mlir",
        sampler="random",
        seed=0,
        n_trials=4,
        timing={"max_total_s": 0.05},
    )
    for tile_m, reg_m in ((4, 1), (8, 1), (8, 2), (4, 2)):
        study.enqueue_trial({"tile_m": tile_m, "reg_m": reg_m})
    info = tuner_study.StudyInfo.of(study)
    # The crash and the hang with a short limit; the candidates that compile and run with
    # the study's default one (a good trial takes ~2 s of compile and timing at load 10).
    tuner_study.run(study, space, replace(info, time_limit_s=3.0), n_trials=2, storage_url=storage)
    tuner_study.run(study, space, info, n_trials=4, storage_url=storage)
    crash, hang, wrong, good = study.get_trials()
    assert [t.user_attrs["status"] for t in (crash, hang, wrong, good)] == [
        "crash",
        "timeout",
        "wrong_result",
        "ok",
    ]
    assert all(t.state == TrialState.FAIL for t in (crash, hang, wrong))
    assert "SIGSEGV" in crash.user_attrs["error"]
    assert "time limit of 3 s" in hang.user_attrs["error"]
    assert "argument #2" in wrong.user_attrs["error"]  # the output C differs
    assert wrong.user_attrs["max_rel_error"] > 0.01
    assert "compile_s" in wrong.user_attrs  # it compiled and ran for real
    assert good.state == TrialState.COMPLETE
    assert tuner_study.best_trial(study).number == 3


def test_too_slow_single_call_is_stopped_by_the_child() -> None:
    request = CandidateRequest(
        payload=PAYLOAD, schedule=None, slow_limit_s=1e-9, timing={"max_total_s": 0.05}
    )
    result = measure(request, 60)
    assert result["status"] == "too_slow"
    assert "10x the best so far" in result["error"]
    assert result["call_s"] > 1e-9
    assert "median_s" not in result  # not timed further


def test_probe_time_is_not_the_time_waiting_for_a_cpu() -> None:
    """A call descheduled for a while (a sleep here: wall time without CPU time) is not
    slow; a call that computes for as long is."""

    def descheduled() -> None:
        time.sleep(0.05)

    def computing() -> None:
        end = time.process_time() + 0.05
        while time.process_time() < end:
            pass

    assert probe_seconds(descheduled, []) < 0.025
    assert probe_seconds(computing, []) >= 0.05


def test_too_slow_stalled_call_is_killed_by_the_parent() -> None:
    started = time.monotonic()
    request = CandidateRequest(payload=PAYLOAD, schedule=None, slow_limit_s=0.01, fault="slow")
    result = measure(request, 120)  # the overall limit alone would wait 2 minutes
    assert result["status"] == "too_slow"
    assert "ran longer than 10 ms" in result["error"]
    assert time.monotonic() - started < 20


def test_slow_limit_follows_the_best_so_far(tmp_path: Path) -> None:
    study = optuna.create_study()
    assert slow_limit(study) is None
    for median in (0.5, 0.2):
        study.add_trial(
            optuna.create_trial(value=median, user_attrs={"status": "ok", "median_s": median})
        )
    assert slow_limit(study) == pytest.approx(2.0)
