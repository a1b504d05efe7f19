"""The parser of payloads and transform scripts, keeping `file:line:col` on every op.

xDSL's parser does not attach source locations to ops written without an
explicit `loc(...)`; `LocatingParser` records the position of each op as a
`FileLineColLoc` so that interpreter errors can point at the schedule text.

It also reads what upstream prints with `--mlir-print-debuginfo`: explicit
`loc(...)` (file:line:col, names, `callsite(... at ...)`, `fused[...]`) and
`#loc` aliases, which upstream defines *after* the module that uses them: they are
declared before parsing starts (`_predeclare_location_aliases`).
"""

from __future__ import annotations

import re

from xdsl.context import Context
from xdsl.dialects import pdl
from xdsl.dialects.builtin import (
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    LocationAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.dialects.transform import AnyOpType
from xdsl.ir import Operation, TypeAttribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError


class _LocationParser(Parser):
    """A `Parser` that also reads upstream's `fused<metadata>[...]` locations and the
    `loc(...)` upstream prints after a region argument's type (`(%in: f32 loc(...))`)."""

    def parse_optional_argument(self, expect_type: bool = True):
        arg = super().parse_optional_argument(expect_type)
        if isinstance(arg, Parser.Argument) and self._current_token.text == "loc":
            arg.location = self.parse_optional_location()
        return arg

    def _parse_location(self) -> LocationAttr:
        # xDSL reads `fused[...]` but not upstream's `fused<metadata>[...]`
        if self._current_token.text == "fused":
            start = self.pos
            self._consume_token()
            if self.parse_optional_punctuation("<") is not None:
                metadata = self.parse_attribute()
                self.parse_punctuation(">")
                locations = self.parse_comma_separated_list(
                    self.Delimiter.SQUARE, self._parse_location
                )
                return FusedLoc(tuple(locations), metadata)
            self._resume_from(start)
        return super()._parse_location()


class LocatingParser(_LocationParser):
    """A `Parser` that stamps each parsed op with its `file:line:col` location.

    It also reads the spec's `!pdl.operation` transform handles as
    `!transform.any_op` (outside `pdl.pattern` bodies).
    """

    _pdl_depth: int = 0
    _predeclared: frozenset[str] = frozenset()
    bound_result_count: int = 0
    """How many results the op being parsed binds (`%a, %b = ...`), for custom
    parsers whose result count is not spelled in their types."""

    def __init__(self, ctx: Context, input: str, name: str = "<unknown>") -> None:
        super().__init__(ctx, input, name)
        self._predeclared = self._predeclare_location_aliases(ctx, input, name)

    def _predeclare_location_aliases(self, ctx: Context, text: str, name: str) -> frozenset[str]:
        """Parse the top-level `#alias = loc(...)` definitions first (they may refer to each
        other in any order); the main parse then skips them where they stand. A definition
        that cannot be parsed (an undefined alias in it, bad syntax) raises its error at its
        own position."""
        pending = [m.start() for m in _LOC_ALIAS.finditer(text)]
        declared: set[str] = set()
        while pending:
            left: list[tuple[int, ParseError]] = []
            for start in pending:
                sub = _LocationParser(ctx, text, name)
                sub.attribute_aliases = self.attribute_aliases
                sub._resume_from(start)
                alias = sub._current_token.text
                try:
                    sub._parse_alias_def()
                except ParseError as err:
                    left.append((start, err))
                    continue
                declared.add(alias)
            if len(left) == len(pending):
                raise left[0][1]
            pending = [start for start, _ in left]
        return frozenset(declared)

    def _parse_alias_def(self) -> None:
        if self._current_token.text in self._predeclared:
            self._consume_token()
            self.parse_punctuation("=", "after attribute alias name")
            self.parse_attribute()  # declared already (before parsing)
            return
        super()._parse_alias_def()

    def _parse_op_result_list(self):
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


#: a top-level location alias definition (at the start of a line, as upstream prints it)
_LOC_ALIAS = re.compile(r"^#[A-Za-z_][\w$.-]*[ \t]*=[ \t]*loc[ \t]*\(", re.MULTILINE)
