"""Results of a study as a pandas DataFrame (one row per trial, best first)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
from optuna.trial import FrozenTrial, TrialState

from tuner.study import load

METRICS = ("median_s", "gflops", "cv", "min_s", "compile_s", "repeats")


def _status(trial: FrozenTrial) -> str:
    status = trial.user_attrs.get("status")
    if status:
        return str(status)
    if trial.state == TrialState.RUNNING:
        return "running"
    if trial.state == TrialState.WAITING:
        return "waiting"
    return "interrupted"  # FAIL without a recorded result: its process was killed


def _knobs(trial: FrozenTrial) -> dict[str, Any]:
    text = trial.user_attrs.get("knobs")
    if isinstance(text, str):
        try:
            values = json.loads(text)
            if isinstance(values, dict):
                return values
        except json.JSONDecodeError:
            pass
    return dict(trial.params)


def trials_dataframe(storage: str, study_name: str) -> pd.DataFrame:
    """One row per trial: number, every knob, status, median_s, gflops, cv, min_s,
    compile_s, repeats, state, datetime, error, duplicate_of (the trial whose measurement
    a repeated configuration reuses); successful trials first, fastest first,
    then the others by trial number."""
    study = load(storage, study_name)
    trials = study.get_trials(deepcopy=False)
    knob_names: list[str] = []
    rows: list[dict[str, Any]] = []
    for trial in trials:
        knobs = _knobs(trial)
        for name in knobs:
            if name not in knob_names:
                knob_names.append(name)
        row: dict[str, Any] = {"number": trial.number}
        row.update(knobs)
        row["status"] = _status(trial)
        for metric in METRICS:
            row[metric] = trial.user_attrs.get(metric)
        if row["median_s"] is None and trial.value is not None:
            row["median_s"] = trial.value
        row["state"] = trial.state.name
        row["datetime"] = trial.datetime_start
        row["error"] = trial.user_attrs.get("error", "")
        row["duplicate_of"] = trial.user_attrs.get("duplicate_of")
        rows.append(row)
    clashes = [name for name in knob_names if name in ("number", "status", "state",
                                                        "datetime", "error", *METRICS)]
    if clashes:
        raise ValueError(f"knob names clash with report columns: {', '.join(clashes)}")
    columns = ["number", *knob_names, "status", *METRICS, "state", "datetime", "error",
               "duplicate_of"]
    frame = pd.DataFrame(rows, columns=columns)
    if frame.empty:
        return frame
    ok = frame["status"] == "ok"
    best = frame[ok].sort_values(["median_s", "number"], kind="stable")
    rest = frame[~ok].sort_values("number", kind="stable")
    return pd.concat([best, rest], ignore_index=True)


def knob_columns(frame: pd.DataFrame) -> list[str]:
    """The knob columns of a `trials_dataframe` (between `number` and `status`)."""
    columns = list(frame.columns)
    return columns[1:columns.index("status")]


def format_table(frame: pd.DataFrame, top: int | None = None) -> str:
    """A human-readable table (times in ms, GFLOP/s and CV rounded)."""
    if frame.empty:
        return "(no trials)"
    shown = frame.head(top) if top is not None else frame
    view = shown.drop(columns=["state", "datetime", "duplicate_of"]).copy()
    view["median_ms"] = view.pop("median_s").map(lambda v: "" if pd.isna(v) else f"{v*1e3:.4g}")
    view["min_ms"] = view.pop("min_s").map(lambda v: "" if pd.isna(v) else f"{v*1e3:.4g}")
    view["gflops"] = view["gflops"].map(lambda v: "" if pd.isna(v) else f"{v:.2f}")
    view["cv"] = view["cv"].map(lambda v: "" if pd.isna(v) else f"{v*100:.1f}%")
    view["compile_s"] = view["compile_s"].map(lambda v: "" if pd.isna(v) else f"{v:.2f}")
    view["repeats"] = view["repeats"].map(lambda v: "" if pd.isna(v) else str(int(v)))
    view["error"] = view.pop("error").map(lambda v: "" if not v else str(v)[:60])
    duplicates = shown["duplicate_of"]
    if duplicates.notna().any():  # repeated configurations reuse an earlier measurement
        view.insert(view.columns.get_loc("status") + 1, "same_as",
                    duplicates.map(lambda v: "" if pd.isna(v) else f"#{int(v)}"))
    return view.to_string(index=False)
