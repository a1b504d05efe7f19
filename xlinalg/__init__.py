"""xlinalg: an autotuner for MLIR Linalg kernels on the CPU (xDSL + llvmlite + Optuna).

Public API (see DESIGN.md): `parse`, `compile`, `apply_schedule`, `list_knobs`,
`resolve_knobs`, `host_info`, `Kernel`, and the error types in `xlinalg.errors`.
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

__all__ = [
    "Kernel",
    "apply_schedule",
    "compile",
    "errors",
    "host_info",
    "list_knobs",
    "parse",
    "resolve_knobs",
]
