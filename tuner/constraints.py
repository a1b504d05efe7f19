"""Constraints between knobs, declared in the search-space template.

A template declares a constraint with a comment line (comments are ignored by
every MLIR parser, so the template stays valid upstream MLIR):

    // xlinalg.constraint: tile_m % reg_m == 0
    // xlinalg.constraint: tile_n >= 2 * reg_n and reg_n in (4, 8)

The expression is a small Python-like expression over knob names. It is parsed
with `ast` and evaluated by a tiny interpreter that only knows literals, knob
names, arithmetic, comparisons, boolean operators, conditional expressions,
tuples/lists and the functions `min`, `max`, `abs`: nothing is ever `eval`ed.
A trial whose knob values violate a constraint is pruned before compiling.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tuner.errors import ConstraintError

_CONSTRAINT_LINE = re.compile(r"^\s*//\s*xlinalg\.constraint\s*:(.*)$")

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {"min": min, "max": max, "abs": abs}
_MAX_POWER = 64


@dataclass(frozen=True)
class Constraint:
    """One `// xlinalg.constraint:` line: its source text, location and parsed form."""

    text: str
    location: str
    tree: ast.Expression

    @property
    def names(self) -> frozenset[str]:
        """Knob names the expression refers to (excluding called function names)."""
        called = {id(node.func) for node in ast.walk(self.tree) if isinstance(node, ast.Call)}
        return frozenset(
            node.id
            for node in ast.walk(self.tree)
            if isinstance(node, ast.Name)
            and id(node) not in called
            and node.id not in ("True", "False")
        )

    def holds(self, values: Mapping[str, Any]) -> bool:
        """Evaluate the constraint; an arithmetic error (e.g. `x % 0`) counts as violated."""
        try:
            return bool(_Evaluator(values, self).visit(self.tree.body))
        except (ArithmeticError, TypeError, ValueError):
            return False


class _Evaluator:
    def __init__(self, values: Mapping[str, Any], constraint: Constraint) -> None:
        self.values = values
        self.constraint = constraint

    def visit(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id == "True":
                return True
            if node.id == "False":
                return False
            if node.id not in self.values:
                raise ConstraintError(
                    f"constraint '{self.constraint.text}' uses '{node.id}', which is not a knob",
                    self.constraint.location,
                )
            return self.values[node.id]
        if isinstance(node, ast.BinOp):
            left, right = self.visit(node.left), self.visit(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > _MAX_POWER:
                raise ValueError("exponent too large")
            return _BINARY[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)](self.visit(node.operand))
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.And):
                result: Any = True
                for value in node.values:
                    result = self.visit(value)
                    if not result:
                        return result
                return result
            result = False
            for value in node.values:
                result = self.visit(value)
                if result:
                    return result
            return result
        if isinstance(node, ast.Compare):
            left = self.visit(node.left)
            for op, comparator in zip(node.ops, node.comparators):
                right = self.visit(comparator)
                if not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            return self.visit(node.body) if self.visit(node.test) else self.visit(node.orelse)
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(self.visit(element) for element in node.elts)
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Name)
            return _FUNCTIONS[node.func.id](*(self.visit(arg) for arg in node.args))
        raise AssertionError(f"unchecked node {type(node).__name__}")  # pragma: no cover


def _check_syntax(tree: ast.Expression, text: str, location: str) -> None:
    allowed = (
        ast.Expression,
        ast.Constant,
        ast.Name,
        ast.Load,
        ast.BinOp,
        ast.UnaryOp,
        ast.BoolOp,
        ast.Compare,
        ast.IfExp,
        ast.Tuple,
        ast.List,
        ast.Call,
        ast.And,
        ast.Or,
        *_BINARY,
        *_UNARY,
        *_COMPARE,
    )
    for node in ast.walk(tree):
        if not isinstance(node, allowed):
            raise ConstraintError(
                f"constraint '{text}': '{type(node).__name__}' is not allowed "
                "(use knob names, numbers, arithmetic, comparisons, and/or/not, min/max/abs)",
                location,
            )
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, str, bool)):
            raise ConstraintError(f"constraint '{text}': unsupported literal", location)
        if isinstance(node, ast.Call) and (
            not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS or node.keywords
        ):
            raise ConstraintError(
                f"constraint '{text}': only min(), max() and abs() may be called", location
            )


def parse_constraint(text: str, location: str = "<constraint>") -> Constraint:
    """Parse one constraint expression (without the `// xlinalg.constraint:` prefix)."""
    text = text.strip()
    if not text:
        raise ConstraintError("empty constraint", location)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        raise ConstraintError(
            f"constraint '{text}' is not a valid expression: {err.msg}", location
        ) from None
    _check_syntax(tree, text, location)
    return Constraint(text=text, location=location, tree=tree)


def parse_constraints(template: str, filename: str = "<space>") -> list[Constraint]:
    """All `// xlinalg.constraint: EXPR` lines of a template, in order."""
    constraints: list[Constraint] = []
    for lineno, line in enumerate(template.splitlines(), start=1):
        match = _CONSTRAINT_LINE.match(line)
        if match is None:
            continue
        column = match.start(1) + 1
        constraints.append(parse_constraint(match.group(1), f"{filename}:{lineno}:{column}"))
    return constraints


def check_names(constraints: Iterable[Constraint], knob_names: Iterable[str]) -> None:
    """Raise `ConstraintError` if a constraint mentions a name that is not a knob."""
    known = set(knob_names)
    for constraint in constraints:
        unknown = sorted(constraint.names - known)
        if unknown:
            raise ConstraintError(
                f"constraint '{constraint.text}' uses unknown knob(s): {', '.join(unknown)}"
                f" (knobs: {', '.join(sorted(known)) or 'none'})",
                constraint.location,
            )


def first_violated(
    constraints: Iterable[Constraint], values: Mapping[str, Any]
) -> Constraint | None:
    """The first constraint that does not hold for `values`, or None if all hold."""
    for constraint in constraints:
        if not constraint.holds(values):
            return constraint
    return None


def constraint_lines(template: str) -> str:
    """The `// xlinalg.constraint:` lines of a template (to carry them into a resolved
    copy of it, which loses comments)."""
    return "".join(line + "\n" for line in template.splitlines() if _CONSTRAINT_LINE.match(line))
