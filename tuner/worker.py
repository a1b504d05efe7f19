"""Measuring candidates in isolation, and the Optuna objective built on it.

Every candidate runs in its own child process (multiprocessing's "forkserver"
context: a server process that has already imported `xlinalg` forks a fresh
child per candidate, so a child starts in milliseconds and shares nothing with
the tuner's process). The parent waits at most `time_limit_s`:

* the child answers -> its status (`ok`, `compile_error`, `wrong_result`, `error`);
* the child dies by a signal (segfault in generated code, ...) -> `crash`;
* the child exits without answering -> `crash` (with its exit code);
* the time limit passes -> the child is killed (SIGKILL) -> `timeout`.

`TrialObjective` turns that into Optuna trials: knob values from the sampler,
constraint pre-check (violations are pruned without compiling, status
`pruned_constraint`), measurement, and user attrs on every trial, failed or not.
A configuration measured before in the same study is not measured again: the
trial repeats the earlier result (user attr `duplicate_of`), so samplers that
propose a point twice do not spend a measurement on it.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from multiprocessing.context import BaseContext
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from tuner.candidate import CandidateRequest, child_main, request_dict
from tuner.space import SearchSpace

DEFAULT_TIME_LIMIT_S = 120.0
FAULT_ENV = "XLINALG_TUNER_TEST_FAULT"
FAILED_STATUSES = ("compile_error", "wrong_result", "error", "crash", "timeout")

_context: BaseContext | None = None


def _mp_context() -> BaseContext:
    global _context
    if _context is None:
        if "forkserver" in multiprocessing.get_all_start_methods():
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["tuner._preload"])
            _context = ctx
        else:  # pragma: no cover - non-POSIX hosts
            _context = multiprocessing.get_context("spawn")
    return _context


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def measure(request: CandidateRequest, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> dict[str, Any]:
    """Run one candidate in a fresh child process; always returns a result dict with a
    `status` (never raises for anything the candidate does)."""
    ctx = _mp_context()
    receiver, sender = ctx.Pipe(duplex=False)
    process = ctx.Process(  # type: ignore[attr-defined]
        target=child_main, args=(sender, request_dict(request)), daemon=True
    )
    started = time.perf_counter()
    process.start()
    sender.close()
    result: dict[str, Any] | None = None
    try:
        if receiver.poll(time_limit_s):
            try:
                result = receiver.recv()
            except (EOFError, OSError):
                result = None  # the child died without answering
        else:
            process.kill()
            process.join()
            return {
                "status": "timeout",
                "error": f"candidate exceeded the time limit of {time_limit_s:g} s and was killed",
                "elapsed_s": time.perf_counter() - started,
            }
    finally:
        receiver.close()
    process.join(timeout=30)
    if process.is_alive():  # answered but does not exit: do not leave it behind
        process.kill()
        process.join()
    if result is not None:
        result["elapsed_s"] = time.perf_counter() - started
        return result
    code = process.exitcode
    if code is not None and code < 0:
        message = f"candidate process was killed by {_signal_name(-code)}"
    else:
        message = f"candidate process exited with code {code} without a result"
    return {"status": "crash", "error": message, "exit_code": code,
            "elapsed_s": time.perf_counter() - started}


def fault_for_trial(number: int, spec: str | None = None) -> str | None:
    """Testing seam: the fault (`crash`/`hang`) to inject into trial `number`.

    `spec` defaults to the `XLINALG_TUNER_TEST_FAULT` environment variable, a comma
    separated list of `KIND@TRIAL` (e.g. `crash@1,hang@2`) or a bare `KIND` for
    every trial. Unset in normal use.
    """
    spec = os.environ.get(FAULT_ENV) if spec is None else spec
    if not spec:
        return None
    for item in spec.split(","):
        kind, _, at = item.strip().partition("@")
        if kind not in ("crash", "hang"):
            continue
        if not at or int(at) == number:
            return kind
    return None


class CandidateFailed(Exception):
    """Raised in the objective so Optuna records the trial as FAIL (its attrs are kept)."""


@dataclass
class TrialObjective:
    """Optuna objective: one trial = one isolated, checked, timed candidate.

    The value is the median time in seconds. User attrs on every trial: `status`,
    `knobs` (JSON), `gflops`, `cv`, `min_s`, `median_s`, `compile_s`, `repeats`,
    `host`, `cpu`, `error`.
    """

    space: SearchSpace
    payload: str
    schedule: str
    entry: str | None = None
    seed: int = 0
    sizes: dict[str, int] | None = None
    time_limit_s: float = DEFAULT_TIME_LIMIT_S
    ordinal: bool = False
    timing: dict[str, float] | None = None
    host: str = field(default_factory=socket.gethostname)
    cpu: str = ""

    def __call__(self, trial: optuna.Trial) -> float:
        values = self.space.suggest(trial, ordinal=self.ordinal)
        trial.set_user_attr("knobs", json.dumps(values, default=repr))
        trial.set_user_attr("host", self.host)
        trial.set_user_attr("cpu", self.cpu)
        violated = self.space.violated(values)
        if violated is not None:
            trial.set_user_attr("status", "pruned_constraint")
            trial.set_user_attr("error", f"violates constraint '{violated.text}' "
                                f"({violated.location})")
            raise optuna.TrialPruned(f"constraint '{violated.text}'")
        previous = _measured_before(trial)
        if previous is not None:
            return _repeat(trial, previous)
        request = CandidateRequest(
            payload=self.payload,
            schedule=self.schedule,
            knobs=values,
            entry=self.entry,
            seed=self.seed,
            sizes=self.sizes,
            fault=fault_for_trial(trial.number),
            timing=self.timing,
        )
        result = measure(request, self.time_limit_s)
        record(trial, result)
        if result["status"] != "ok":
            raise CandidateFailed(f"{result['status']}: {result.get('error', '')}")
        return float(result["median_s"])


def _measured_before(trial: optuna.Trial) -> FrozenTrial | None:
    """An earlier trial of the study with the same knob values and a recorded result."""
    params = trial.params
    for other in trial.study.get_trials(deepcopy=False,
                                        states=(TrialState.COMPLETE, TrialState.FAIL)):
        if (other.number != trial.number and other.params == params
                and "status" in other.user_attrs and "duplicate_of" not in other.user_attrs):
            return other
    return None


def _repeat(trial: optuna.Trial, previous: FrozenTrial) -> float:
    """Record a configuration that was already measured: same result, not re-measured."""
    result = dict(previous.user_attrs)
    record(trial, result)
    trial.set_user_attr("duplicate_of", previous.number)
    if previous.state != TrialState.COMPLETE or previous.value is None:
        raise CandidateFailed(f"{result['status']}: {result.get('error', '')}")
    return float(previous.value)


_ATTRS = ("gflops", "cv", "min_s", "median_s", "compile_s", "repeats", "inner_loops",
          "max_rel_error", "elapsed_s", "flops")


def record(trial: optuna.Trial, result: Mapping[str, Any]) -> None:
    """Store a measurement's result as user attrs of `trial`."""
    for key in _ATTRS:
        if key in result and result[key] is not None:
            trial.set_user_attr(key, result[key])
    trial.set_user_attr("error", str(result.get("error", "")))
    # `status` last: a trial without one was interrupted before its result was recorded
    trial.set_user_attr("status", str(result["status"]))
