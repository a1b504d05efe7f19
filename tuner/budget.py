"""An exact trial budget shared by every worker of a study.

A worker may start a trial only while `counted + running < budget`; that check and
the creation of the trial happen under one lock shared by all workers of the
storage, so N workers finish exactly the budget, with no extra trial:

* journal and SQLite files -- an `fcntl` lock on `FILE.budget-lock` (one machine;
  not `FILE.lock`, which is the journal backend's own lock);
* PostgreSQL -- a session advisory lock (`pg_advisory_lock`) keyed by the study;
* other server databases -- no cross-process lock (a worker may overshoot by one).

Threads of one process also share a `threading.Lock`.
"""

from __future__ import annotations

import fcntl
import hashlib
import threading
from typing import Any

import optuna
from optuna.storages import RDBStorage
from sqlalchemy import text

from tuner.storage import local_path

_THREAD_LOCKS: dict[str, threading.Lock] = {}
_GUARD = threading.Lock()


def _advisory_key(study_name: str) -> int:
    digest = hashlib.sha256(f"xlinalg-budget:{study_name}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class BudgetLock:
    """`acquire()` / `release()` (idempotent) around "check the budget, create a trial"."""

    def __init__(self, storage_url: str, study: optuna.Study) -> None:
        self.url = storage_url
        self.study = study
        key = f"{storage_url}#{study.study_name}"
        with _GUARD:
            self._thread_lock = _THREAD_LOCKS.setdefault(key, threading.Lock())
        self._file: Any = None
        self._connection: Any = None
        self._held = False

    def acquire(self) -> None:
        self._thread_lock.acquire()
        try:
            path = local_path(self.url)
            if path is not None:
                self._file = open(path + ".budget-lock", "a")  # noqa: SIM115 - held until release
                fcntl.flock(self._file, fcntl.LOCK_EX)
            elif self.url.startswith(("postgresql", "postgres://")):
                storage = self.study._storage
                backend = getattr(storage, "_backend", storage)  # inside Optuna's cache
                assert isinstance(backend, RDBStorage)  # a PostgreSQL URL opens an RDB storage
                self._connection = backend.engine.connect()
                self._connection.execute(
                    text("SELECT pg_advisory_lock(:k)"), {"k": _advisory_key(self.study.study_name)}
                )
        except BaseException:
            self._close()
            self._thread_lock.release()
            raise
        self._held = True

    def _close(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None
        if self._connection is not None:
            try:
                self._connection.execute(
                    text("SELECT pg_advisory_unlock(:k)"),
                    {"k": _advisory_key(self.study.study_name)},
                )
            finally:
                self._connection.close()
                self._connection = None

    def release(self) -> None:
        if not self._held:
            return
        self._held = False
        try:
            self._close()
        finally:
            self._thread_lock.release()
