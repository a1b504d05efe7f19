"""Studies (create/resume, attrs, budget counting), report and export, on recorded trials."""

from __future__ import annotations

import json
from pathlib import Path

import optuna
import pytest
from optuna.distributions import CategoricalDistribution
from optuna.trial import TrialState, create_trial

from tuner import study as tuner_study
from tuner.errors import TunerError
from tuner.export import best_schedule
from tuner.plots import write_plots
from tuner.report import format_table, knob_columns, trials_dataframe
from tuner.storage import open_storage

PAYLOAD = "func.func @f(%a: memref<4xf32>) {\n  return\n}\n"
SPACE = """\
// xlinalg.constraint: tile_m % reg_m == 0
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.generic"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %tm = transform.tune.knob<"tile_m"> options = [4, 8] -> !transform.param<i64>
    %rm = transform.tune.knob<"reg_m"> options = [1, 2, 3] -> !transform.param<i64>
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [%tm, %rm]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
      -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
"""
DISTS = {"tile_m": CategoricalDistribution([4, 8]), "reg_m": CategoricalDistribution([1, 2, 3])}


def _trial(tile_m: int, reg_m: int, state: TrialState, **attrs: object) -> optuna.trial.FrozenTrial:
    params = {"tile_m": tile_m, "reg_m": reg_m}
    value = attrs.get("median_s") if state == TrialState.COMPLETE else None
    attrs.setdefault("knobs", json.dumps(params))
    return create_trial(
        params=params, distributions=DISTS, value=value, state=state, user_attrs=dict(attrs)
    )


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[str, str]:
    storage = f"sqlite:///{tmp_path}/s.db"
    study, _ = tuner_study.setup(
        storage, "mm-space", PAYLOAD, SPACE, "mm.mlir", "space.mlir", n_trials=10
    )
    study.add_trial(
        _trial(
            4,
            1,
            TrialState.COMPLETE,
            status="ok",
            median_s=2e-3,
            gflops=1.0,
            cv=0.01,
            min_s=1.9e-3,
            compile_s=0.5,
            repeats=9,
        )
    )
    study.add_trial(
        _trial(4, 3, TrialState.PRUNED, status="pruned_constraint", error="violates constraint")
    )
    study.add_trial(
        _trial(
            8,
            2,
            TrialState.COMPLETE,
            status="ok",
            median_s=1e-3,
            gflops=2.0,
            cv=0.02,
            min_s=0.9e-3,
            compile_s=0.4,
            repeats=7,
        )
    )
    study.add_trial(
        _trial(
            8, 1, TrialState.FAIL, status="crash", error="candidate process was killed by SIGSEGV"
        )
    )
    study.add_trial(_trial(4, 2, TrialState.FAIL))  # killed before recording a status
    return storage, "mm-space"


def test_default_study_name() -> None:
    assert (
        tuner_study.default_study_name("examples/matmul_512.mlir", "search_spaces/matmul_tile.mlir")
        == "matmul_512-matmul_tile"
    )


def test_default_storage_creates_results_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    tuner_study.create_or_load("sqlite:///results/xlinalg.db", "s")
    assert (tmp_path / "results" / "xlinalg.db").is_file()
    tuner_study.create_or_load(f"journal:{tmp_path}/j/x.journal", "s")
    assert (tmp_path / "j" / "x.journal").exists()
    with pytest.raises(TunerError, match="not a URL"):
        open_storage("results/xlinalg.db")


def test_study_records_inputs_and_resumes(recorded: tuple[str, str]) -> None:
    storage, name = recorded
    study, _ = tuner_study.setup(
        storage, name, PAYLOAD, SPACE, "mm.mlir", "space.mlir", sampler="tpe", seed=3, n_trials=12
    )
    info = tuner_study.StudyInfo.of(study)
    assert (info.payload, info.space, info.payload_name, info.space_name) == (
        PAYLOAD,
        SPACE,
        "mm.mlir",
        "space.mlir",
    )
    assert info.n_trials == 12
    assert "llvm_cpu" in study.user_attrs["host_info"]
    assert len(study.trials) == 5  # loaded, not recreated
    assert tuner_study.counted_trials(study) == 4  # the interrupted FAIL does not count
    assert tuner_study.best_trial(study).params == {"tile_m": 8, "reg_m": 2}
    with pytest.raises(TunerError, match="different payload"):
        tuner_study.setup(storage, name, PAYLOAD + "\n", SPACE, "mm.mlir", "space.mlir")


def test_load_missing_study_names_the_existing_ones(recorded: tuple[str, str]) -> None:
    storage, _ = recorded
    with pytest.raises(TunerError, match=r"no study named 'nope'.*mm-space"):
        tuner_study.load(storage, "nope")


def test_report_best_first(recorded: tuple[str, str]) -> None:
    frame = trials_dataframe(*recorded)
    assert list(frame.columns) == [
        "number",
        "tile_m",
        "reg_m",
        "status",
        "median_s",
        "gflops",
        "cv",
        "min_s",
        "compile_s",
        "repeats",
        "host",
        "cpu",
        "worker",
        "state",
        "datetime_start",
        "datetime_complete",
        "duration_s",
        "error",
        "duplicate_of",
    ]
    assert list(frame["number"]) == [2, 0, 1, 3, 4]
    assert list(frame["status"]) == ["ok", "ok", "pruned_constraint", "crash", "interrupted"]
    assert frame.loc[0, "gflops"] == 2.0
    assert frame.loc[0, "tile_m"] == 8
    assert list(frame["state"]) == ["COMPLETE", "COMPLETE", "PRUNED", "FAIL", "FAIL"]
    table = format_table(frame, top=2)
    assert "crash" not in table
    assert "2.00" in table


def test_export_best(recorded: tuple[str, str]) -> None:
    text = best_schedule(*recorded)
    assert text.startswith("// xlinalg: best schedule of study 'mm-space' (trial 2")
    assert 'transform.tune.knob<"tile_m"> = 8 from options = [4, 8]' in text
    assert 'transform.tune.knob<"reg_m"> = 2 from options = [1, 2, 3]' in text
    constants = best_schedule(*recorded, as_constants=True, header=False)
    assert "transform.tune.knob" not in constants
    assert "transform.param.constant 8" in constants


def test_export_without_success(tmp_path: Path) -> None:
    storage = f"sqlite:///{tmp_path}/e.db"
    tuner_study.setup(storage, "empty", PAYLOAD, SPACE, "mm.mlir", "space.mlir")
    with pytest.raises(TunerError, match="no successful trial"):
        best_schedule(storage, "empty")


def test_plots_are_png(recorded: tuple[str, str], tmp_path: Path) -> None:
    frame = trials_dataframe(*recorded)
    assert knob_columns(frame) == ["tile_m", "reg_m"]
    written, skipped = write_plots(tuner_study.load(*recorded), str(tmp_path / "p"))
    names = sorted(Path(p).name for p in written)
    assert names == ["history.png", "importance.png", "knobs.png"], skipped
    for path in written:
        data = Path(path).read_bytes()
        assert data.startswith(b"\x89PNG")
        assert len(data) > 5000
