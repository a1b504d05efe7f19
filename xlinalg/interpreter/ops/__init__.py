"""Implementations of the transform ops, registered in `xlinalg.interpreter.registry`."""

from xlinalg.interpreter.ops import core, loop, structured, tune

__all__ = ["core", "loop", "structured", "tune"]
