"""Workers on several "machines" against one REAL PostgreSQL server on loopback.

The fixture runs `initdb` into a temporary folder and starts the server with `pg_ctl`
on a free 127.0.0.1 port (as the `postgres` user when the tests run as root: initdb
refuses root), then 2 and 4 concurrent `xlinalg worker` processes join one study
through `postgresql://...`. They must finish exactly the requested number of trials
with no duplicated trial numbers. The server is stopped at the end. Without the
PostgreSQL binaries (`apt-get install -y postgresql`, see the README) or the
psycopg2 driver these tests are skipped, naming what is missing.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from optuna.trial import TrialState

from tuner import study as tuner_study
from tuner.budget import BudgetLock

from support import PAYLOAD, SPACE, cli_command, cli_env, needs_pipeline, run_cli

BINARIES = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))

pytestmark = [
    pytest.mark.skipif(
        not BINARIES,
        reason="PostgreSQL server binaries not installed (apt-get install -y postgresql)",
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("psycopg2") is None,
        reason="the psycopg2 driver is not installed (pip install -e '.[dev]')",
    ),
    needs_pipeline,
    pytest.mark.postgres,
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_postgres(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    runuser = shutil.which("runuser")
    if runuser:
        return [runuser, "-u", "postgres", "--", *command]
    return ["su", "postgres", "-c", " ".join(command)]


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    bindir = os.path.dirname(BINARIES[-1])
    folder = tempfile.mkdtemp(prefix="xlinalg-pg-")
    data = os.path.join(folder, "data")
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    subprocess.run(
        _as_postgres(
            [f"{bindir}/initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]
        ),
        check=True,
        capture_output=True,
        timeout=120,
    )
    for attempt in range(3):  # the free port may be taken before the server binds it
        port = _free_port()
        options = f"-p {port} -c listen_addresses=127.0.0.1 -k {folder} -c fsync=off"
        started = subprocess.run(
            _as_postgres(
                [
                    f"{bindir}/pg_ctl",
                    "-D",
                    data,
                    "-o",
                    options,
                    "-l",
                    os.path.join(folder, "log"),
                    "-w",
                    "start",
                ]
            ),
            check=attempt == 2,
            capture_output=True,
            timeout=120,
        )
        if started.returncode == 0:
            break
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            _as_postgres([f"{bindir}/pg_ctl", "-D", data, "-m", "fast", "stop"]),
            capture_output=True,
            timeout=120,
            check=False,
        )
        shutil.rmtree(folder, ignore_errors=True)


def _lock_waiters(url: str) -> int:
    """How many sessions of the server wait for an advisory lock (the budget lock)."""
    import psycopg2  # noqa: PLC0415  (optional driver: the module is skipped without it)

    with psycopg2.connect(url) as connection, connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
        return int(cursor.fetchone()[0])


# Enough trials that one worker cannot finish them all before the others have started
# (constraint-pruned trials are instant; with 4 trials one fast worker sometimes did).
@pytest.mark.slow
@pytest.mark.parametrize(("workers", "trials"), [(2, 6), (4, 8)])
def test_concurrent_workers_on_postgresql(
    postgres_url: str, workers: int, trials: int, tmp_path: Path
) -> None:
    name = f"pg-{workers}"
    study, _ = tuner_study.setup(
        postgres_url,
        name,
        PAYLOAD,
        SPACE,
        "mm.mlir",
        "space.mlir",
        sampler="random",
        seed=0,
        n_trials=trials,
        timing={"max_total_s": 0.02},
    )
    # Hold the study's budget lock until every worker waits for it, so that they all start
    # trials together: one that imports late on a loaded machine must not find the budget
    # used up by the others (the lock is granted in order, so a second worker gets a trial).
    lock = BudgetLock(postgres_url, study)
    lock.acquire()
    try:
        processes = [
            subprocess.Popen(
                cli_command(
                    "worker",
                    "--storage",
                    postgres_url,
                    "--study",
                    name,
                    "--seed",
                    str(index),
                    "--quiet",
                ),
                cwd=tmp_path,
                env=cli_env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for index in range(workers)
        ]
        deadline = time.monotonic() + 120
        while (
            _lock_waiters(postgres_url) < workers
            and time.monotonic() < deadline
            and all(p.poll() is None for p in processes)
        ):  # (one that died: see below)
            time.sleep(0.1)
    finally:
        lock.release()
    deadline = time.monotonic() + 180
    outputs = [p.communicate(timeout=max(1.0, deadline - time.monotonic()))[0] for p in processes]
    for process, output in zip(processes, outputs):
        assert process.returncode == 0, output
    study = tuner_study.load(postgres_url, name)
    found = study.get_trials()
    numbers = [t.number for t in found]
    assert len(found) == trials, [(t.number, t.state, t.user_attrs.get("status")) for t in found]
    assert sorted(numbers) == list(range(trials))  # no duplicated (or missing) numbers
    assert all(t.state != TrialState.RUNNING and "status" in t.user_attrs for t in found)
    assert tuner_study.counted_trials(study) == trials
    assert len({t.user_attrs["worker"] for t in found}) >= 2


def test_unreachable_postgresql_is_one_clear_error(tmp_path: Path) -> None:
    port = _free_port()  # nothing listens there
    done = run_cli(
        tmp_path,
        "worker",
        "--storage",
        f"postgresql://postgres@127.0.0.1:{port}/x",
        "--study",
        "s",
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert "cannot open storage" in done.stderr
    assert "Traceback" not in done.stderr
    assert not list(tmp_path.iterdir())
