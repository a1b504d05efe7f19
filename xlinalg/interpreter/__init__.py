"""The transform interpreter: handles, params, invalidation, failure modes.

Public API: `apply_schedule(payload, schedule, knobs=None, entry="__transform_main",
*, extra_bindings=(), expensive_checks=True)`; the implemented ops and their
tests: `xlinalg.coverage.transform.print_transform_coverage()`.
"""

from xlinalg.dialects.context import make_context, parse_module
from xlinalg.interpreter import ops as _ops  # noqa: F401  (registers the op implementations)
from xlinalg.interpreter.apply import DEFAULT_ENTRY, apply_schedule, find_entry
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import TRANSFORM_IMPLS, register
from xlinalg.interpreter.state import TransformState
from xlinalg.ir.diagnostics import location_of

__all__ = [
    "DEFAULT_ENTRY",
    "TRANSFORM_IMPLS",
    "Interpreter",
    "TransformState",
    "apply_schedule",
    "find_entry",
    "location_of",
    "make_context",
    "parse_module",
    "register",
]
