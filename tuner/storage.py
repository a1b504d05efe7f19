"""Where studies live: storage URLs -> Optuna storages.

* `sqlite:///results/xlinalg.db` (the default; the path is relative to the current
  directory, and its folder is created if missing) -- embedded, nothing to start;
* `journal:PATH` or a path ending in `.journal`/`.log` -- Optuna's journal file
  storage, for several worker processes on one machine;
* any other SQLAlchemy URL (`postgresql://user@host/db`, `mysql://...`) -- Optuna's
  RDB storage, for workers on several machines (`xlinalg worker`).

RDB storages run with Optuna's heartbeat (`heartbeat_interval`, `grace_period`,
`heartbeat_stale_trial_callback=RetryHeartbeatStaleTrialCallback`, Optuna 5's
name for `failed_trial_callback=RetryFailedTrialCallback`): a trial whose worker died (on
any machine) is marked FAIL once its heartbeat is stale, and a copy of it is
enqueued so the configuration is measured again. Journal files have no heartbeat
in Optuna; `tuner.liveness` covers them (and local SQLite) by checking the
recorded host and process id of RUNNING trials.

`network_filesystem(path)` names the filesystem type when an SQLite file sits on
NFS/CIFS/SMB/sshfs..., where SQLite's locking is unreliable (`open_storage` warns).
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import os
import sys
import time
import warnings
from collections.abc import Iterator
from typing import Any

from optuna.exceptions import ExperimentalWarning
from optuna.storages import (
    BaseStorage,
    JournalStorage,
    RDBStorage,
    RetryHeartbeatStaleTrialCallback,
)
from optuna.storages.journal import JournalFileBackend

from tuner.errors import TunerError

DEFAULT_STORAGE = "sqlite:///results/xlinalg.db"
HEARTBEAT_INTERVAL_S = 2
GRACE_PERIOD_S = 8
MAX_RETRY = 2  # a configuration whose worker died is retried at most twice
NETWORK_FS = (
    "nfs",
    "nfs4",
    "cifs",
    "smb",
    "smb2",
    "smbfs",
    "fuse.sshfs",
    "sshfs",
    "9p",
    "afs",
    "ceph",
    "glusterfs",
    "fuse.glusterfs",
    "lustre",
    "davfs",
    "fuse.s3fs",
)


def _journal_path(url: str) -> str | None:
    if url.startswith("journal:"):
        return url[len("journal:") :]
    if "://" not in url and url.endswith((".journal", ".log")):
        return url
    return None


def _sqlite_path(url: str) -> str | None:
    prefix = "sqlite:///"
    if not url.startswith(prefix):
        return None
    path = url[len(prefix) :]
    return path if path and path != ":memory:" else None


def retry_callback() -> RetryHeartbeatStaleTrialCallback:
    """What to do with a trial whose worker died: enqueue its configuration again."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExperimentalWarning)
        return RetryHeartbeatStaleTrialCallback(max_retry=MAX_RETRY)


