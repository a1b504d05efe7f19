"""Studies: create or resume, samplers, and the trial loop.

A study is self-contained: its user attrs hold the payload text, the search
space text, the entry function, the sampler, the trial budget and the host it
was created on, so `xlinalg worker`, `report` and `export` need only the storage
and the study name. Rerunning the same `xlinalg tune` command resumes the study
(`load_if_exists=True`); trials already finished (COMPLETE, PRUNED, and FAIL
with a recorded status) count towards the budget. A trial whose process was
killed before recording a status does not count (and is retried, see
`tuner.liveness`). `best_trial` is the final re-ranking's winner (`tuner.rerank`)
when there is one.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import optuna
from optuna.exceptions import ExperimentalWarning
from optuna.samplers import (
    BaseSampler,
    CmaEsSampler,
    GridSampler,
    NSGAIISampler,
    RandomSampler,
    TPESampler,
)
from optuna.trial import FrozenTrial, TrialState

import xlinalg
from tuner.budget import BudgetLock
from tuner.errors import TunerError
from tuner.liveness import fail_dead_trials
from tuner.space import SearchSpace, load_space
from tuner.storage import open_storage
from tuner.worker import DEFAULT_TIME_LIMIT_S, CandidateFailed, TrialObjective

SAMPLERS = ("tpe", "random", "grid", "cmaes", "nsga2")
OBJECTIVES = ("time", "compile")
DEFAULT_TRIALS = 40

TrialCallback = Callable[[optuna.Study, FrozenTrial], None]


def _stem(path: str) -> str:
    base = os.path.basename(path.rstrip("/"))
    return base.split(".", 1)[0] if "." in base else base


def default_study_name(payload_path: str, space_path: str) -> str:
    """`examples/matmul_512.mlir` + `search_spaces/matmul_tile.mlir` -> `matmul_512-matmul_tile`."""
    return f"{_stem(payload_path)}-{_stem(space_path)}"


def make_sampler(name: str, space: SearchSpace, seed: int | None = None) -> BaseSampler:
    """The Optuna sampler called `name` (tpe, random, grid, cmaes) for `space`."""
    if name == "tpe":
        with warnings.catch_warnings():  # multivariate / constant_liar are "experimental"
            warnings.simplefilter("ignore", ExperimentalWarning)
            # tiling knobs interact strongly (a register tile only matters relative to its
            # cache tile): model them jointly; constant_liar keeps parallel workers apart
            return TPESampler(seed=seed, multivariate=True, constant_liar=True)
    if name == "random":
        return RandomSampler(seed=seed)
    if name == "grid":
        return GridSampler(space.grid(), seed=seed)
    if name == "cmaes":
        try:
            import cmaes  # noqa: F401, PLC0415  (optional: Optuna's CMA-ES sampler needs it)
        except ImportError:
            raise TunerError(
                "the cmaes sampler needs the 'cmaes' package (pip install cmaes)"
            ) from None
        return CmaEsSampler(seed=seed, warn_independent_sampling=False)
    if name == "nsga2":
        return NSGAIISampler(seed=seed)
    raise TunerError(f"unknown sampler '{name}' (choose from {', '.join(SAMPLERS)})")


Direction = Literal["minimize", "maximize"]


def create_or_load(
    storage: str,
    study_name: str,
    direction: Direction = "minimize",
    sampler: BaseSampler | None = None,
    n_objectives: int = 1,
) -> optuna.Study:
    """Create the study, or load it if it already exists in `storage`. With 2 objectives
    (runtime, compile time) the study is multi-objective (both minimized)."""
    directions: list[Direction] | None = (
        [direction for _ in range(n_objectives)] if n_objectives > 1 else None
    )
    try:
        return optuna.create_study(
            storage=open_storage(storage),
            study_name=study_name,
            direction=None if directions else direction,
            directions=directions,
            sampler=sampler,
            load_if_exists=True,
        )
    except ValueError as err:  # e.g. an existing study with other directions
        raise TunerError(f"study '{study_name}' in '{storage}': {err}") from None


def trial_time(trial: FrozenTrial) -> float | None:
    """Median runtime (s) of a trial (its first objective value)."""
    values = trial.values
    return float(values[0]) if values else None


def load(storage: str, study_name: str) -> optuna.Study:
    """An existing study; a clear error naming the studies there if it does not exist."""
    opened = open_storage(storage, must_exist=True)
    try:
        return optuna.load_study(study_name=study_name, storage=opened)
    except KeyError:
        names = [s.study_name for s in optuna.get_all_study_summaries(opened)]
        known = ", ".join(sorted(names)) if names else "none"
        raise TunerError(
            f"no study named '{study_name}' in storage '{storage}' (studies there: {known})"
        ) from None


@dataclass(frozen=True)
class StudyInfo:
    """What a study stores about itself (its user attrs)."""

    payload: str
    space: str
    payload_name: str
    space_name: str
    entry: str | None
    sampler: str
    seed: int | None
    n_trials: int | None
    time_limit_s: float
    sizes: dict[str, int] | None
    timing: dict[str, float] | None
    objectives: tuple[str, ...] = ("time",)

    @staticmethod
    def of(study: optuna.Study) -> StudyInfo:
        attrs = study.user_attrs
        if "payload" not in attrs or "space" not in attrs:
            raise TunerError(
                f"study '{study.study_name}' was not created by xlinalg tune "
                "(it has no payload/space)"
            )
        return StudyInfo(
            payload=attrs["payload"],
            space=attrs["space"],
            payload_name=attrs.get("payload_name", "<payload>"),
            space_name=attrs.get("space_name", "<space>"),
            entry=attrs.get("entry"),
            sampler=attrs.get("sampler", "tpe"),
            seed=attrs.get("seed"),
            n_trials=attrs.get("n_trials"),
            time_limit_s=float(attrs.get("time_limit_s", DEFAULT_TIME_LIMIT_S)),
            sizes=attrs.get("sizes"),
            timing=attrs.get("timing"),
            objectives=tuple(attrs.get("objectives") or ("time",)),
        )

    def load_space(self) -> SearchSpace:
        return load_space(self.space, name=self.space_name)


def host_summary() -> dict[str, Any]:
    """`xlinalg.host_info()` plus the host name (stored with every study)."""
    info = dict(xlinalg.host_info())
    info.setdefault("hostname", socket.gethostname())
    return info


def cpu_name(info: dict[str, Any]) -> str:
    for key in ("cpu_model", "cpu", "model", "llvm_cpu", "cpu_name"):
        value = info.get(key)
        if value:
            return str(value)
    return ""


def budget_trials(
    study: optuna.Study, trials: list[FrozenTrial] | None = None
) -> list[FrozenTrial]:
    """Trials that count towards the budget: COMPLETE, PRUNED, and FAIL with a status
    (a FAIL without one is a trial whose process was killed mid-measurement).
    `trials`: a snapshot of the study's trials to count in (default: read them now)."""
    if trials is None:
        trials = study.get_trials(deepcopy=False)
    return [
        trial
        for trial in trials
        if trial.state in (TrialState.COMPLETE, TrialState.PRUNED)
        or (trial.state == TrialState.FAIL and "status" in trial.user_attrs)
    ]


