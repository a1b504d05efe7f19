"""Samplers (CMA-ES on numeric knobs, NSGA-II runtime vs compile time), results across
studies as one DataFrame, and the report's warning when hosts differ."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest
from optuna.samplers import CmaEsSampler, NSGAIISampler

from tuner import study as tuner_study
from tuner.export import best_schedule
from tuner.results import hosts, trials
from xlinalg.cli import main

from support import PAYLOAD, SPACE, needs_pipeline


def test_sampler_classes() -> None:
    space = tuner_study.load_space(SPACE)
    assert isinstance(tuner_study.make_sampler("cmaes", space, 0), CmaEsSampler)
    assert isinstance(tuner_study.make_sampler("nsga2", space, 0), NSGAIISampler)


@pytest.mark.slow
@needs_pipeline
def test_multi_objective_and_cmaes(tmp_path: Path) -> None:
    storage = f"sqlite:///{tmp_path}/m.db"
    study, space = tuner_study.setup(
        storage,
        "mo",
        PAYLOAD,
        SPACE,
        "mm.mlir",
        "space.mlir",
        n_trials=3,
        objectives=("time", "compile"),
        timing={"max_total_s": 0.02},
    )
    assert tuner_study.StudyInfo.of(study).sampler == "nsga2"
    assert len(study.directions) == 2
    study.enqueue_trial({"tile_m": 8, "reg_m": 2})  # one valid point whatever NSGA-II draws
    tuner_study.run(study, space, tuner_study.StudyInfo.of(study), n_trials=3)
    ok = tuner_study.ok_trials(study)
    assert ok
    assert all(len(t.values) == 2 for t in ok)
    assert all(t.values[1] == t.user_attrs["compile_s"] for t in ok)
    assert "transform.tune.knob" in best_schedule(storage, "mo")

    study, space = tuner_study.setup(
        storage,
        "cma",
        PAYLOAD,
        SPACE,
        "mm.mlir",
        "space.mlir",
        sampler="cmaes",
        n_trials=3,
        timing={"max_total_s": 0.02},
    )
    tuner_study.run(study, space, tuner_study.StudyInfo.of(study), n_trials=3)
    assert all(isinstance(v, int) for t in study.trials for v in t.params.values())  # ordinal
    assert tuner_study.counted_trials(study) == 3

    frame = trials(storage)  # every study of the storage
    assert set(frame["study"]) == {"mo", "cma"}
    assert len(frame) == 6
    for column in (
        "tile_m",
        "reg_m",
        "status",
        "median_s",
        "min_s",
        "cv",
        "gflops",
        "compile_s",
        "host",
        "datetime_start",
        "datetime_complete",
    ):
        assert column in frame.columns
    assert len(trials(storage, "mo")) == 3


def test_report_warns_when_hosts_differ(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    storage = f"sqlite:///{tmp_path}/h.db"
    study = optuna.create_study(study_name="h", storage=storage)
    dist = {"tile_m": optuna.distributions.CategoricalDistribution((4, 8))}
    for number, host in enumerate(("alpha", "beta")):
        study.add_trial(
            optuna.create_trial(
                params={"tile_m": 4 * (number + 1)},
                distributions=dist,
                value=1e-3,
                user_attrs={"status": "ok", "median_s": 1e-3, "host": host, "cpu": "znver4"},
            )
        )
    assert hosts(trials(storage, "h")) == ["alpha (znver4)", "beta (znver4)"]
    assert main(["report", "--storage", storage, "--study", "h"]) == 0
    err = capsys.readouterr().err
    assert "measured on 2 different hosts" in err
    assert "alpha (znver4)" in err
