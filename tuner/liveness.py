"""Which RUNNING trials belong to a dead worker process.

Every trial records its worker as `HOST:PID:START` (user attr `worker`; START is the
process start time from /proc, so a recycled process id is not mistaken for the
original worker). A RUNNING trial recorded by this host whose process no longer
exists was abandoned (kill -9, reboot, out of memory): `fail_dead_trials` marks it
FAIL and hands it to the storage's retry callback (a WAITING copy with the same
knobs), exactly what Optuna's heartbeat does for RDB storages -- journal files have
no heartbeat in Optuna, and a local rerun should not wait for a grace period.
Trials of other hosts are left to the heartbeat.
"""

from __future__ import annotations

import datetime
import os
import socket
import warnings

import optuna
from optuna.exceptions import ExperimentalWarning, UpdateFinishedTrialError
from optuna.storages import fail_stale_trials
from optuna.trial import FrozenTrial, TrialState

from tuner.storage import GRACE_PERIOD_S, retry_callback

# A RUNNING trial without a worker attr older than this was orphaned: the attr is the
# objective's first write, milliseconds after the trial is created, so only a worker killed
# in between leaves one. Heartbeat storages included: a trial killed before its first
# heartbeat has no heartbeat row, which Optuna's stale check never looks at (a resumed
# `xlinalg tune` then waited for it forever).
_ORPHAN_AGE_S = 10


def _start_time(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[19] if len(fields) > 19 else None  # field 22 of stat: starttime


def this_worker() -> str:
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_start_time(pid) or '?'}"


def is_dead(worker: str, host: str | None = None) -> bool:
    """True if `worker` (HOST:PID:START) ran on this host and that process is gone."""
    parts = worker.rsplit(":", 2)
    if len(parts) != 3 or parts[0] != (host or socket.gethostname()):
        return False
    try:
        pid = int(parts[1])
    except ValueError:
        return False
    start = _start_time(pid)
    return start is None or (parts[2] != "?" and start != parts[2])


def _abandoned(trial: FrozenTrial) -> bool:
    worker = trial.user_attrs.get("worker")
    if isinstance(worker, str):
        return is_dead(worker)
    if trial.datetime_start is None:
        return False
    age = datetime.datetime.now() - trial.datetime_start
    return age.total_seconds() > max(_ORPHAN_AGE_S, GRACE_PERIOD_S)


def fail_dead_trials(study: optuna.Study) -> list[int]:
    """Fail (and enqueue a retry of) every RUNNING trial whose worker is dead; also run
    Optuna's heartbeat check on storages that have one. Returns the failed numbers."""
    storage = study._storage
    with warnings.catch_warnings():  # "experimental" since Optuna 2.9
        warnings.simplefilter("ignore", ExperimentalWarning)
        fail_stale_trials(study)  # Optuna's heartbeat check (a no-op without a heartbeat)
    failed: list[int] = []
    retry = retry_callback()
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if not _abandoned(trial):
            continue
        try:
            if not storage.set_trial_state_values(trial._trial_id, state=TrialState.FAIL):
                continue
        except UpdateFinishedTrialError:
            continue  # another worker failed it first
        failed.append(trial.number)
        retry(study, storage.get_trial(trial._trial_id))
    return failed
