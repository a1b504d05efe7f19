"""Job files: many kernels tuned one after the other (TOML), and durations like `8h`.

    # overnight.toml -- relative paths are relative to this file
    storage = "sqlite:///results/overnight.db"     # optional (default: the tune default)

    [defaults]                                     # optional, for every kernel
    space = "search_spaces/matmul_tile.mlir"
    trials = 40
    sampler = "tpe"

    [[kernel]]
    payload = "examples/matmul_512.mlir"
    study = "mm512"                                # optional (default PAYLOAD-SPACE)
    time = "2h"                                    # optional per-kernel time budget
    knobs = { tile_m = 32 }                        # optional: fix knobs of the space

Every kernel is validated before anything is written (payload and space readable
and parsable, knob names and values among the options, sampler known): one bad
entry is one clear error and nothing runs. `split_budget` shares a global
`--timeout` between the kernels still to run (time a kernel does not use goes to
the next ones).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

import xlinalg
from tuner.constraints import constraint_lines
from tuner.errors import TunerError
from tuner.space import load_space
from tuner.study import default_study_name
from xlinalg.errors import XlinalgError

_KERNEL_KEYS = {
    "payload",
    "space",
    "trials",
    "time",
    "sampler",
    "study",
    "knobs",
    "seed",
    "objectives",
    "entry",
}
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([smhd])")


def parse_duration(text: str | float) -> float:
    """Seconds in `8h`, `90m`, `1h30m`, `45s`, `2d` or a plain number of seconds."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        seconds = float(text)
    else:
        value = str(text).strip().lower()
        try:
            seconds = float(value)
        except ValueError:
            parts = _DURATION.findall(value)
            if not parts or _DURATION.sub("", value).strip():
                raise TunerError(
                    f"bad duration '{text}' (use e.g. 8h, 90m, 1h30m, 45s or a number of seconds)"
                ) from None
            seconds = sum(float(n) * _UNITS[u] for n, u in parts)
    if seconds <= 0:
        raise TunerError(f"bad duration '{text}': must be positive")
    return seconds


@dataclass(frozen=True)
class KernelJob:
    """One kernel of a job, validated: texts read, space resolved with fixed knobs."""

    payload_path: str
    space_path: str
    payload: str
    space: str  # the template text, with the job's fixed knobs resolved
    study: str
    trials: int | None
    time_s: float | None
    sampler: str
    seed: int
    objectives: tuple[str, ...] = ("time",)
    entry: str | None = None
    knobs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Job:
    path: str
    storage: str | None
    kernels: list[KernelJob]


def fix_knobs(template: str, knobs: dict[str, Any], where: str) -> str:
    """`template` with `knobs` selected (validated against the options); the constraint
    comment lines are kept."""
    if not knobs:
        return template

    try:
        resolved = xlinalg.resolve_knobs(template, knobs)
    except XlinalgError as err:
        raise TunerError(f"{where}: {err}") from None
    return constraint_lines(template) + resolved


def load_job(path: str, default_trials: int, samplers: tuple[str, ...]) -> Job:
    """Read and validate a job file (see the module docstring)."""
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as err:
        raise TunerError(f"job file '{path}': {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise TunerError(f"job file '{path}': invalid TOML: {err}") from None
    base = file.parent
    defaults = data.get("defaults", {})
    entries = data.get("kernel")
    if not isinstance(entries, list) or not entries:
        raise TunerError(f"job file '{path}' lists no [[kernel]]")
    kernels: list[KernelJob] = []
    names: set[str] = set()
    for number, entry in enumerate(entries, 1):
        where = f"{path}: kernel {number}"
        if not isinstance(entry, dict):
            raise TunerError(f"{where}: expected a table")
        merged = {**defaults, **entry}
        unknown = sorted(set(merged) - _KERNEL_KEYS)
        if unknown:
            raise TunerError(
                f"{where}: unknown key(s) {', '.join(unknown)} (known: "
                f"{', '.join(sorted(_KERNEL_KEYS))})"
            )
        for key in ("payload", "space"):
            if not isinstance(merged.get(key), str):
                raise TunerError(f"{where}: missing '{key}' (a file path)")
        texts = {}
        for key in ("payload", "space"):
            target = base / merged[key]
            if not target.is_file():
                raise TunerError(
                    f"{where}: {key} file '{merged[key]}' does not exist (looked for {target})"
                )
            texts[key] = target.read_text(encoding="utf-8")
        try:
            xlinalg.parse(base / merged["payload"], "payload")
        except XlinalgError as err:
            raise TunerError(f"{where}: {err}") from None
        knobs = merged.get("knobs", {})
        if not isinstance(knobs, dict):
            raise TunerError(f"{where}: 'knobs' must be a table of knob = value")
        space = fix_knobs(texts["space"], knobs, where)
        try:
            load_space(space, name=merged["space"])
        except XlinalgError as err:
            raise TunerError(f"{where}: {err}") from None
        sampler = str(merged.get("sampler", "tpe"))
        if sampler not in samplers:
            raise TunerError(
                f"{where}: unknown sampler '{sampler}' (choose from {', '.join(samplers)})"
            )
        trials = merged.get("trials")
        if trials is not None and (not isinstance(trials, int) or trials < 1):
            raise TunerError(f"{where}: 'trials' must be a positive integer")
        time_s = parse_duration(merged["time"]) if "time" in merged else None
        if trials is None and time_s is None:
            trials = default_trials
        study = str(merged.get("study") or default_study_name(merged["payload"], merged["space"]))
        if study in names:
            raise TunerError(f"{where}: study name '{study}' is used twice in the job")
        names.add(study)
        objectives = merged.get("objectives", "time")
        kernels.append(
            KernelJob(
                payload_path=str(base / merged["payload"]),
                space_path=str(base / merged["space"]),
                payload=texts["payload"],
                space=space,
                study=study,
                trials=trials,
                time_s=time_s,
                sampler=sampler,
                seed=int(merged.get("seed", 0)),
                objectives=tuple(
                    objectives.split(",") if isinstance(objectives, str) else objectives
                ),
                entry=merged.get("entry"),
                knobs=dict(knobs),
            )
        )
    storage = data.get("storage")
    if storage is not None and not isinstance(storage, str):
        raise TunerError(f"job file '{path}': 'storage' must be a URL string")
    return Job(str(file), storage, kernels)


def split_budget(remaining_s: float | None, kernels_left: int, own_s: float | None) -> float | None:
    """This kernel's time budget: its own `time`, capped by an equal share of what is
    left of the global budget."""
    share = remaining_s / max(kernels_left, 1) if remaining_s is not None else None
    if share is None:
        return own_s
    return share if own_s is None else min(share, own_s)
