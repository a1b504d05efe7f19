"""`xlinalg tune --workers N`: N measuring processes on one journal file, each pinned to
its own core, finish exactly the budget with no duplicated trial numbers. Also: the
RUNNING trial of a dead worker is failed and retried; SQLite on a network filesystem
is detected."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest
from optuna.storages import JournalStorage, RDBStorage
from optuna.storages.journal import JournalFileBackend
from optuna.trial import TrialState

from tuner import liveness
from tuner.liveness import fail_dead_trials, is_dead, this_worker
from tuner.storage import network_filesystem, retry_callback

from support import cli_command, cli_env, needs_pipeline, write_tuner_files


def _flock_waiters(path: Path) -> int:
    """How many processes wait for a `flock` of `path` (blocked requests in /proc/locks)."""
    inode = f":{os.stat(path).st_ino} "
    with open("/proc/locks", encoding="utf-8") as locks:
        return sum("->" in line and "FLOCK" in line and inode in line for line in locks)


def _tune_workers_together(cwd: Path, workers: int, *args: str) -> subprocess.CompletedProcess[str]:
    """`xlinalg tune ARGS --workers N` on the default journal, its workers starting trials
    together: the test holds the study's budget lock until all of them wait for it, so a
    worker that imports late on a loaded machine does not find the budget used up."""
    lock = cwd / "results" / "xlinalg.journal.budget-lock"
    lock.parent.mkdir(exist_ok=True)
    command = cli_command("tune", *args, "--workers", str(workers))
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = subprocess.Popen(
            command,
            cwd=cwd,
            env=cli_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while (
            _flock_waiters(lock) < workers and proc.poll() is None and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        fcntl.flock(held, fcntl.LOCK_UN)
    out, err = proc.communicate(timeout=180)
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


@pytest.mark.slow
@needs_pipeline
@pytest.mark.parametrize(("workers", "trials"), [(2, 4), (4, 4)])
def test_worker_processes_finish_exactly_the_budget(
    tmp_path: Path, workers: int, trials: int
) -> None:
    write_tuner_files(tmp_path)
    # grid: 4 distinct configurations of the 6, so at most 2 violate the constraint (a
    # random sampler could prune all 4 and the job rightly reports that nothing ran)
    done = _tune_workers_together(
        tmp_path,
        workers,
        "mm.mlir",
        "--space",
        "space.mlir",
        "--trials",
        str(trials),
        "--sampler",
        "grid",
        "--timing-budget",
        "0.02",
        "--rerank",
        "0",
        "--no-schedule-db",
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert "storage:  journal:results/xlinalg.journal" in done.stdout
    storage = JournalStorage(JournalFileBackend(str(tmp_path / "results/xlinalg.journal")))
    study = optuna.load_study(study_name="mm-space", storage=storage)
    all_trials = study.get_trials()
    numbers = [t.number for t in all_trials]
    assert len(all_trials) == trials
    assert len(set(numbers)) == trials
    assert all(t.state != TrialState.RUNNING and "status" in t.user_attrs for t in all_trials)
    processes = {t.user_attrs["worker"] for t in all_trials}
    assert len(processes) >= 2  # several measuring processes took part
    assert all(len(t.user_attrs["cores"]) == 1 for t in all_trials)  # each pinned to one core
    cores = len(os.sched_getaffinity(0))
    if workers > cores:
        assert "workers share cores" in done.stderr


def test_dead_worker_trial_is_failed_and_retried(tmp_path: Path) -> None:
    storage = JournalStorage(JournalFileBackend(str(tmp_path / "j.journal")))
    study = optuna.create_study(storage=storage, study_name="s")
    trial = study.ask({"x": optuna.distributions.IntDistribution(0, 9)})
    host = this_worker().rsplit(":", 2)[0]
    trial.set_user_attr("worker", f"{host}:999999999:1")  # no such process
    alive = study.ask({"x": optuna.distributions.IntDistribution(0, 9)})
    alive.set_user_attr("worker", this_worker())
    assert is_dead(f"{host}:999999999:1")
    assert not is_dead(this_worker())
    assert not is_dead("some-other-host:1:1")  # other hosts: left to the heartbeat
    assert fail_dead_trials(study) == [trial.number]
    states = [t.state for t in study.get_trials()]
    assert states == [TrialState.FAIL, TrialState.RUNNING, TrialState.WAITING]
    retry = study.get_trials()[2]
    assert retry.params == study.get_trials()[0].params
    assert fail_dead_trials(study) == []


def test_network_filesystem_detection(tmp_path: Path) -> None:
    mounts = tmp_path / "mounts"
    mounts.write_text(
        "/dev/sda1 / ext4 rw 0 0\n"
        f"server:/export {tmp_path}/net nfs4 rw 0 0\n"
        f"//srv/share {tmp_path}/smb cifs rw 0 0\n"
    )
    assert network_filesystem(str(tmp_path / "net" / "db"), str(mounts)) == "nfs4"
    assert network_filesystem(str(tmp_path / "smb"), str(mounts)) == "cifs"
    assert network_filesystem(str(tmp_path / "local"), str(mounts)) is None
    assert network_filesystem(str(tmp_path / "network"), str(mounts)) is None  # not net/


def test_heartbeat_fails_and_retries_a_silent_remote_trial(tmp_path: Path) -> None:
    storage = RDBStorage(
        f"sqlite:///{tmp_path}/h.db",
        heartbeat_interval=1,
        grace_period=2,
        heartbeat_stale_trial_callback=retry_callback(),
    )
    study = optuna.create_study(storage=storage, study_name="h")
    trial = study.ask({"x": optuna.distributions.IntDistribution(0, 9)})
    trial.set_user_attr("worker", "a-machine-far-away:4242:1")  # not ours to judge
    storage.record_heartbeat(trial._trial_id)  # then its worker goes silent
    assert fail_dead_trials(study) == []
    time.sleep(3)
    fail_dead_trials(study)  # Optuna's heartbeat check inside
    states = [t.state for t in study.get_trials()]
    assert states == [TrialState.FAIL, TrialState.WAITING]
    assert study.get_trials()[1].params == study.get_trials()[0].params


def test_trial_killed_before_its_worker_attr_is_failed_on_a_heartbeat_storage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed between creating a trial and writing its `worker` attr leaves a
    RUNNING trial with neither a worker nor a heartbeat row; Optuna's stale check never
    sees it, so a resumed run waited for it forever. After the orphan age it is failed and
    retried like any abandoned trial; a fresh one (its worker may still be writing) is not."""
    storage = RDBStorage(
        f"sqlite:///{tmp_path}/o.db",
        heartbeat_interval=1,
        grace_period=2,
        heartbeat_stale_trial_callback=retry_callback(),
    )
    study = optuna.create_study(storage=storage, study_name="o")
    trial = study.ask({"x": optuna.distributions.IntDistribution(0, 9)})  # no worker attr
    assert fail_dead_trials(study) == []  # younger than the orphan age
    monkeypatch.setattr(liveness, "_ORPHAN_AGE_S", -1.0)
    monkeypatch.setattr(liveness, "GRACE_PERIOD_S", -1.0)
    assert fail_dead_trials(study) == [trial.number]
    states = [t.state for t in study.get_trials()]
    assert states == [TrialState.FAIL, TrialState.WAITING]


