"""Imported once by the forkserver that forks candidate processes (see `tuner.worker`).

Importing the compiler here makes every forked candidate start warm. A failure to
import is not fatal for the server: each candidate then imports (and reports) it
itself, as a `compile_error` of that candidate.
"""

from __future__ import annotations

import gc

import tuner.candidate  # noqa: F401  (what every child runs)

try:
    import xlinalg

    xlinalg.warm_up()  # every module imported, LLVM and first-use caches set up: children start warm
except Exception:  # reported per candidate instead
    pass

# The objects created so far live as long as the server: keep the collector (and its
# copy-on-write writes to their headers) away from them in every forked child.
gc.freeze()
