"""Isolated candidate measurement: crash, hang, compile error, and a study that goes on.

The crash and hang use the documented testing seam of `tuner.candidate`: a request's
`fault` ("crash" -> the child sends itself SIGSEGV, "hang" -> it sleeps forever), which
`tuner.worker.fault_for_trial` fills from `XLINALG_TUNER_TEST_FAULT`.
"""

from __future__ import annotations

import signal
import time
from dataclasses import replace
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

import xlinalg
from tuner import study as tuner_study
from tuner.candidate import CandidateRequest, run_candidate
from tuner.space import load_space
from tuner.worker import FAULT_ENV, TrialObjective, fault_for_trial, measure
from xlinalg.errors import TransformFailure

from support import PAYLOAD, SPACE, needs_pipeline


def test_fault_spec() -> None:
    assert fault_for_trial(0, "") is None
    assert fault_for_trial(3, "crash") == "crash"
    assert fault_for_trial(1, "crash@0,hang@1") == "hang"
    assert fault_for_trial(0, "crash@0,hang@1") == "crash"
    assert fault_for_trial(2, "crash@0,hang@1") is None


def test_crash_is_a_real_segfault_of_the_child() -> None:
    result = measure(CandidateRequest(payload=PAYLOAD, schedule=None, fault="crash"), 60)
    assert result["status"] == "crash"
    assert result["exit_code"] == -signal.SIGSEGV
    assert "SIGSEGV" in result["error"]


def test_hang_is_killed_at_the_time_limit() -> None:
    start = time.monotonic()
    result = measure(CandidateRequest(payload=PAYLOAD, schedule=None, fault="hang"), 1.0)
    assert result["status"] == "timeout"
    assert "time limit of 1 s" in result["error"]
    assert time.monotonic() - start < 15


def test_constraint_prunes_without_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[CandidateRequest] = []

    def fake_measure(request: CandidateRequest, limit: float) -> dict:
        calls.append(request)
        return {"status": "ok", "median_s": 1e-3, "gflops": 1.0, "error": ""}

    monkeypatch.setattr("tuner.worker.measure", fake_measure)
    space = load_space(SPACE)
    objective = TrialObjective(space=space, payload=PAYLOAD, schedule=SPACE)
    study = optuna.create_study()
    for reg_m in (1, 3):
        study.enqueue_trial({"tile_m": 4, "reg_m": reg_m})
    study.optimize(objective, n_trials=2)
    ok, pruned = study.trials
    assert ok.state == TrialState.COMPLETE
    assert ok.user_attrs["status"] == "ok"
    assert pruned.state == TrialState.PRUNED
    assert pruned.user_attrs["status"] == "pruned_constraint"
    assert "tile_m % reg_m == 0" in pruned.user_attrs["error"]
    assert [c.knobs for c in calls] == [{"tile_m": 4, "reg_m": 1}]  # only the valid one ran


def test_malformed_payload_is_a_compile_error_with_location() -> None:
    result = measure(CandidateRequest(payload="func.func @f( {", schedule=None), 60)
    assert result["status"] == "compile_error"
    assert "<payload>:1:" in result["error"]


@pytest.mark.slow
@needs_pipeline
def test_study_continues_after_crash_and_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FAULT_ENV, "crash@0,hang@1")
    storage = f"sqlite:///{tmp_path}/t.db"
    study, space = tuner_study.setup(
        storage,
        "faults",
        PAYLOAD,
        SPACE,
        "mm16.mlir",
        "space16.mlir",
        sampler="random",
        seed=0,
        n_trials=4,
        timing={"max_total_s": 0.05},
    )
    info = tuner_study.StudyInfo.of(study)
    for tile_m, reg_m in ((4, 1), (8, 1), (8, 2), (4, 2), (8, 2)):
        study.enqueue_trial({"tile_m": tile_m, "reg_m": reg_m})
    # The crash and the hang with a short limit, the good trials with the study's default
    # one (compile and timing take ~2 s at load 10: a short limit would kill them too).
    tuner_study.run(study, space, replace(info, time_limit_s=4.0), n_trials=2)
    tuner_study.run(study, space, info, n_trials=5)
    trials = study.get_trials()
    assert len(trials) == 5
    crash, hang, good1, good2, again = trials
    assert crash.state == TrialState.FAIL
    assert crash.user_attrs["status"] == "crash"
    assert "SIGSEGV" in crash.user_attrs["error"]
    assert hang.state == TrialState.FAIL
    assert hang.user_attrs["status"] == "timeout"
    for good in (good1, good2):
        assert good.state == TrialState.COMPLETE, good.user_attrs
        assert good.user_attrs["status"] == "ok"
        assert good.value == good.user_attrs["median_s"] > 0
        for key in ("gflops", "cv", "min_s", "compile_s", "repeats", "host", "cpu"):
            assert key in good.user_attrs
        assert good.user_attrs["gflops"] > 0
    assert again.user_attrs["duplicate_of"] == 2
    assert again.value == good1.value
    assert again.state == TrialState.COMPLETE
    assert tuner_study.counted_trials(study) == 5
    assert tuner_study.best_trial(study).number in (2, 3, 4)


class _Timing:
    median_s, min_s, cv, repeats, inner_loops = 2e-6, 1e-6, 0.05, 9, 100


class _Check:
    def __init__(self, ok: bool) -> None:
        self.ok, self.max_rel_error, self.message = ok, (0.0 if ok else 0.5), "argument #2: off"


class _Kernel:
    entry, compile_seconds = "f", 0.25

    def __init__(self, ok: bool = True, time_error: bool = False) -> None:
        self.ok, self.time_error = ok, time_error

    def make_inputs(self, seed: int = 0, sizes: object = None) -> list[int]:
        return [seed]

    def check(self, *arrays: object) -> _Check:
        return _Check(self.ok)

    def time(self, *arrays: object, **options: object) -> _Timing:
        if self.time_error:
            raise RuntimeError("boom")
        return _Timing()

    def flops(self, *arrays: object) -> int:
        assert arrays == (0,)  # the inputs, for dynamic sizes
        return 8000


@pytest.mark.parametrize(
    ("kernel", "status"),
    [
        (_Kernel(), "ok"),
        (_Kernel(ok=False), "wrong_result"),
        (_Kernel(time_error=True), "error"),
        (None, "compile_error"),
    ],
)
def test_candidate_statuses(
    monkeypatch: pytest.MonkeyPatch, kernel: _Kernel | None, status: str
) -> None:
    """How `run_candidate` classifies what the compiler API reports (in-process)."""

    def fake_compile(*args: object, **kwargs: object) -> _Kernel:
        if kernel is None:
            raise TransformFailure("cannot tile", "s.mlir:3:5", silenceable=False)
        return kernel

    monkeypatch.setattr(xlinalg, "compile", fake_compile)
    result = run_candidate(CandidateRequest(payload="p", schedule="s", knobs={"a": 1}))
    assert result["status"] == status
    if status == "ok":
        assert result["gflops"] == pytest.approx(8000 / 2e-6 / 1e9)
        assert (result["median_s"], result["repeats"], result["compile_s"]) == (2e-6, 9, 0.25)
    elif status == "wrong_result":
        assert "argument #2" in result["error"]
        assert result["max_rel_error"] == 0.5
    elif status == "error":
        assert result["error"] == "RuntimeError: boom"
    else:
        assert result["error"] == "s.mlir:3:5: error: cannot tile"
