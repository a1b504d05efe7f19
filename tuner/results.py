"""Results of one or many studies as pandas DataFrames, one row per trial.

    from tuner.results import trials
    frame = trials("sqlite:///results/xlinalg.db")                 # every study there
    frame = trials("sqlite:///results/xlinalg.db", ["mm512", "mm1024"])

Columns: `study`, `number`, every knob (of every study; empty where a study has no
such knob), `status`, `median_s`, `min_s`, `cv`, `gflops`, `compile_s`, `repeats`,
`host`, `cpu`, `worker`, `state`, `datetime_start`, `datetime_complete`,
`duration_s`, `error`, `duplicate_of`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import optuna
import pandas as pd
from optuna.trial import FrozenTrial, TrialState

from tuner.storage import open_storage
from tuner.study import load

METRICS = ("median_s", "gflops", "cv", "min_s", "compile_s", "repeats")
INFO = ("host", "cpu", "worker")
TIMES = ("datetime_start", "datetime_complete", "duration_s")


def status_of(trial: FrozenTrial) -> str:
    status = trial.user_attrs.get("status")
    if status:
        return str(status)
    if trial.state == TrialState.RUNNING:
        return "running"
    if trial.state == TrialState.WAITING:
        return "waiting"
    return "interrupted"  # FAIL without a recorded result: its process was killed


def knobs_of(trial: FrozenTrial) -> dict[str, Any]:
    text = trial.user_attrs.get("knobs")
    if isinstance(text, str):
        try:
            values = json.loads(text)
            if isinstance(values, dict):
                return values
        except json.JSONDecodeError:
            pass
    return dict(trial.params)


def _row(study_name: str, trial: FrozenTrial) -> dict[str, Any]:
    attrs = trial.user_attrs
    row: dict[str, Any] = {"study": study_name, "number": trial.number}
    row.update(knobs_of(trial))
    row["status"] = status_of(trial)
    for metric in METRICS:
        row[metric] = attrs.get(metric)
    if row["median_s"] is None and trial.values:
        row["median_s"] = trial.values[0]
    for key in INFO:
        row[key] = attrs.get(key)
    row["state"] = trial.state.name
    row["datetime_start"] = trial.datetime_start
    row["datetime_complete"] = trial.datetime_complete
    duration = trial.duration
    row["duration_s"] = duration.total_seconds() if duration is not None else None
    row["error"] = attrs.get("error", "")
    row["duplicate_of"] = attrs.get("duplicate_of")
    return row


def trials(storage: str, studies: str | Sequence[str] | None = None) -> pd.DataFrame:
    """One row per trial of the named studies (all studies of `storage` by default)."""
    if studies is None:
        opened = open_storage(storage, must_exist=True)
        studies = [s.study_name for s in optuna.get_all_study_summaries(opened)]
    elif isinstance(studies, str):
        studies = [studies]
    rows: list[dict[str, Any]] = []
    knob_names: list[str] = []
    for name in studies:
        for trial in load(storage, name).get_trials(deepcopy=False):
            row = _row(name, trial)
            rows.append(row)
            for key in knobs_of(trial):
                if key not in knob_names:
                    knob_names.append(key)
    fixed = ("study", "number", "status", *METRICS, *INFO, "state", *TIMES, "error", "duplicate_of")
    clashes = [name for name in knob_names if name in fixed]
    if clashes:
        raise ValueError(f"knob names clash with result columns: {', '.join(clashes)}")
    columns = [
        "study",
        "number",
        *knob_names,
        "status",
        *METRICS,
        *INFO,
        "state",
        *TIMES,
        "error",
        "duplicate_of",
    ]
    return pd.DataFrame(rows, columns=columns)


def hosts(frame: pd.DataFrame) -> list[str]:
    """Distinct (host, cpu) pairs that measured trials of `frame`."""
    measured = frame.loc[frame["host"].notna()]
    return sorted(
        {
            f"{h} ({c})" if c else str(h)
            for h, c in zip(measured["host"], measured["cpu"].fillna(""))
        }
    )
