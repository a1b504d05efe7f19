"""One registry of passes by name (`xlinalg.ir.passes`): every pass xlinalg defines is in it
under its own name, and `transform.apply_registered_pass` runs any of them by that name."""

from __future__ import annotations

import inspect

import numpy as np
from xdsl.passes import ModulePass

import xlinalg
from xlinalg.ir.passes import PASSES, lookup_pass
from xlinalg.warmup import import_all_modules


def _defined_passes() -> set[type[ModulePass]]:
    import_all_modules()
    found: set[type[ModulePass]] = set()
    stack = list(ModulePass.__subclasses__())
    while stack:
        cls = stack.pop()
        stack += cls.__subclasses__()
        if cls.__module__.startswith("xlinalg.") and not inspect.isabstract(cls):
            found.add(cls)
    return found


def test_every_pass_of_xlinalg_is_registered_under_its_name() -> None:
    defined = _defined_passes()
    assert len(defined) >= 20
    missing = sorted(c.__qualname__ for c in defined if PASSES.get(c.name) is not c)
    assert missing == []


def test_upstream_names_of_the_xdsl_passes() -> None:
    for name in ("canonicalize", "cse", "licm", "loop-invariant-code-motion"):
        found = lookup_pass(name)
        assert found is not None
        assert issubclass(found, ModulePass)
    assert lookup_pass("no-such-pass") is None


def test_apply_registered_pass_runs_a_pass_by_its_name() -> None:
    payload = """
    func.func @f(%a: memref<7xf32>, %b: memref<7xf32>) {
      linalg.copy ins(%a : memref<7xf32>) outs(%b : memref<7xf32>)
      return
    }"""
    schedule = """module attributes {transform.with_named_sequence} {
      transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
        %f = transform.structured.match ops{["func.func"]} in %root
          : (!transform.any_op) -> !transform.any_op
        %g = transform.apply_registered_pass "linalg-generalize-named-ops" to %f
          : (!transform.any_op) -> !transform.any_op
        %l = transform.apply_registered_pass "convert-linalg-to-loops" to %g
          : (!transform.any_op) -> !transform.any_op
        transform.yield
      }
    }"""
    module = xlinalg.apply_schedule(payload, schedule)
    text = str(module)
    assert "linalg." not in text
    assert "scf.for" in text
    a = np.arange(7, dtype=np.float32)
    b = np.zeros(7, dtype=np.float32)
    xlinalg.compile(payload, schedule)(a, b)
    np.testing.assert_array_equal(a, b)