def network_filesystem(path: str, mounts: str = "/proc/mounts") -> str | None:
    """The filesystem type of `path` if it is a network filesystem (from /proc/mounts:
    the longest mount point containing the path), else None."""
    try:
        with open(mounts, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    target = os.path.realpath(os.path.abspath(path))
    best, best_type = "", None
    for line in lines:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, best_type = point, fields[2]
    return best_type if best_type in NETWORK_FS else None


def local_path(url: str) -> str | None:
    """The file behind a journal or SQLite URL (None for server databases)."""
    journal = _journal_path(url)
    return journal if journal is not None else _sqlite_path(url)


def engine_url(url: str) -> str:
    """The SQLAlchemy URL for `url`: a plain `postgresql://` means whichever PostgreSQL
    driver is installed (SQLAlchemy 2.1 would insist on psycopg 3; we depend on
    psycopg2-binary)."""
    for plain in ("postgresql://", "postgres://"):
        if (
            url.startswith(plain)
            and importlib.util.find_spec("psycopg") is None
            and importlib.util.find_spec("psycopg2") is not None
        ):
            return "postgresql+psycopg2://" + url[len(plain) :]
    return url


# What a process sees when another one is creating the same new schema: a table it is about
# to create, or the alembic version row it is about to write, already exists.
_SCHEMA_RACES = ("already exists", "alembic_version", "duplicate key")


def _rdb_storage(url: str, engine_kwargs: dict[str, Any]) -> RDBStorage:
    """Optuna's RDB storage; when several processes open a new database at once (workers
    started together, a reader polling a study that is being created), one of them may
    find the schema half made by another ("table ... already exists", a duplicate alembic
    version row): open again."""
    for attempt in range(5):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ExperimentalWarning)  # heartbeat: "experimental"
                return RDBStorage(
                    engine_url(url),
                    engine_kwargs=engine_kwargs,
                    heartbeat_interval=HEARTBEAT_INTERVAL_S,
                    grace_period=GRACE_PERIOD_S,
                    # Optuna 5's name for RetryFailedTrialCallback / failed_trial_callback
                    heartbeat_stale_trial_callback=retry_callback(),
                )
        except Exception as err:
            if not any(race in str(err) for race in _SCHEMA_RACES) or attempt == 4:
                raise
            time.sleep(0.1 * (attempt + 1))
    raise AssertionError("unreachable")


@contextlib.contextmanager
def _creation_lock(sqlite: str) -> Iterator[None]:
    """Processes opening one local SQLite file take turns while Optuna checks (and, on a new
    file, creates) its schema: an exclusive `flock` on the database file itself (created
    empty if missing, which SQLite reads as an empty database). BSD locks do not interact
    with SQLite's own POSIX locks on a local filesystem (on a network one they may, so no
    lock is taken there: `_rdb_storage` retries instead)."""
    fd = os.open(sqlite, os.O_RDONLY | os.O_CREAT, 0o644)  # (a read-only file locks too)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # (releases the lock)


def open_storage(url: str = DEFAULT_STORAGE, must_exist: bool = False) -> BaseStorage:
    """Open the storage named by `url`, creating it unless `must_exist` (for commands
    that only read studies: a missing file is then an error, not a new empty storage)."""
    journal = _journal_path(url)
    local = journal if journal is not None else _sqlite_path(url)
    if must_exist and local is not None and not os.path.exists(local):
        raise TunerError(f"storage '{url}' does not exist (no file '{local}')")
    try:
        if journal is not None:
            folder = os.path.dirname(journal)
            if folder:
                os.makedirs(folder, exist_ok=True)
            return JournalStorage(JournalFileBackend(journal))
        sqlite = _sqlite_path(url)
        engine_kwargs = {}
        if sqlite is not None:
            folder = os.path.dirname(sqlite)
            if folder:
                os.makedirs(folder, exist_ok=True)
            engine_kwargs = {"connect_args": {"timeout": 60}}
            fs_type = network_filesystem(os.path.dirname(os.path.abspath(sqlite)))
            if fs_type is not None:
                print(
                    f"warning: the SQLite file '{sqlite}' is on a network filesystem "
                    f"({fs_type}); SQLite locking is unreliable there: use a local disk "
                    "or postgresql://",
                    file=sys.stderr,
                )
            else:
                with _creation_lock(sqlite):
                    return _rdb_storage(url, engine_kwargs)
        elif url.startswith(("postgresql", "postgres://")):
            engine_kwargs = {"connect_args": {"connect_timeout": 10}}
        elif "://" not in url:
            raise TunerError(
                f"storage '{url}' is not a URL (use sqlite:///FILE, journal:FILE or "
                "postgresql://...)"
            )
        return _rdb_storage(url, engine_kwargs)
    except TunerError:
        raise
    except ImportError as err:
        raise TunerError(f"cannot open storage '{url}': missing driver ({err})") from None
    except Exception as err:  # SQLAlchemy / OS errors: unreachable or invalid storage
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise TunerError(f"cannot open storage '{url}': {message}") from None
