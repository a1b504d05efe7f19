"""NumPy semantics of linalg ops and whole functions: the oracle for tests and trial checks."""

from xlinalg.reference.compare import CheckResult, compare, reduction_length
from xlinalg.reference.function import max_reduction_length, run_function
from xlinalg.reference.generic import evaluate_generic

__all__ = [
    "CheckResult",
    "compare",
    "evaluate_generic",
    "max_reduction_length",
    "reduction_length",
    "run_function",
]
