"""Measuring candidates in isolation, and the Optuna objective built on it.

Every candidate runs in its own child process (multiprocessing's "forkserver"
context: a server process that has already imported `xlinalg` forks a fresh
child per candidate, so a child starts in milliseconds and shares nothing with
the tuner's process). The parent waits at most `time_limit_s`:

* the child answers -> its status (`ok`, `compile_error`, `wrong_result`, `error`);
* the child dies by a signal (segfault in generated code, ...) -> `crash`;
* the child exits without answering -> `crash` (with its exit code);
* the time limit passes -> the child is killed (SIGKILL) -> `timeout`;
* its probe call runs past `slow_limit_s` (10x the best median so far, plus a grace
  of `PROBE_GRACE_S`) -> the child is killed -> `too_slow`.

Ctrl-C while a candidate runs kills the child and propagates (Optuna marks the trial
FAIL without a status: abandoned, not counted, measured again by a rerun).

`TrialObjective` turns that into Optuna trials: knob values from the sampler,
constraint pre-check (violations are pruned without compiling, status
`pruned_constraint`), measurement, and user attrs on every trial, failed or not.
A configuration measured before in the same study is not measured again: the
trial repeats the earlier result (user attr `duplicate_of`), so samplers that
propose a point twice do not spend a measurement on it.
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import os
import signal
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from multiprocessing.context import ForkServerContext, SpawnContext
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from tuner.candidate import CandidateRequest, child_main, request_dict
from tuner.liveness import this_worker
from tuner.space import SearchSpace

DEFAULT_TIME_LIMIT_S = 120.0
FAULT_ENV = "XLINALG_TUNER_TEST_FAULT"
NOISE_ENV = "XLINALG_TUNER_TEST_NOISE"
FAILED_STATUSES = ("compile_error", "wrong_result", "error", "crash", "timeout", "too_slow")
SLOW_FACTOR = 10.0  # a candidate this many times slower than the best is stopped early
PROBE_GRACE_S = 1.0
MIN_SLOW_LIMIT_S = 0.01  # below this a single Python-side call is mostly call overhead


@functools.cache
def _mp_context() -> ForkServerContext | SpawnContext:
    """The context of the candidate processes, made once per process."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["tuner._preload"])
        return ctx
    return multiprocessing.get_context("spawn")  # pragma: no cover - non-POSIX hosts


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def measure(
    request: Any,
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    target: Callable[..., None] = child_main,
) -> dict[str, Any]:
    """Run one candidate in a fresh child process; always returns a result dict with a
    `status` (never raises for anything the candidate does; Ctrl-C kills the child and
    propagates). `target(conn, request_dict)` is what the child runs."""
    ctx = _mp_context()
    receiver, sender = ctx.Pipe(duplex=False)
    process = ctx.Process(target=target, args=(sender, request_dict(request)), daemon=True)
    # The clock starts once the child exists: with the forkserver, `start()` returns
    # after the fork, so the server's one-time warm-up (tuner._preload compiles every
    # template, seconds on a loaded machine) never counts against a candidate's limit.
    process.start()
    started = time.perf_counter()
    overall = started + time_limit_s
    deadline, expiry = overall, "timeout"
    sender.close()
    result: dict[str, Any] | None = None
    try:
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0 or not receiver.poll(remaining):
                process.kill()
                process.join()
                return _expired(expiry, time_limit_s, request, time.perf_counter() - started)
            try:
                message = receiver.recv()
            except (EOFError, OSError):
                break  # the child died without answering
            phase = message.get("phase") if isinstance(message, dict) else None
            if phase == "probe":
                limit = float(message.get("limit_s", 0.0))
                deadline = min(overall, time.perf_counter() + limit + PROBE_GRACE_S)
                expiry = "too_slow"
            elif phase == "timing":
                deadline, expiry = overall, "timeout"
            else:
                result = message
                break
    except BaseException:  # Ctrl-C: abandon the candidate, leave no child behind
        process.kill()
        process.join()
        raise
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
    return {
        "status": "crash",
        "error": message,
        "exit_code": code,
        "elapsed_s": time.perf_counter() - started,
    }


def _expired(kind: str, time_limit_s: float, request: Any, elapsed: float) -> dict[str, Any]:
    if kind == "too_slow":
        limit = (getattr(request, "slow_limit_s", None) or 0.0) * 1e3
        error = f"one call ran longer than {limit:.4g} ms (10x the best so far) and was stopped"
    else:
        error = f"candidate exceeded the time limit of {time_limit_s:g} s and was killed"
    return {"status": kind, "error": error, "elapsed_s": elapsed}


def fault_for_trial(number: int, spec: str | None = None) -> str | None:
    """Testing seam: the fault (`crash`/`hang`/`wrong`/`slow`) to inject into trial `number`.

    `spec` defaults to the `XLINALG_TUNER_TEST_FAULT` environment variable, a comma
    separated list of `KIND@TRIAL` (e.g. `crash@1,hang@2`) or a bare `KIND` for
    every trial. Unset in normal use.
    """
    spec = os.environ.get(FAULT_ENV) if spec is None else spec
    if not spec:
        return None
    for item in spec.split(","):
        kind, _, at = item.strip().partition("@")
        if kind not in ("crash", "hang", "wrong", "slow"):
            continue
        if not at or int(at) == number:
            return kind
    return None


