"""A tuning session: the kernels of `xlinalg tune` (one payload or a job file), one after
the other, each study created or resumed, warm-started, run (in this process or in N
pinned worker processes), re-ranked, and its best schedule saved.

Everything is validated before anything is written (`tuner.jobs`); every finished
trial is in the storage the moment it ends, so Ctrl-C (or kill -9) loses at most
the trial being measured: Ctrl-C abandons it (FAIL without status, not counted),
still writes the best schedule so far, and stops the remaining kernels; rerunning
the same command resumes.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import optuna
from optuna.trial import FrozenTrial
from tqdm import tqdm

from tuner import study as tuner_study
from tuner.errors import TunerError
from tuner.export import best_schedule
from tuner.jobs import KernelJob, split_budget
from tuner.rerank import rerank
from tuner.schedule_db import store
from tuner.storage import DEFAULT_STORAGE, local_path
from tuner.warm_start import warm_start

DEFAULT_JOURNAL = "journal:results/xlinalg.journal"


def out(text: str = "") -> None:
    print(text, flush=True)


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.4g} ms"


def _duration(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def knob_text(trial: FrozenTrial) -> str:
    values = trial.params
    text = trial.user_attrs.get("knobs")
    if isinstance(text, str):
        with contextlib.suppress(ValueError):
            values = json.loads(text)
    return " ".join(f"{k}={v}" for k, v in values.items())


class Progress:
    """One line per finished trial (count/budget, status, GFLOP/s, best so far, ETA), and a
    tqdm bar on stderr when it is a terminal."""

    def __init__(
        self, kernel: str, budget: int | None, timeout_s: float | None = None, done: int = 0
    ) -> None:
        self.kernel = kernel
        self.budget = budget
        self.deadline = time.monotonic() + timeout_s if timeout_s is not None else None
        self.started = time.monotonic()
        self.first = done
        self.bar = tqdm(
            total=budget,
            initial=done,
            desc=kernel,
            file=sys.stderr,
            disable=not sys.stderr.isatty(),
            dynamic_ncols=True,
            leave=False,
        )

    def eta(self, done: int) -> str:
        ran = done - self.first
        estimates = []
        if self.budget is not None and ran > 0:
            estimates.append((time.monotonic() - self.started) / ran * (self.budget - done))
        if self.deadline is not None:
            estimates.append(self.deadline - time.monotonic())
        return f"eta {_duration(min(estimates))}" if estimates else "eta ?"

    def __call__(self, study: optuna.Study, trial: FrozenTrial) -> None:
        done = tuner_study.counted_trials(study)
        total = f"/{self.budget}" if self.budget is not None else ""
        status = str(trial.user_attrs.get("status", trial.state.name.lower()))
        if status == "ok":
            detail = (
                f"{trial.user_attrs.get('gflops', 0.0):8.2f} GFLOP/s  "
                f"{ms(tuner_study.trial_time(trial) or 0.0):>10}"
            )
        else:
            detail = str(trial.user_attrs.get("error", ""))[:70]
        if "duplicate_of" in trial.user_attrs:
            detail += f" (same knobs as trial {trial.user_attrs['duplicate_of']})"
        best = tuner_study.fastest_trial(study)
        best_text = (
            f"best {best.user_attrs.get('gflops', 0.0):.2f} GFLOP/s (trial {best.number})"
            if best is not None
            else "best -"
        )
        line = (
            f"[{done:>3}{total}] trial {trial.number:<3} {status:<17} {detail}  "
            f"| {best_text} | {self.eta(done)} | {knob_text(trial)}"
        )
        if self.bar.disable:
            out(line)
        else:
            self.bar.write(line)
            self.bar.n = done
            self.bar.set_postfix_str(best_text)

    def close(self) -> None:
        self.bar.close()


@dataclass
class Options:
    """Session-wide options of `xlinalg tune`."""

    storage: str = DEFAULT_STORAGE
    workers: int = 1
    timeout_s: float | None = None  # global budget, split across kernels
    out_dir: str | None = "results"
    schedule_db: str | None = os.path.join("results", "schedules")
    warm_start: bool = True
    rerank_k: int = 3
    rerank_rounds: int = 7
    time_limit_s: float = 120.0
    sizes: dict[str, int] | None = None
    timing: dict[str, float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def pick_storage(given: str | None, workers: int) -> str:
    """The storage URL: the given one, else SQLite -- or a journal file for several
    worker processes (Optuna's recommendation for multi-process on one machine)."""
    if given:
        return given
    return DEFAULT_JOURNAL if workers > 1 else DEFAULT_STORAGE


def pin_to_cpu(cpu: int) -> None:
    """Run this process (and the candidates it forks) on one core only."""
    available = sorted(os.sched_getaffinity(0))
    if cpu not in available:
        raise TunerError(f"--cpu {cpu}: this process may run on cores {available} only")
    os.sched_setaffinity(0, {cpu})


def spawn_workers(
    storage: str, study: str, workers: int, n_trials: int | None, timeout_s: float | None
) -> int:
    """Run `workers` `xlinalg worker` processes on this machine, each pinned to its own
    core, until the study's budget is met; returns how many exited with an error."""
    cores = sorted(os.sched_getaffinity(0))
    if workers > len(cores):
        print(
            f"warning: {workers} workers on {len(cores)} core(s): workers share cores, "
            "so their timings disturb each other",
            file=sys.stderr,
        )
    processes = []
    for index in range(workers):
        command = [
            sys.executable,
            "-m",
            "xlinalg.cli",
            "worker",
            "--storage",
            storage,
            "--study",
            study,
            "--cpu",
            str(cores[index % len(cores)]),
            "--quiet",
        ]
        if n_trials is not None:
            command += ["--trials", str(n_trials)]
        if timeout_s is not None:
            command += ["--timeout", str(timeout_s)]
        processes.append(subprocess.Popen(command))
    try:
        codes = [p.wait() for p in processes]
    except KeyboardInterrupt:
        for process in processes:  # each abandons its current trial and saves
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
        for process in processes:
            process.wait()
        raise
    return sum(1 for code in codes if code != 0)


def finish(study: optuna.Study, storage: str, options: Options, interrupted: bool = False) -> int:
    """Summary, re-ranking of the top candidates, best schedule file and database entry."""
    trials = study.get_trials(deepcopy=False)
    statuses: dict[str, int] = {}
    for trial in trials:
        key = str(trial.user_attrs.get("status", trial.state.name.lower()))
        statuses[key] = statuses.get(key, 0) + 1
    summary = ", ".join(f"{count} {name}" for name, count in sorted(statuses.items()))
    out()
    out(f"study:    {study.study_name}")
    out(f"storage:  {storage}")
    out(f"trials:   {tuner_study.counted_trials(study)} ({summary})")
    if tuner_study.best_trial(study) is None:
        print(
            f"error: no candidate of study '{study.study_name}' compiled, checked and ran; "
            f"see: xlinalg report --storage {storage} --study {study.study_name}",
            file=sys.stderr,
        )
        return 1
    if not interrupted and options.rerank_k >= 2:
        ranking = rerank(study, options.rerank_k, options.rerank_rounds)
        if ranking is not None:
            ratios = ", ".join(f"#{n} {r:.3f}" for n, r in zip(ranking.trials, ranking.ratios))
            out(
                f"rerank:   top {len(ranking.trials)} timed interleaved over "
                f"{len(ranking.times[0])} rounds; median time ratio vs #{ranking.trials[0]}: "
                f"{ratios} -> trial {ranking.winner}"
            )
        elif study.user_attrs.get("rerank_error"):
            out(
                f"rerank:   failed ({study.user_attrs['rerank_error']}); keeping the single "
                "measurements"
            )
    best = tuner_study.best_trial(study)
    assert best is not None
    out(
        f"best:     trial {best.number}: {best.user_attrs.get('gflops', 0.0):.2f} GFLOP/s, "
        f"median {ms(tuner_study.trial_time(best) or 0.0)}  ({knob_text(best)})"
    )
    text = best_schedule(storage, study.study_name)
    if options.out_dir is not None:
        os.makedirs(options.out_dir, exist_ok=True)
        safe = "".join(c if c.isalnum() or c in "-_.+" else "_" for c in study.study_name)
        path = os.path.join(options.out_dir, f"{safe}.best.mlir")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        out(f"schedule: {path}")
    if options.schedule_db is not None:
        info = tuner_study.StudyInfo.of(study)
        space = info.load_space()
        knobs = space.all_values(
            space.values_from_params(best.params, ordinal=info.sampler == "cmaes")
        )
        entry = store(
            options.schedule_db,
            info.payload,
            text,
            knobs=knobs,
            study=study.study_name,
            storage=storage,
            median_s=tuner_study.trial_time(best),
            gflops=best.user_attrs.get("gflops"),
        )
        out(f"database: {entry}")
    flag = "" if storage == DEFAULT_STORAGE else f" --storage {storage}"
    out(f"report:   xlinalg report{flag} --study {study.study_name}")
    return 0


def _setup(kernel: KernelJob, storage: str, options: Options) -> tuple[optuna.Study, Any]:
    study, space = tuner_study.setup(
        storage,
        kernel.study,
        kernel.payload,
        kernel.space,
        payload_name=kernel.payload_path,
        space_name=kernel.space_path,
        entry=kernel.entry,
        sampler=kernel.sampler,
        seed=kernel.seed,
        n_trials=kernel.trials,
        time_limit_s=options.time_limit_s,
        sizes=options.sizes,
        timing=options.timing,
        objectives=kernel.objectives,
    )
    return study, space


def tune(kernels: list[KernelJob], options: Options) -> int:
    """Tune `kernels` one after the other; returns the exit code (130 after Ctrl-C)."""
    storage = options.storage
    path = local_path(storage)
    if options.workers > 1 and path is not None and path.endswith(".db"):
        print(
            "note: several worker processes on one SQLite file contend for its lock; "
            f"a journal file ({DEFAULT_JOURNAL}) scales better",
            file=sys.stderr,
        )
    started = time.monotonic()
    failures = 0
    for index, kernel in enumerate(kernels):
        remaining = (
            options.timeout_s - (time.monotonic() - started)
            if options.timeout_s is not None
            else None
        )
        if remaining is not None and remaining <= 0:
            out(f"global time budget used up: kernel '{kernel.study}' and later ones not run")
            break
        budget_s = split_budget(remaining, len(kernels) - index, kernel.time_s)
        study, space = _setup(kernel, storage, options)
        n_trials = kernel.trials
        if kernel.sampler == "grid" and n_trials is None and budget_s is None:
            n_trials = space.size()  # the whole grid
            study.set_user_attr("n_trials", n_trials)
        info = tuner_study.StudyInfo.of(study)
        if options.warm_start and options.schedule_db and os.path.isdir(options.schedule_db):
            seeded = warm_start(
                study, space, options.schedule_db, kernel.payload, ordinal=info.sampler == "cmaes"
            )
            if seeded:
                out(f"warm start: {len(seeded)} schedule(s) of the nearest shapes enqueued first")
        done = tuner_study.counted_trials(study)
        free = ", ".join(f"{k.name}{list(k.options)}" for k in space.free) or "none"
        if len(kernels) > 1:
            out(
                f"== kernel {index + 1}/{len(kernels)}: {kernel.study}"
                + (f" (time budget {_duration(budget_s)})" if budget_s is not None else "")
            )
        out(
            f"study '{kernel.study}' in {storage}: {done} trial(s) already done; "
            f"{len(space.free)} knob(s), {space.size()} configuration(s), "
            f"{len(space.constraints)} constraint(s)"
        )
        out(f"knobs: {free}")
        interrupted = False
        try:
            if options.workers > 1:
                failures += spawn_workers(
                    storage, kernel.study, options.workers, n_trials, budget_s
                )
            else:
                progress = Progress(kernel.study, n_trials, budget_s, done)
                try:
                    tuner_study.run(
                        study,
                        space,
                        info,
                        n_trials=n_trials,
                        timeout_s=budget_s,
                        on_trial=progress,
                        storage_url=storage,
                    )
                finally:
                    progress.close()
        except KeyboardInterrupt:
            interrupted = True
            out()
            out(
                "interrupted: the trial being measured was abandoned (it does not count); "
                "every finished trial is saved -- rerun the same command to resume"
            )
        code = finish(study, storage, options, interrupted=interrupted)
        if interrupted:
            return 130
        failures += code
    return 1 if failures else 0
