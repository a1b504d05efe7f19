"""One study's trials for `xlinalg report`: best first, and a readable table."""

from __future__ import annotations

import pandas as pd

from tuner.results import METRICS, trials


def trials_dataframe(storage: str, study_name: str) -> pd.DataFrame:
    """`tuner.results.trials` of one study without its `study` column; successful trials
    first, fastest first, then the others by trial number."""
    frame = trials(storage, study_name).drop(columns=["study"])
    if frame.empty:
        return frame
    ok = frame["status"] == "ok"
    best = frame.loc[ok].sort_values(["median_s", "number"], kind="stable")
    rest = frame.loc[~ok].sort_values("number", kind="stable")
    return pd.concat([best, rest], ignore_index=True)


def knob_columns(frame: pd.DataFrame) -> list[str]:
    """The knob columns of a `trials_dataframe` (between `number` and `status`)."""
    columns = list(frame.columns)
    return columns[columns.index("number") + 1 : columns.index("status")]


def format_table(frame: pd.DataFrame, top: int | None = None) -> str:
    """A human-readable table (times in ms, GFLOP/s and CV rounded)."""
    if frame.empty:
        return "(no trials)"
    shown = frame.head(top) if top is not None else frame
    keep = ["number", *knob_columns(frame), "status", *METRICS, "host", "error"]
    view = shown[keep].copy()
    view["median_ms"] = view.pop("median_s").map(lambda v: "" if pd.isna(v) else f"{v * 1e3:.4g}")
    view["min_ms"] = view.pop("min_s").map(lambda v: "" if pd.isna(v) else f"{v * 1e3:.4g}")
    view["gflops"] = view["gflops"].map(lambda v: "" if pd.isna(v) else f"{v:.2f}")
    view["cv"] = view["cv"].map(lambda v: "" if pd.isna(v) else f"{v * 100:.1f}%")
    view["compile_s"] = view["compile_s"].map(lambda v: "" if pd.isna(v) else f"{v:.2f}")
    view["repeats"] = view["repeats"].map(lambda v: "" if pd.isna(v) else str(int(v)))
    view["host"] = view["host"].map(lambda v: "" if pd.isna(v) or v is None else str(v))
    view["error"] = view.pop("error").map(lambda v: "" if not v else str(v)[:60])
    duplicates = shown["duplicate_of"]
    if duplicates.notna().any():  # repeated configurations reuse an earlier measurement
        view.insert(
            view.columns.get_loc("status") + 1,
            "same_as",
            duplicates.map(lambda v: "" if pd.isna(v) else f"#{int(v)}"),
        )
    return view.to_string(index=False)