def noise_for_trial(number: int, spec: str | None = None) -> float:
    """Testing seam: the factor by which the recorded single measurement of trial
    `number` is perturbed (`XLINALG_TUNER_TEST_NOISE`, e.g. `0=3,1=0.3`: trial 0 looks
    3x slower, trial 1 3x faster than measured). 1.0 in normal use. Only a trial's
    recorded time is perturbed, never the final re-ranking (`tuner.rerank`)."""
    spec = os.environ.get(NOISE_ENV) if spec is None else spec
    for item in (spec or "").split(","):
        at, sep, factor = item.strip().partition("=")
        if sep and at.strip().isdigit() and int(at) == number:
            return float(factor)
    return 1.0


def slow_limit(study: optuna.Study, factor: float = SLOW_FACTOR) -> float | None:
    """`factor` x the best median of the study so far, at least `MIN_SLOW_LIMIT_S`
    (None before the first success)."""
    best = None
    for trial in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        median = trial.user_attrs.get("median_s")
        if trial.user_attrs.get("status") == "ok" and isinstance(median, (int, float)):
            best = median if best is None else min(best, median)
    return None if best is None else max(MIN_SLOW_LIMIT_S, factor * float(best))


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
    host_info: Mapping[str, Any] = field(default_factory=dict)
    objectives: tuple[str, ...] = ("time",)

    def __call__(self, trial: optuna.Trial) -> float | Sequence[float]:
        trial.set_user_attr("worker", this_worker())
        trial.set_user_attr("cores", sorted(os.sched_getaffinity(0)))  # pinned: one core
        values = self.space.suggest(trial, ordinal=self.ordinal)
        trial.set_user_attr("knobs", json.dumps(values, default=repr))
        trial.set_user_attr("host", self.host)
        trial.set_user_attr("cpu", self.cpu)
        info = self.host_info
        trial.set_user_attr("cpu_arch", str(info.get("llvm_cpu", "")))
        trial.set_user_attr("cpu_flags", str(info.get("llvm_features", "")))
        trial.set_user_attr("versions", versions(info))
        violated = self.space.violated(values)
        if violated is not None:
            trial.set_user_attr("status", "pruned_constraint")
            trial.set_user_attr(
                "error", f"violates constraint '{violated.text}' ({violated.location})"
            )
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
            slow_limit_s=slow_limit(trial.study),
        )
        result = measure(request, self.time_limit_s)
        noise = noise_for_trial(trial.number)
        if noise != 1.0 and result["status"] == "ok":
            result["median_s"] = float(result["median_s"]) * noise
            result["gflops"] = float(result.get("gflops", 0.0)) / noise
        record(trial, result)
        if result["status"] != "ok":
            raise CandidateFailed(f"{result['status']}: {result.get('error', '')}")
        return self.values_of(result)

    def values_of(self, result: Mapping[str, Any]) -> float | tuple[float, ...]:
        """The objective value(s): median runtime, and compile time if asked for."""
        picked = tuple(
            float(result["median_s"] if name == "time" else result["compile_s"])
            for name in self.objectives
        )
        return picked[0] if len(picked) == 1 else picked


def _measured_before(trial: optuna.Trial) -> FrozenTrial | None:
    """An earlier trial of the study with the same knob values and a recorded result."""
    params = trial.params
    for other in trial.study.get_trials(
        deepcopy=False, states=(TrialState.COMPLETE, TrialState.FAIL)
    ):
        if (
            other.number != trial.number
            and other.params == params
            and "status" in other.user_attrs
            and "duplicate_of" not in other.user_attrs
        ):
            return other
    return None


def _repeat(trial: optuna.Trial, previous: FrozenTrial) -> float | list[float]:
    """Record a configuration that was already measured: same result, not re-measured."""
    result = dict(previous.user_attrs)
    record(trial, result)
    trial.set_user_attr("duplicate_of", previous.number)
    if previous.state != TrialState.COMPLETE or not previous.values:
        raise CandidateFailed(f"{result['status']}: {result.get('error', '')}")
    values = [float(v) for v in previous.values]
    return values[0] if len(values) == 1 else values


def versions(info: Mapping[str, Any]) -> str:
    """Versions that change generated code or timings, as one JSON object."""
    found: dict[str, str] = {}
    for package in ("xlinalg", "xdsl", "llvmlite", "optuna", "numpy"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    for key in ("llvm_version", "python_version"):
        if info.get(key):
            found[key.removesuffix("_version")] = str(info[key])
    return json.dumps(found, sort_keys=True)


_ATTRS = (
    "gflops",
    "cv",
    "min_s",
    "median_s",
    "compile_s",
    "repeats",
    "inner_loops",
    "max_rel_error",
    "elapsed_s",
    "flops",
    "call_s",
)


def record(trial: optuna.Trial, result: Mapping[str, Any]) -> None:
    """Store a measurement's result as user attrs of `trial`."""
    for key in _ATTRS:
        if key in result and result[key] is not None:
            trial.set_user_attr(key, result[key])
    trial.set_user_attr("error", str(result.get("error", "")))
    # `status` last: a trial without one was interrupted before its result was recorded
    trial.set_user_attr("status", str(result["status"]))
