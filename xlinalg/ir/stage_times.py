"""Per-stage timing of the compile path (lowering passes, LLVM IR emission, JIT steps).

`lower_to_llvm(module, timings)`, `convert_to_llvm_ir(module, timings)` and
`JitModule(lowered, timings=...)` add the seconds of each of their stages to a
`dict[str, float]` (wall seconds). A `StageTimes` is such a dict that also keeps
the CPU seconds of this process (`time.process_time`) per stage in `.cpu`: on a
shared machine the wall figures depend on the load, the CPU figures much less.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class StageTimes(dict[str, float]):
    """Wall seconds per stage (the dict) and CPU seconds of this process per stage (`cpu`)."""

    def __init__(self) -> None:
        super().__init__()
        self.cpu: dict[str, float] = {}


@contextmanager
def stage(timings: dict[str, float] | None, name: str) -> Iterator[None]:
    """Add the duration of the `with` body to `timings[name]` (nothing when `timings` is None)."""
    if timings is None:
        yield
        return
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        timings[name] = timings.get(name, 0.0) + time.perf_counter() - wall
        if isinstance(timings, StageTimes):
            timings.cpu[name] = timings.cpu.get(name, 0.0) + time.process_time() - cpu


__all__ = ["StageTimes", "stage"]