def counted_trials(study: optuna.Study) -> int:
    """How many trials count towards the budget (`budget_trials`)."""
    return len(budget_trials(study))


def ok_trials(study: optuna.Study) -> list[FrozenTrial]:
    return [
        t
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        if t.user_attrs.get("status") == "ok" and t.values
    ]


def fastest_trial(study: optuna.Study) -> FrozenTrial | None:
    """The checked candidate with the smallest single measurement, or None."""
    trials = ok_trials(study)
    if not trials:
        return None
    return min(trials, key=lambda t: (trial_time(t) or 0.0, t.number))


BEST_ATTR = "best"  # study user attr: the re-ranking's winner, {"trial": N, ...}


def best_trial(study: optuna.Study) -> FrozenTrial | None:
    """The study's best candidate: the winner of the final re-ranking (study user attr
    `best`) when there was one and no successful trial finished after it, else the
    fastest single measurement; None if no trial succeeded yet."""
    chosen = study.user_attrs.get(BEST_ATTR)
    trials = ok_trials(study)
    if isinstance(chosen, dict) and isinstance(chosen.get("trial"), int):
        newer = [t for t in trials if t.number > int(chosen.get("after_trial", -1))]
        for trial in trials:
            if trial.number == chosen["trial"] and not newer:  # else: re-rank again
                return trial
    return fastest_trial(study)


