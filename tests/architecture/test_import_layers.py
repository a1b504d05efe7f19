"""The layers of the compiler import downward only (docs/architecture.md).

    ir (+ errors, host) ← interfaces ← dialects ← transforms ← interpreter ← lowering
        ← backend ← reference ← api (+ examples, warmup, coverage) ← cli / tuner

A module may import its own layer and the layers below it, at module level. The
tuner talks to the compiler through the public API only (`xlinalg`, `xlinalg.errors`),
and the compiler imports the tuner only in the CLI. Imports inside functions are
checked by ruff (PLC0415): each that is left carries a `noqa` with its reason.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

from support import REPO

#: bottom first; a module belongs to the layer of the longest prefix that names it
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("ir", ("xlinalg.ir", "xlinalg.errors", "xlinalg.host")),
    ("interfaces", ("xlinalg.interfaces",)),
    ("dialects", ("xlinalg.dialects",)),
    ("transforms", ("xlinalg.transforms",)),
    ("interpreter", ("xlinalg.interpreter",)),
    ("lowering", ("xlinalg.lowering",)),
    ("backend", ("xlinalg.backend",)),
    ("reference", ("xlinalg.reference",)),
    ("api", ("xlinalg", "xlinalg.api", "xlinalg.examples", "xlinalg.warmup", "xlinalg.coverage")),
    ("entry points", ("xlinalg.cli", "tuner")),
]

#: what the tuner may import of the compiler: its public API
PUBLIC_API = ("xlinalg", "xlinalg.errors")


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the imported module (or package)
    where: str  # path:line


def layer_of(module: str) -> int | None:
    best: tuple[int, int] | None = None  # (prefix length, layer index)
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = module == prefix or module.startswith(prefix + ".")
            if matches and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(module: str, name: str) -> str:
    """`from module import name`: the submodule `module.name` when there is one."""
    path = REPO.joinpath(*f"{module}.{name}".split("."))
    return f"{module}.{name}" if path.with_suffix(".py").exists() or path.is_dir() else module


def _imports() -> list[Import]:
    found: list[Import] = []
    for package in ("xlinalg", "tuner"):
        for path in sorted((REPO / package).rglob("*.py")):
            module = _module_name(path)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                where = f"{path.relative_to(REPO)}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.Import):
                    found += [Import(module, alias.name, where) for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    found += [
                        Import(module, _imported(node.module, alias.name), where)
                        for alias in node.names
                    ]
                elif isinstance(node, ast.ImportFrom):
                    pytest.fail(f"{where}: relative import (write the absolute module)")
    return found


IMPORTS = _imports()


def test_the_layers_cover_every_module() -> None:
    modules = {i.module for i in IMPORTS}
    assert modules, "no module found"
    assert [m for m in sorted(modules) if layer_of(m) is None] == []


def test_imports_go_downward_only() -> None:
    upward = []
    for imp in IMPORTS:
        source, target = layer_of(imp.module), layer_of(imp.target)
        if source is None or target is None or target <= source:
            continue
        upward.append(
            f"{imp.where}: {imp.module} ({LAYERS[source][0]}) imports "
            f"{imp.target} ({LAYERS[target][0]})"
        )
    assert upward == []


def test_the_tuner_uses_the_public_api_only() -> None:
    private = [
        f"{i.where}: {i.target}"
        for i in IMPORTS
        if i.module.split(".")[0] == "tuner"
        and i.target.split(".")[0] == "xlinalg"
        and i.target not in PUBLIC_API
    ]
    assert private == []


def test_the_compiler_imports_the_tuner_only_in_the_cli() -> None:
    found = [
        f"{i.where}: {i.target}"
        for i in IMPORTS
        if i.module.split(".")[0] == "xlinalg"
        and i.module != "xlinalg.cli"
        and i.target.split(".")[0] == "tuner"
    ]
    assert found == []


def test_the_checker_sees_an_upward_import() -> None:
    """The rule above can fail: a dialect importing a transform is upward."""
    assert layer_of("xlinalg.dialects.linalg.named") == 2
    assert layer_of("xlinalg.transforms.linalg.generalize") == 3
    assert layer_of("xlinalg.errors") == 0
    assert layer_of("xlinalg") == layer_of("xlinalg.api")
    assert layer_of("numpy") is None
