"""Naming an op and its source location in lowering errors."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    NameLoc,
    UnknownLoc,
    UnregisteredOp,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation

from xlinalg.errors import LoweringError


def location_of(op: Operation) -> str | None:
    """`file:line:col` of `op` if the parser recorded one (or a name location)."""
    return _format_location(getattr(op, "location", None))


def _format_location(loc: Attribute | None) -> str | None:
    if loc is None or isinstance(loc, UnknownLoc):
        return None
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    if isinstance(loc, NameLoc):
        return _format_location(loc.location) or loc.desc.data
    if isinstance(loc, CallSiteLoc):
        return _format_location(loc.callee)
    if isinstance(loc, FusedLoc):
        for inner in getattr(loc.locations, "data", ()):
            if (text := _format_location(inner)) is not None:
                return text
    return None


def op_name(op: Operation) -> str:
    """The op's name; for an unregistered op, the name it was written with."""
    if isinstance(op, UnregisteredOp):
        return op.op_name.data
    return op.name


def describe_op(op: Operation) -> str:
    """`'linalg.matmul' (in @f)`: the op name and its enclosing function."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    where = f" (in @{parent.sym_name.data})" if isinstance(parent, FuncOp) else ""
    return f"'{op_name(op)}'{where}"


def lowering_error(op: Operation, message: str) -> LoweringError:
    """A `LoweringError` naming `op`, with its location when known."""
    return LoweringError(f"{describe_op(op)}: {message}", location_of(op))
