"""Reading test files without importing them (a test module imports no other test module):
where a module-level name of a test file comes from, and what a test parametrizes over,
as the dotted name of the object (`xlinalg.coverage.linalg_samples.RUN_CASES`).

The coverage tests use this to check that the tests run the very case lists the coverage
tables report: a test parametrized over a name imported from `xlinalg.coverage` runs that
list object, as the identity check `mark.args[1] is cases.X` on the imported module did."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


@cache
def find_test_file(name: str) -> Path:
    """The one file of `tests/` (any folder) named `name`, e.g. `test_linalg_pack.py`."""
    found = sorted(TESTS.rglob(name))
    assert len(found) == 1, (name, found)
    return found[0]


@cache
def _module(name: str) -> ast.Module:
    return ast.parse(find_test_file(name).read_text())


def _bindings(module: ast.Module) -> dict[str, str | ast.expr]:
    """Module-level name -> the dotted name it imports, or the expression assigned to it."""
    bound: dict[str, str | ast.expr] = {}
    for node in module.body:
        if isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is not None:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    bound[top] = top
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                bound[target.id] = node.value
        elif (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.value is not None
        ):
            bound[node.target.id] = node.value
    return bound


def _dotted(file: str, expr: ast.expr) -> str:
    """The dotted name of `expr` (a name, an attribute, a call of one, or a subscript by a
    constant) in the test file `file`, following its imports and module-level assignments."""
    if isinstance(expr, ast.Name):
        bound = _bindings(_module(file)).get(expr.id)
        if bound is None:
            return f"{file}::{expr.id}"  # defined by the test file itself (a def or a loop)
        return bound if isinstance(bound, str) else _dotted(file, bound)
    if isinstance(expr, ast.Attribute):
        return f"{_dotted(file, expr.value)}.{expr.attr}"
    if isinstance(expr, ast.Call) and not expr.args and not expr.keywords:
        return f"{_dotted(file, expr.func)}()"
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant):
        return f"{_dotted(file, expr.value)}[{expr.slice.value!r}]"
    raise AssertionError(f"{file}: cannot name {ast.unparse(expr)}")


def module_name(file: str, name: str) -> str:
    """The dotted name of the object the module-level `name` of the test file is bound to."""
    return _dotted(file, ast.Name(name))


def functions_of(file: str) -> list[str]:
    """The names of the module-level functions of the test file."""
    return [node.name for node in _module(file).body if isinstance(node, ast.FunctionDef)]


def parametrizations(file: str, test: str) -> list[str]:
    """The dotted names of the argument values of each `pytest.mark.parametrize` of `test`."""
    (function,) = [
        node
        for node in _module(file).body
        if isinstance(node, ast.FunctionDef) and node.name == test
    ]
    return [
        _dotted(file, mark.args[1] if len(mark.args) > 1 else mark.keywords[0].value)
        for mark in function.decorator_list
        if isinstance(mark, ast.Call) and ast.unparse(mark.func) == "pytest.mark.parametrize"
    ]


def parametrized_over(file: str, test: str) -> str:
    """The dotted name of the argument values of the one `pytest.mark.parametrize` of `test`."""
    (values,) = parametrizations(file, test)
    return values
