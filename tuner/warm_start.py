"""Warm start: a new study first measures the schedules tuned for the nearest shapes.

The schedule database (`tuner.schedule_db`) holds the knob values of the best
schedule of every earlier study, keyed by op signature and CPU. A new study for the
same ops and dtypes at other shapes enqueues those values (`study.enqueue_trial`)
so its first trials start from what worked nearby; values that the new space does
not offer (another option list) are left to the sampler.
"""

from __future__ import annotations

from typing import Any

import optuna

from tuner.schedule_db import nearest
from tuner.space import SearchSpace


def _param(space: SearchSpace, name: str, value: Any, ordinal: bool) -> Any | None:
    for knob in space.free:
        if knob.name == name and value in knob.options:
            index = knob.options.index(value)
            return index if ordinal or knob.choices is not knob.options else value
    return None


def warm_start(
    study: optuna.Study,
    space: SearchSpace,
    db: str,
    payload: str,
    ordinal: bool = False,
    k: int = 3,
) -> list[dict[str, Any]]:
    """Enqueue the knob values of the `k` nearest stored schedules (a new study only);
    returns the enqueued parameter dicts."""
    if study.get_trials(deepcopy=False):
        return []
    enqueued: list[dict[str, Any]] = []
    for entry in nearest(db, payload, k):
        params = {}
        for name, value in dict(entry.get("knobs", {})).items():
            param = _param(space, name, value, ordinal)
            if param is not None:
                params[name] = param
        if params and params not in enqueued:  # constraints are checked by the objective
            study.enqueue_trial(params, user_attrs={"warm_start_from": entry.get("study", "")})
            enqueued.append(params)
    return enqueued
