"""`scf.while` whose condition / body permute its loop-carried tensors: the terminator's
copies into the carried buffers read every value before any is overwritten
(`transforms/bufferization/parallel_copies.py`). Checked against a Python loop with the same
semantics, for several trip counts (0 = only the condition runs)."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg

from support.tensors import bufferize

SWAP = """
func.func @f(%x: tensor<5xf32>, %y: tensor<5xf32>, %n: index) -> (tensor<5xf32>, tensor<5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:3 = scf.while (%a = %x, %b = %y, %i = %c0) : (tensor<5xf32>, tensor<5xf32>, index) -> (tensor<5xf32>, tensor<5xf32>, index) {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %b, %a, %i : tensor<5xf32>, tensor<5xf32>, index
  } do {
  ^bb0(%p: tensor<5xf32>, %q: tensor<5xf32>, %j: index):
    %d = linalg.add ins(%p, %p : tensor<5xf32>, tensor<5xf32>) outs(%p : tensor<5xf32>) -> tensor<5xf32>
    %k = arith.addi %j, %c1 : index
    scf.yield %q, %d, %k : tensor<5xf32>, tensor<5xf32>, index
  }
  return %r#0, %r#1 : tensor<5xf32>, tensor<5xf32>
}
"""


def _swap_reference(x: np.ndarray, y: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    a, b, i = x, y, 0
    while True:
        forwarded = (b, a)  # scf.condition swaps
        if not i < n:
            return forwarded
        p, q = forwarded
        a, b, i = q, p + p, i + 1


ROTATE = """
func.func @f(%x: tensor<3x2xf64>, %y: tensor<3x2xf64>, %z: tensor<3x2xf64>, %n: index)
    -> (tensor<3x2xf64>, tensor<3x2xf64>, tensor<3x2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:4 = scf.while (%a = %x, %b = %y, %c = %z, %i = %c0)
      : (tensor<3x2xf64>, tensor<3x2xf64>, tensor<3x2xf64>, index)
      -> (tensor<3x2xf64>, tensor<3x2xf64>, tensor<3x2xf64>, index) {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %a, %b, %c, %i : tensor<3x2xf64>, tensor<3x2xf64>, tensor<3x2xf64>, index
  } do {
  ^bb0(%p: tensor<3x2xf64>, %q: tensor<3x2xf64>, %s: tensor<3x2xf64>, %j: index):
    %m = linalg.mul ins(%p, %q : tensor<3x2xf64>, tensor<3x2xf64>) outs(%s : tensor<3x2xf64>) -> tensor<3x2xf64>
    %k = arith.addi %j, %c1 : index
    scf.yield %q, %m, %p, %k : tensor<3x2xf64>, tensor<3x2xf64>, tensor<3x2xf64>, index
  }
  return %r#0, %r#1, %r#2 : tensor<3x2xf64>, tensor<3x2xf64>, tensor<3x2xf64>
}
"""


def _rotate_reference(
    x: np.ndarray, y: np.ndarray, z: np.ndarray, n: int
) -> tuple[np.ndarray, ...]:
    a, b, c = x, y, z
    for _ in range(n):
        a, b, c = b, a * b, a  # the body yields (q, p*q, p): a 3-cycle through a product
    return a, b, c


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_condition_swapping_two_tensors(n: int) -> None:
    kernel = xlinalg.compile(SWAP, entry="f")
    x = np.arange(5, dtype=np.float32)
    y = 10 + np.arange(5, dtype=np.float32)
    got = kernel(x.copy(), y.copy(), n)
    for g, e in zip(got, _swap_reference(x, y, n), strict=True):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("n", [0, 1, 3, 4])
def test_body_rotating_three_tensors(n: int) -> None:
    kernel = xlinalg.compile(ROTATE, entry="f")
    rng = np.random.default_rng(n)
    x, y, z = (rng.uniform(0.5, 1.5, (3, 2)) for _ in range(3))
    got = kernel(x.copy(), y.copy(), z.copy(), n)
    for g, e in zip(got, _rotate_reference(x, y, z, n), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-12)


def test_no_temporary_when_nothing_is_permuted() -> None:
    """A loop that yields each carried tensor into its own position copies nothing extra."""
    text = SWAP.replace("scf.condition(%go) %b, %a, %i", "scf.condition(%go) %a, %b, %i").replace(
        "scf.yield %q, %d, %k", "scf.yield %d, %q, %k"
    )
    permuted, plain = bufferize(SWAP), bufferize(text)
    assert str(plain).count("memref.alloc") < str(permuted).count("memref.alloc")


SWAP_TYPES = """
func.func @f(%x: tensor<4xf32>, %y: tensor<3xf32>, %n: index) -> (tensor<3xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:3 = scf.while (%a = %x, %b = %y, %i = %c0) : (tensor<4xf32>, tensor<3xf32>, index)
      -> (tensor<3xf32>, tensor<4xf32>, index) {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %b, %a, %i : tensor<3xf32>, tensor<4xf32>, index
  } do {
  ^bb0(%p: tensor<3xf32>, %q: tensor<4xf32>, %j: index):
    %d = linalg.add ins(%q, %q : tensor<4xf32>, tensor<4xf32>) outs(%q : tensor<4xf32>) -> tensor<4xf32>
    %e = linalg.mul ins(%p, %p : tensor<3xf32>, tensor<3xf32>) outs(%p : tensor<3xf32>) -> tensor<3xf32>
    %k = arith.addi %j, %c1 : index
    scf.yield %d, %e, %k : tensor<4xf32>, tensor<3xf32>, index
  }
  return %r#0, %r#1 : tensor<3xf32>, tensor<4xf32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 3])
def test_condition_permuting_tensors_of_different_types(n: int) -> None:
    """The forwarded values' types differ from the before region's at the same positions:
    they get buffers of their own (static shapes), filled by the condition."""
    kernel = xlinalg.compile(SWAP_TYPES, entry="f")
    x = np.arange(4, dtype=np.float32) + 1
    y = np.arange(3, dtype=np.float32) + 2
    a, b = x.copy(), y.copy()
    for _ in range(n):
        a, b = a + a, b * b  # the body: forwarded (b, a) -> yields (2a, b*b)
    got = kernel(x.copy(), y.copy(), n)
    np.testing.assert_array_equal(got[0], b)
    np.testing.assert_array_equal(got[1], a)


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("size", [1, 6])
def test_dynamic_tensor_forwarded_at_another_type(n: int, size: int) -> None:
    """The forwarded `tensor<?xf32>` lands at a position whose before argument is a
    `tensor<4xf32>`: its buffer is allocated before the loop with the sizes of the before
    argument it is (upstream copies into a new buffer too)."""
    text = SWAP_TYPES.replace("tensor<3xf32>", "tensor<?xf32>")
    kernel = xlinalg.compile(text, entry="f")
    x = np.arange(4, dtype=np.float32) + 1
    y = np.arange(size, dtype=np.float32) + 2
    a, b = x.copy(), y.copy()
    for _ in range(n):
        a, b = a + a, b * b
    got = kernel(x.copy(), y.copy(), n)
    np.testing.assert_array_equal(got[0], b)
    np.testing.assert_array_equal(got[1], a)


# the condition forwards a tensor computed in place into a before argument (same sizes)
COMPUTED = """
func.func @f(%x: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%i = %c0, %a = %x) : (index, tensor<?xf32>) -> (tensor<?xf32>, index) {
    %go = arith.cmpi slt, %i, %n : index
    %s = linalg.mul ins(%a, %a : tensor<?xf32>, tensor<?xf32>) outs(%a : tensor<?xf32>) -> tensor<?xf32>
    scf.condition(%go) %s, %i : tensor<?xf32>, index
  } do {
  ^bb0(%b: tensor<?xf32>, %j: index):
    %k = arith.addi %j, %c1 : index
    scf.yield %k, %b : index, tensor<?xf32>
  }
  return %r#0 : tensor<?xf32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 2])
def test_dynamic_tensor_computed_in_the_before_region_is_forwarded(n: int) -> None:
    kernel = xlinalg.compile(COMPUTED, entry="f")
    x = np.linspace(0.5, 1.5, 5).astype(np.float32)
    expected = x.copy()
    for _ in range(n + 1):  # the condition squares before every test, n + 1 times
        expected = expected * expected
    np.testing.assert_allclose(kernel(x.copy(), n), expected, rtol=1e-6)


@pytest.mark.parametrize("m", [0, 3])
def test_new_dynamic_tensor_of_sizes_defined_before_the_loop_is_forwarded(m: int) -> None:
    text = (
        COMPUTED.replace("%n: index)", "%n: index, %m: index)")
        .replace(
            "%s = linalg.mul ins(%a, %a : tensor<?xf32>, tensor<?xf32>) outs(%a : tensor<?xf32>) -> tensor<?xf32>",
            "%e = tensor.empty(%m) : tensor<?xf32>\n    %z = arith.constant 4.0 : f32\n"
            "    %s = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>",
        )
        .replace("scf.yield %k, %b : index", "scf.yield %k, %x : index")
    )  # the carried tensor keeps its size
    assert "scf.yield %k, %x" in text
    got = xlinalg.compile(text, entry="f")(np.ones(5, np.float32), 2, m)
    np.testing.assert_array_equal(got, np.full(m, 4.0, np.float32))


@pytest.mark.parametrize("n", [0, 2, 5])
def test_dynamic_tensor_of_sizes_computed_in_the_loop_forwarded_at_another_type(n: int) -> None:
    """A new tensor of a size computed in the loop has no buffer before the loop to live in:
    the position carries a memref (`loop_resize.py`), a new buffer per iteration."""
    text = COMPUTED.replace(
        "%s = linalg.mul ins(%a, %a : tensor<?xf32>, tensor<?xf32>) outs(%a : tensor<?xf32>) -> tensor<?xf32>",
        "%e = tensor.empty(%i) : tensor<?xf32>\n    %z = arith.constant 3.0 : f32\n"
        "    %s = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>",
    )
    assert "tensor.empty(%i)" in text
    got = xlinalg.compile(text, entry="f")(np.ones(4, np.float32), n)
    np.testing.assert_array_equal(got, np.full(n, 3.0, np.float32))


GROWING = """
func.func @f(%x: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%a = %x, %i = %c0) : (tensor<?xf32>, index) -> (tensor<?xf32>, index) {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %a, %i : tensor<?xf32>, index
  } do {
  ^bb0(%b: tensor<?xf32>, %j: index):
    %k = arith.addi %j, %c1 : index
    %e = tensor.empty(%k) : tensor<?xf32>
    %z = arith.constant 4.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %f, %k : tensor<?xf32>, index
  }
  return %r#0 : tensor<?xf32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 3])
def test_carried_tensor_changing_sizes(n: int) -> None:
    """The position carries a new buffer per iteration (`loop_resize.py`; more cases in
    test_bufferize_loop_resize.py); computed in place it keeps the one buffer."""
    x = np.arange(6, dtype=np.float32)
    got = xlinalg.compile(GROWING, entry="f")(x, n)
    np.testing.assert_array_equal(got, x if n == 0 else np.full(n, 4.0, np.float32))
    in_place = GROWING.replace("outs(%e : tensor<?xf32>)", "outs(%b : tensor<?xf32>)")
    got = xlinalg.compile(in_place, entry="f")(np.arange(6, dtype=np.float32), 2)
    np.testing.assert_array_equal(got, np.full(6, 4.0, np.float32))
