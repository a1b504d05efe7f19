"""Parse transform scripts (and payloads) keeping `file:line:col` on every op.

xDSL's parser does not attach source locations to ops written without an
explicit `loc(...)`; `LocatingParser` records the position of each op as a
`FileLineColLoc` so that interpreter errors can point at the schedule text.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import pdl
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.dialects.transform import AnyOpType
from xdsl.ir import Operation, TypeAttribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from xlinalg.errors import ParseFailure


class LocatingParser(Parser):
    """A `Parser` that stamps each parsed op with its `file:line:col` location.

    It also reads the spec's `!pdl.operation` transform handles as
    `!transform.any_op` (outside `pdl.pattern` bodies).
    """

    _pdl_depth: int = 0
    bound_result_count: int = 0
    """How many results the op being parsed binds (`%a, %b = ...`), for custom
    parsers whose result count is not spelled in their types."""

    def _parse_op_result_list(self):  # type: ignore[no-untyped-def]
        results = super()._parse_op_result_list()
        self.bound_result_count = sum(r[1] for r in results)
        return results

    def parse_optional_type(self) -> TypeAttribute | None:
        typ = super().parse_optional_type()
        if isinstance(typ, pdl.OperationType) and self._pdl_depth == 0:
            # The spec ([002], LLVM-17 era) writes op handles as `!pdl.operation`
            # ("PDL handle to an mlir::Operation *"); upstream made it an alias
            # of `!transform.any_op`. Inside `pdl.pattern` it is PDL's own type.
            return AnyOpType()
        return typ

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        in_pattern = self._current_token.text == "pdl.pattern"
        self._pdl_depth += in_pattern
        try:
            op = super().parse_operation()
        finally:
            self._pdl_depth -= in_pattern
        if isinstance(op.location, UnknownLoc):
            loc = span.get_location()
            op.location = FileLineColLoc(StringAttr(loc.file), IntAttr(loc.line), IntAttr(loc.col))
        return op


def default_context() -> Context:
    """All of xlinalg's dialects (see `xlinalg.context`)."""
    from xlinalg.context import make_context

    return make_context()


def parse_module(text: str, name: str = "<schedule>", ctx: Context | None = None) -> ModuleOp:
    """Parse MLIR text to a `ModuleOp`, ops located; errors become `ParseFailure`."""
    try:
        module = LocatingParser(ctx or default_context(), text, name).parse_module()
    except ParseError as err:
        raise ParseFailure(str(err)) from err
    return module


def location_of(op: Operation) -> str | None:
    """`file:line:col` of an op parsed by `LocatingParser` (or with a `loc(...)`)."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return None
