"""Errors that xlinalg reports to users.

Every error a user can provoke with bad input is an `XlinalgError` (or a
subclass): the CLI prints `str(err)` (one clear message, with `file:line:col`
where there is one) and exits with code 1, never a traceback.
"""

from __future__ import annotations


class XlinalgError(Exception):
    """A user-facing error: bad input, a transform that cannot apply, a bad knob."""

    def __init__(self, message: str, location: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        if self.location:
            return f"{self.location}: error: {self.message}"
        return f"error: {self.message}"


class ParseFailure(XlinalgError):
    """Malformed MLIR text (payload or schedule), or an op that does not verify."""


class VerifyFailure(XlinalgError):
    """IR that parsed but does not verify."""


class TransformFailure(XlinalgError):
    """A transform op failed.

    `silenceable` follows the Transform dialect spec: a silenceable failure may be
    suppressed by an enclosing `failures(suppress)` sequence; a definite failure
    cannot and aborts interpretation immediately.
    """

    def __init__(self, message: str, location: str | None = None, *, silenceable: bool) -> None:
        super().__init__(message, location)
        self.silenceable = silenceable


def silenceable_failure(message: str) -> TransformFailure:
    """A `TransformFailure` that an enclosing `failures(suppress)` sequence may silence."""
    return TransformFailure(message, silenceable=True)


class KnobError(XlinalgError):
    """A knob value that is missing or not among the knob's options."""


class LoweringError(XlinalgError):
    """IR that the lowering pipeline cannot translate to LLVM."""


class BackendError(XlinalgError):
    """LLVM compilation / JIT / ABI errors (e.g. a disallowed external symbol, bad arrays)."""
