"""The passes by name (upstream's `PassRegistry`): every pass registers itself where it is
defined (`@register_pass`), as MLIR passes do with their static registration, and xDSL's
canonicalize, cse and licm are registered here under upstream's names.
`transform.apply_registered_pass` looks passes up here; a name maps to the pass class,
whose dataclass fields are the pass options.
"""

from __future__ import annotations

from typing import TypeVar

from xdsl.passes import ModulePass
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.loop_invariant_code_motion import LoopInvariantCodeMotionPass

PassT = TypeVar("PassT", bound=type[ModulePass])

PASSES: dict[str, type[ModulePass]] = {}
"""Pass name (and upstream aliases) → pass class."""


def register_pass(cls: PassT) -> PassT:
    """Class decorator: register the pass under its `name`."""
    if PASSES.get(cls.name, cls) is not cls:
        raise ValueError(f"two passes are named '{cls.name}'")
    PASSES[cls.name] = cls
    return cls


def lookup_pass(name: str) -> type[ModulePass] | None:
    return PASSES.get(name)


register_pass(CanonicalizePass)
PASSES["cse"] = CommonSubexpressionElimination
PASSES["loop-invariant-code-motion"] = LoopInvariantCodeMotionPass
PASSES["licm"] = LoopInvariantCodeMotionPass  # upstream's alias

__all__ = ["PASSES", "lookup_pass", "register_pass"]
