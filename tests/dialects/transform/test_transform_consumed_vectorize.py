"""The two vectorize ops consume their target (upstream: consumesHandle on the target,
checked with iree-opt): a later use of the handle is reported, naming the op."""

from __future__ import annotations

import pytest

import xlinalg
from xlinalg.errors import TransformFailure

from support import needs_iree, run_iree_opt
from support.transform import apply, schedule

TESTED_OPS = [
    "transform.structured.vectorize",
    "transform.structured.vectorize_children_and_apply_patterns",
]

ANY = "!transform.any_op"
PAYLOAD = """
func.func @f(%a: memref<8x16xf32>, %b: memref<16x32xf32>, %c: memref<8x32xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x32xf32>) outs(%c : memref<8x32xf32>)
  func.return
}
"""
CASES = {
    "transform.structured.vectorize": (
        f'    %h = transform.structured.match ops{{["linalg.matmul"]}} in %root : ({ANY}) -> {ANY}\n'
        f"    transform.structured.vectorize %h : {ANY}\n"
    ),
    "transform.structured.vectorize_children_and_apply_patterns": (
        f'    %h = transform.structured.match ops{{["func.func"]}} in %root : ({ANY}) -> {ANY}\n'
        f"    %v = transform.structured.vectorize_children_and_apply_patterns %h : ({ANY}) -> {ANY}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_later_use_of_the_target_is_reported(name: str) -> None:
    apply(PAYLOAD, CASES[name])  # succeeds on its own
    body = CASES[name] + f'    transform.annotate %h "again" : {ANY}\n'
    with pytest.raises(
        TransformFailure, match=f"uses %h, a handle that was consumed by '{name}'"
    ) as info:
        apply(PAYLOAD, body)
    assert not info.value.silenceable


ON_ROOT = {
    "transform.structured.vectorize": f"    transform.structured.vectorize %root : {ANY}\n",
    "transform.structured.vectorize_children_and_apply_patterns": (
        f"    %v = transform.structured.vectorize_children_and_apply_patterns %root : ({ANY}) -> {ANY}\n"
    ),
}


@needs_iree
@pytest.mark.parametrize("name", sorted(ON_ROOT))
def test_upstream_consumes_the_target_too(name: str, tmp_path) -> None:
    """iree-opt rejects the op on a named_sequence argument marked readonly ("consumed in
    the body but is not marked as such"), and accepts it marked consumed."""
    printed = str(xlinalg.parse(schedule(ON_ROOT[name]))).replace("builtin.module", "module", 1)
    for marker, fails in (("{transform.consumed}", False), ("{transform.readonly}", True)):
        path = tmp_path / "s.mlir"
        path.write_text(printed.replace("{transform.consumed}", marker))
        proc = run_iree_opt(path)
        assert (proc.returncode != 0) is fails, proc.stderr
        assert ("consumed in the body but is not marked as such" in proc.stderr) is fails
