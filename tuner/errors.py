"""Errors raised by the tuner for bad user input (bad space, storage, study name...).

They are `xlinalg.errors.XlinalgError`s, so the command line prints them as one
line and exits with code 1 like every other user error.
"""

from __future__ import annotations

from xlinalg.errors import XlinalgError


class TunerError(XlinalgError):
    """A user error detected by the tuner (search space, constraint, storage, study)."""


class ConstraintError(TunerError):
    """A `// xlinalg.constraint:` line that is malformed or names an unknown knob."""
