"""xlinalg: an autotuner for MLIR Linalg kernels on the CPU (xDSL + llvmlite + Optuna).

Public API (see DESIGN.md): `parse`, `compile`, `apply_schedule`, `list_knobs`,
`resolve_knobs`, `host_info`, `Kernel`; `compare` / `CheckResult` (the NumPy
reference check every trial passes); `warm_up` (a process about to compile many
kernels); and the error types in `xlinalg.errors`. The tuner (`tuner/`) uses only these.
"""

from xlinalg import errors
from xlinalg.api import (
    Kernel,
    apply_schedule,
    compile,
    host_info,
    list_knobs,
    parse,
    resolve_knobs,
)
from xlinalg.reference import CheckResult, compare
from xlinalg.warmup import warm_up

__all__ = [
    "CheckResult",
    "Kernel",
    "apply_schedule",
    "compare",
    "compile",
    "errors",
    "host_info",
    "list_knobs",
    "parse",
    "resolve_knobs",
    "warm_up",
]
