"""Studies: create or resume, samplers, and the trial loop.

A study is self-contained: its user attrs hold the payload text, the search
space text, the entry function, the sampler, the trial budget and the host it
was created on, so `xlinalg worker`, `report` and `export` need only the storage
and the study name. Rerunning the same `xlinalg tune` command resumes the study
(`load_if_exists=True`); trials already finished (COMPLETE, PRUNED, and FAIL
with a recorded status) count towards the budget. A trial whose process was
killed before recording a status does not count.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import optuna
from optuna.exceptions import ExperimentalWarning
from optuna.samplers import BaseSampler, GridSampler, RandomSampler, TPESampler
from optuna.trial import FrozenTrial, TrialState

from tuner.errors import TunerError
from tuner.space import SearchSpace, load_space
from tuner.storage import open_storage
from tuner.worker import DEFAULT_TIME_LIMIT_S, CandidateFailed, TrialObjective

SAMPLERS = ("tpe", "random", "grid", "cmaes")
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
            import cmaes  # noqa: F401
        except ImportError:
            raise TunerError("the cmaes sampler needs the 'cmaes' package "
                             "(pip install cmaes)") from None
        from optuna.samplers import CmaEsSampler

        return CmaEsSampler(seed=seed, warn_independent_sampling=False)
    raise TunerError(f"unknown sampler '{name}' (choose from {', '.join(SAMPLERS)})")


def create_or_load(
    storage: str,
    study_name: str,
    direction: str = "minimize",
    sampler: BaseSampler | None = None,
) -> optuna.Study:
    """Create the study, or load it if it already exists in `storage`."""
    return optuna.create_study(
        storage=open_storage(storage),
        study_name=study_name,
        direction=direction,  # type: ignore[arg-type]
        sampler=sampler,
        load_if_exists=True,
    )


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

    @staticmethod
    def of(study: optuna.Study) -> StudyInfo:
        attrs = study.user_attrs
        if "payload" not in attrs or "space" not in attrs:
            raise TunerError(f"study '{study.study_name}' was not created by xlinalg tune "
                             "(it has no payload/space)")
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
        )

    def load_space(self) -> SearchSpace:
        return load_space(self.space, name=self.space_name)


def host_summary() -> dict[str, Any]:
    """`xlinalg.host_info()` plus the host name (stored with every study)."""
    import xlinalg

    info = dict(xlinalg.host_info())
    info.setdefault("hostname", socket.gethostname())
    return info


def cpu_name(info: dict[str, Any]) -> str:
    for key in ("cpu_model", "cpu", "model", "llvm_cpu", "cpu_name"):
        value = info.get(key)
        if value:
            return str(value)
    return ""


def counted_trials(study: optuna.Study) -> int:
    """Trials that count towards the budget: COMPLETE, PRUNED, and FAIL with a status
    (a FAIL without one is a trial whose process was killed mid-measurement)."""
    count = 0
    for trial in study.get_trials(deepcopy=False):
        if trial.state in (TrialState.COMPLETE, TrialState.PRUNED) or trial.state == TrialState.FAIL and "status" in trial.user_attrs:
            count += 1
    return count


def ok_trials(study: optuna.Study) -> list[FrozenTrial]:
    return [
        t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        if t.user_attrs.get("status") == "ok" and t.value is not None
    ]


def best_trial(study: optuna.Study) -> FrozenTrial | None:
    """The fastest checked candidate, or None if no trial succeeded yet."""
    trials = ok_trials(study)
    if not trials:
        return None
    return min(trials, key=lambda t: (float(t.value or 0.0), t.number))


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
) -> tuple[optuna.Study, SearchSpace]:
    """Create (or resume) a study for this payload and space, recording both in it."""
    search_space = load_space(space, path=space_path, name=space_name)
    study = create_or_load(storage, study_name,
                           sampler=make_sampler(sampler, search_space, seed))
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
        ("payload", payload), ("space", space), ("payload_name", payload_name),
        ("space_name", space_name), ("entry", entry), ("sampler", sampler), ("seed", seed),
        ("n_trials", n_trials), ("time_limit_s", time_limit_s), ("sizes", sizes),
        ("timing", timing),
        ("host_info", host), ("cpu", cpu_name(host)),
    ):
        study.set_user_attr(key, value)
    return study, search_space


def attach(storage: str, study_name: str, seed: int | None = None
           ) -> tuple[optuna.Study, SearchSpace, StudyInfo]:
    """Join an existing study (for `xlinalg worker`), with the sampler it was created with."""
    info = StudyInfo.of(load(storage, study_name))
    space = info.load_space()
    study = create_or_load(storage, study_name, sampler=make_sampler(info.sampler, space, seed))
    return study, space, info


class InFlight:
    """Trials started but not finished by the threads of this process (so that several
    threads running `run` on one study do not overshoot its budget). Processes on other
    machines are not counted: they may overshoot the budget by one trial each."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0

    def try_start(self, study: optuna.Study, n_trials: int | None) -> bool:
        with self._lock:
            if n_trials is not None and counted_trials(study) + self._count >= n_trials:
                return False
            self._count += 1
            return True

    def finish(self) -> None:
        with self._lock:
            self._count -= 1


def run(
    study: optuna.Study,
    space: SearchSpace,
    info: StudyInfo,
    *,
    n_trials: int | None = None,
    timeout_s: float | None = None,
    on_trial: TrialCallback | None = None,
    in_flight: InFlight | None = None,
) -> int:
    """Run trials until the study holds `n_trials` counted trials (or `timeout_s` passed,
    or a grid is exhausted). Returns the number of trials this call ran. Threads that run
    the same study concurrently share one `in_flight`."""
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
    )
    if n_trials is None and timeout_s is None and not isinstance(study.sampler, GridSampler):
        n_trials = DEFAULT_TRIALS
    callbacks = [on_trial] if on_trial is not None else []
    deadline = time.monotonic() + timeout_s if timeout_s is not None else None
    ran = 0
    sampler = study.sampler
    in_flight = in_flight or InFlight()
    while True:
        if deadline is not None and time.monotonic() >= deadline:
            break
        if isinstance(sampler, GridSampler) and sampler.is_exhausted(study):
            break
        if not in_flight.try_start(study, n_trials):
            break
        try:
            study.optimize(objective, n_trials=1, catch=(CandidateFailed,), callbacks=callbacks)
        finally:
            in_flight.finish()
        ran += 1
    return ran