@pytest.mark.slow
def test_processes_opening_a_new_sqlite_database_together_all_succeed(tmp_path: Path) -> None:
    """Workers started together on a fresh database race to create Optuna's schema; the
    loser used to fail with 'table ... already exists' ("cannot open storage"). Eight
    processes released at the same instant must all open it and see one study."""
    url = f"sqlite:///{tmp_path}/race.db"
    go = tmp_path / "go"
    code = (
        "import os, sys, time\n"
        "import optuna\n"
        "from tuner.storage import open_storage\n"
        f"open(os.path.join({str(tmp_path)!r}, f'ready{{os.getpid()}}'), 'w').close()\n"
        f"while not os.path.exists({str(go)!r}): time.sleep(0.001)\n"
        f"s = open_storage({url!r})\n"
        "optuna.create_study(storage=s, study_name='r', load_if_exists=True)\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code], env=cli_env(), stderr=subprocess.PIPE, text=True
        )
        for _ in range(8)
    ]
    # every process imported and waiting (however long imports take on a loaded machine)
    deadline = time.monotonic() + 120
    while (
        len(list(tmp_path.glob("ready*"))) < len(procs)
        and time.monotonic() < deadline
        and all(p.poll() is None for p in procs)
    ):  # (one that died is reported below)
        time.sleep(0.01)
    go.write_text("")
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for e in errors if e][:1]
    assert len(optuna.get_all_study_summaries(url)) == 1
