"""Pause Python's cyclic garbage collector while a kernel compiles.

A compile creates and drops hundreds of thousands of IR objects (ops, values, uses,
attributes); the collector's generation-0 thresholds trigger a collection every
700 allocations, and each one walks the young IR — ≈15 % of the compile time of a
conv candidate. Nothing in a compile depends on cycles being reclaimed early, so the
collector is paused for the duration and resumes (collecting what became garbage) at
the next allocation threshold afterwards. Reference counting still frees acyclic
garbage at once.

    @gc_paused()
    def compile(...): ...
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block (re-enabled only if it was enabled)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


__all__ = ["gc_paused"]