def setup(
    storage: str,
    study_name: str,
    payload: str,
    space: str,
    payload_name: str,
    space_name: str,
    *,
    space_path: str | None = None,
    entry: str | None = None,
    sampler: str = "tpe",
    seed: int | None = None,
    n_trials: int | None = None,
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    sizes: dict[str, int] | None = None,
    timing: dict[str, float] | None = None,
    objectives: tuple[str, ...] = ("time",),
) -> tuple[optuna.Study, SearchSpace]:
    """Create (or resume) a study for this payload and space, recording both in it.
    `objectives=("time", "compile")` makes it multi-objective (NSGA-II by default)."""
    for objective in objectives:
        if objective not in OBJECTIVES:
            raise TunerError(
                f"unknown objective '{objective}' (choose from {', '.join(OBJECTIVES)})"
            )
    if len(objectives) > 1 and sampler in ("tpe", "cmaes", "grid"):
        sampler = "nsga2"  # the multi-objective sampler
    search_space = load_space(space, path=space_path, name=space_name)
    study = create_or_load(
        storage,
        study_name,
        sampler=make_sampler(sampler, search_space, seed),
        n_objectives=len(objectives),
    )
    attrs = study.user_attrs
    if "payload" in attrs:
        for key, value, what in (("payload", payload, "payload"), ("space", space, "space")):
            if attrs.get(key) != value:
                raise TunerError(
                    f"study '{study_name}' in '{storage}' was created with a different {what}"
                    f" ({attrs.get(key + '_name', '?')}); choose another --study name"
                )
        if n_trials is not None and attrs.get("n_trials") != n_trials:
            study.set_user_attr("n_trials", n_trials)
        done = len(study.get_trials(deepcopy=False))
        if seed is not None and done and sampler != "grid":
            # a resumed run must not replay the first run's random start points
            study.sampler = make_sampler(sampler, search_space, seed + done)
        return study, search_space
    host = host_summary()
    for key, value in (
        ("payload", payload),
        ("space", space),
        ("payload_name", payload_name),
        ("space_name", space_name),
        ("entry", entry),
        ("sampler", sampler),
        ("seed", seed),
        ("n_trials", n_trials),
        ("time_limit_s", time_limit_s),
        ("sizes", sizes),
        ("timing", timing),
        ("objectives", list(objectives)),
        ("host_info", host),
        ("cpu", cpu_name(host)),
    ):
        study.set_user_attr(key, value)
    return study, search_space


def attach(
    storage: str, study_name: str, seed: int | None = None
) -> tuple[optuna.Study, SearchSpace, StudyInfo]:
    """Join an existing study (for `xlinalg worker`), with the sampler it was created with."""
    info = StudyInfo.of(load(storage, study_name))
    space = info.load_space()
    study = create_or_load(
        storage,
        study_name,
        sampler=make_sampler(info.sampler, space, seed),
        n_objectives=len(info.objectives),
    )
    return study, space, info


POLL_S = 0.5  # how often a worker whose budget is in flight elsewhere looks again


def run(
    study: optuna.Study,
    space: SearchSpace,
    info: StudyInfo,
    *,
    n_trials: int | None = None,
    timeout_s: float | None = None,
    on_trial: TrialCallback | None = None,
    storage_url: str = "",
    stop: threading.Event | None = None,
) -> int:
    """Run trials until the study holds `n_trials` counted trials (or `timeout_s` passed,
    `stop` was set, or a grid is exhausted). Returns the number of trials this call ran.

    Any number of threads, processes and machines may run the same study: a trial is
    started only while counted + running trials < `n_trials`, checked and created under
    the storage's `BudgetLock` (so the budget is met exactly); RUNNING trials of dead
    workers are failed and retried (`tuner.liveness`); while the rest of the budget is
    in flight in other workers, this one waits for them (one of them may die)."""
    host = host_summary()
    objective = TrialObjective(
        space=space,
        payload=info.payload,
        schedule=info.space,
        entry=info.entry,
        seed=info.seed or 0,
        sizes=info.sizes,
        time_limit_s=info.time_limit_s,
        ordinal=info.sampler == "cmaes",
        timing=info.timing,
        host=str(host.get("hostname", socket.gethostname())),
        cpu=cpu_name(host),
        host_info=host,
        objectives=info.objectives,
    )
    if n_trials is None and timeout_s is None and not isinstance(study.sampler, GridSampler):
        n_trials = DEFAULT_TRIALS
    callbacks = [on_trial] if on_trial is not None else []
    deadline = time.monotonic() + timeout_s if timeout_s is not None else None
    ran = 0
    sampler = study.sampler
    lock = BudgetLock(storage_url, study)

    def gated(trial: optuna.Trial) -> Any:
        lock.release()  # the trial exists (RUNNING): other workers may count it now
        return objective(trial)

    while True:
        if stop is not None and stop.is_set():
            break
        if deadline is not None and time.monotonic() >= deadline:
            break
        if isinstance(sampler, GridSampler) and sampler.is_exhausted(study):
            break
        fail_dead_trials(study)
        lock.acquire()
        try:
            # One snapshot for both counts: read separately, a trial finishing in between
            # would be missed by both and the budget overshot.
            snapshot = study.get_trials(deepcopy=False)
            counted = len(budget_trials(study, snapshot))
            running = sum(1 for t in snapshot if t.state == TrialState.RUNNING)
            if n_trials is not None and counted >= n_trials:
                break
            if n_trials is not None and counted + running >= n_trials:
                lock.release()
                time.sleep(POLL_S)
                continue
            study.optimize(gated, n_trials=1, catch=(CandidateFailed,), callbacks=callbacks)
        finally:
            lock.release()
        ran += 1
    return ran
