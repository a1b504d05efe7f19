"""Where studies live: storage URLs -> Optuna storages.

* `sqlite:///results/xlinalg.db` (the default; the path is relative to the current
  directory, and its folder is created if missing) -- embedded, nothing to start;
* `journal:PATH` or a path ending in `.journal`/`.log` -- Optuna's journal file
  storage, for several worker processes on one machine;
* any other SQLAlchemy URL (`postgresql://user@host/db`, `mysql://...`) -- Optuna's
  RDB storage, for workers on several machines (`xlinalg worker`).

RDB storages run with a heartbeat, so a trial whose process was killed is marked
FAIL once its heartbeat is stale instead of staying RUNNING forever.
"""

from __future__ import annotations

import os
import warnings

from optuna.exceptions import ExperimentalWarning
from optuna.storages import BaseStorage, JournalStorage, RDBStorage
from optuna.storages.journal import JournalFileBackend

from tuner.errors import TunerError

DEFAULT_STORAGE = "sqlite:///results/xlinalg.db"
HEARTBEAT_INTERVAL_S = 10
GRACE_PERIOD_S = 60


def _journal_path(url: str) -> str | None:
    if url.startswith("journal:"):
        return url[len("journal:"):]
    if "://" not in url and url.endswith((".journal", ".log")):
        return url
    return None


def _sqlite_path(url: str) -> str | None:
    prefix = "sqlite:///"
    if not url.startswith(prefix):
        return None
    path = url[len(prefix):]
    return path if path and path != ":memory:" else None


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
        elif "://" not in url:
            raise TunerError(
                f"storage '{url}' is not a URL (use sqlite:///FILE, journal:FILE or "
                "postgresql://...)"
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExperimentalWarning)  # heartbeat is "experimental"
            return RDBStorage(
                url,
                engine_kwargs=engine_kwargs,
                heartbeat_interval=HEARTBEAT_INTERVAL_S,
                grace_period=GRACE_PERIOD_S,
            )
    except TunerError:
        raise
    except ImportError as err:
        raise TunerError(f"cannot open storage '{url}': missing driver ({err})") from None
    except Exception as err:  # noqa: BLE001 - SQLAlchemy / OS errors: unreachable or invalid storage
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise TunerError(f"cannot open storage '{url}': {message}") from None
