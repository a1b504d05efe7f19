"""Applying a schedule body in the tests: wrapped into a `__transform_main` named sequence
(`schedule`), applied by xlinalg's interpreter (`apply`, `fails`) or compiled and run
against the untransformed kernel (`same_results`); the same body applied by upstream's
interpreter (`iree-opt --transform-interpreter`: `script`, `upstream_output`,
`upstream`); and the small memref payloads the transform tests share."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import xlinalg
from xlinalg.errors import TransformFailure
from xlinalg.interpreter import apply_schedule, parse_module

from support import run_iree_opt


def schedule(body: str) -> str:
    """`body` (indented lines of transform ops on `%root`) as a schedule module."""
    return (
        "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {\n"
        f"{body}\n"
        "    transform.yield\n  }\n}\n"
    )


def apply(payload: str, body: str) -> ModuleOp:
    """`payload` transformed by `schedule(body)`, verified."""
    module = parse_module(payload, "payload.mlir")
    apply_schedule(module, parse_module(schedule(body), "schedule.mlir"))
    module.verify()
    return module


def same_results(
    payload: str, body: str, shapes: list[tuple[int, ...]], seed: int = 0, rtol: float = 1e-5
) -> None:
    """The transformed kernel computes what the original computes (in-place memrefs)."""
    rng = np.random.default_rng(seed)
    args = [np.asarray(rng.random(shape), dtype=np.float32) for shape in shapes]
    expected = [a.copy() for a in args]
    xlinalg.compile(payload, entry="f")(*expected)
    xlinalg.compile(payload, schedule=schedule(body), entry="f")(*args)
    for got, want in zip(args, expected):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


def fails(payload: str, body: str, *, silenceable: bool, match: str) -> None:
    """Applying `schedule(body)` to `payload` fails with `match`, of the given kind."""
    with pytest.raises(TransformFailure, match=match) as info:
        apply(payload, body)
    assert info.value.silenceable is silenceable


MATMUL = """
func.func @f(%a: memref<37x23xf32>, %b: memref<23x29xf32>, %c: memref<37x29xf32>) {
  linalg.matmul ins(%a, %b : memref<37x23xf32>, memref<23x29xf32>) outs(%c : memref<37x29xf32>)
  func.return
}
"""
MATMUL_SHAPES = [(37, 23), (23, 29), (37, 29)]


LOOP = """
func.func @f(%a: memref<10xf32>, %b: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c10 step %c1 {
    %x = memref.load %a[%i] : memref<10xf32>
    %y = arith.mulf %x, %x : f32
    %z = arith.addf %y, %x : f32
    memref.store %z, %b[%i] : memref<10xf32>
  }
  func.return
}
"""


# the opening (the functions matched as %f) and the closing of a schedule around vector ops
HEADER = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
"""
FOOTER = """    transform.yield
  }
}
"""


# ------------------------------------------------------------------ upstream's interpreter


def script(body: str) -> str:
    """`body` (unindented transform ops on `%root`) as a schedule module."""
    indented = "\n".join("    " + line for line in body.splitlines())
    return (
        "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {\n"
        f"{indented}\n    transform.yield\n  }}\n}}\n"
    )


def upstream_output(payload: str, body: str, tmp_path: Path, *passes: str) -> str:
    """iree-opt's text after applying `body` (then `passes`) to `payload`, schedule included."""
    path = tmp_path / "input.mlir"
    schedule_text = str(parse_module(script(body))).replace("builtin.module", "module", 1)
    path.write_text("module {\n" + payload + "\n" + schedule_text + "\n}\n")
    proc = run_iree_opt(path, "--transform-interpreter", *passes)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def upstream(payload: str, body: str, tmp_path: Path, *passes: str) -> str:
    """iree-opt's payload after applying `body` (then `passes`), printed by xlinalg."""
    module = parse_module(upstream_output(payload, body, tmp_path, *passes), "upstream.mlir")
    for op in list(module.walk()):
        if (
            isinstance(op, ModuleOp)
            and op is not module
            and "transform.with_named_sequence" in op.attributes
        ):
            op.detach()
            op.erase(safe_erase=False)
    return str(module)
