"""Loop-carried dynamically shaped tensors whose sizes change between iterations
(`transforms/bufferization/loop_resize.py`): the loop carries a memref, each iteration's tensor
gets a buffer of its own and the previous one is freed. Results vs NumPy; the bufferized IR
frees every buffer the loop allocates exactly once (`_check_ownership`), and a kernel called
many times does not grow the process."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import MemRefType, ModuleOp, TensorType
from xdsl.ir import Block, SSAValue

import xlinalg

from support.tensors import bufferize


def _for_function(body: str, yielded: str) -> str:
    """@f(%x, %n): an scf.for over [0, %n) carrying %a (from %x), returned."""
    return f"""
func.func @f(%x: tensor<?xf32>, %n: index) -> tensor<?xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<?xf32>) {{
    {body}
    scf.yield {yielded} : tensor<?xf32>
  }}
  return %r : tensor<?xf32>
}}
"""


def _pad(result: str, source: str, index: str, low: int = 0, high: int = 1) -> str:
    """`result` = `source` padded with the value of `index` (as f32)."""
    return f"""{result}_i = arith.index_cast {index} : index to i32
    {result}_v = arith.sitofp {result}_i : i32 to f32
    {result} = tensor.pad {source} low[{low}] high[{high}] {{
    ^bb0(%q: index):
      tensor.yield {result}_v : f32
    }} : tensor<?xf32> to tensor<?xf32>"""


GROW_FOR = _for_function(
    """%k = arith.addi %i, %c1 : index
    %e = tensor.empty(%k) : tensor<?xf32>
    %z = arith.constant 4.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>""",
    "%f",
)

# appends i to the carried tensor: reads the old contents (tensor.pad), grows by one
APPEND_FOR = _for_function(_pad("%p", "%a", "%i"), "%p")

# drops the first element and doubles the rest (a slice of the carried buffer: shrinks)
SHRINK_FOR = _for_function(
    """%d = tensor.dim %a, %c0 : tensor<?xf32>
    %m = arith.subi %d, %c1 : index
    %s = tensor.extract_slice %a[1] [%m] [1] : tensor<?xf32> to tensor<?xf32>
    %t = linalg.add ins(%s, %s : tensor<?xf32>, tensor<?xf32>) outs(%s : tensor<?xf32>) -> tensor<?xf32>""",
    "%t",
)


def _append(x: np.ndarray, n: int) -> np.ndarray:
    return np.concatenate([x, np.arange(n, dtype=np.float32)])


def _shrink(x: np.ndarray, n: int) -> np.ndarray:
    for _ in range(n):
        x = x[1:] * 2
    return x


def _check_ownership(module: ModuleOp) -> int:
    """Every buffer allocated in a block (or carried into a loop's region) is freed exactly
    once in it, yielded to the next iteration / out of the loop, or returned; never both.
    Returns the number of memref-carried loop positions seen."""
    carried = 0

    def check(block: Block, owned: list[SSAValue]) -> None:
        nonlocal carried
        live = list(owned)
        for op in block.ops:
            if isinstance(op, memref.AllocOp):
                live.append(op.memref)
            elif isinstance(op, memref.DeallocOp):
                assert op.memref in live, f"{op.memref} freed twice or not owned here"
                live.remove(op.memref)
            elif isinstance(op, scf.ForOp):
                inits = [v for v in op.iter_args if isinstance(v.type, MemRefType)]
                for init in inits:  # the loop takes its init over
                    assert init in live, f"{init} carried by a loop without being owned"
                    live.remove(init)
                args = [a for a in op.body.block.args[1:] if isinstance(a.type, MemRefType)]
                carried += len(args)
                check(op.body.block, args)
                live += [r for r in op.results if isinstance(r.type, MemRefType)]
            elif isinstance(op, scf.WhileOp):
                for init in (v for v in op.arguments if isinstance(v.type, MemRefType)):
                    assert init in live, f"{init} carried by a loop without being owned"
                    live.remove(init)
                for region in (op.before_region, op.after_region):
                    args = [a for a in region.block.args if isinstance(a.type, MemRefType)]
                    carried += len(args)
                    check(region.block, args)
                live += [r for r in op.results if isinstance(r.type, MemRefType)]
            elif isinstance(op, scf.YieldOp | scf.ConditionOp | func.ReturnOp):
                for value in op.operands:  # (the condition's i1 is no memref)
                    if isinstance(value.type, MemRefType):
                        assert value in live, f"{value} passed on but not owned"
                        live.remove(value)
            else:  # scf.if: each branch passes on a buffer it owns, the result
                for region in op.regions:
                    for inner in region.blocks:
                        check(inner, [])
                if op.regions:
                    live += [r for r in op.results if isinstance(r.type, MemRefType)]
        assert not live, f"not freed: {live}"

    for fn in module.ops:
        if isinstance(fn, func.FuncOp):
            check(fn.body.block, [])  # owns none of its arguments: freeing one fails
            # every tensor result became a buffer the function allocated and hands over
            # (check() saw each one passed on by the return)
            returned = [v for v in fn.body.block.last_op.operands if isinstance(v.type, MemRefType)]
            results = fn.function_type.outputs.data
            assert not any(isinstance(t, TensorType) for t in results), fn.function_type
            assert returned
            assert len(returned) == sum(isinstance(t, MemRefType) for t in results)
    return carried


@pytest.mark.parametrize("n", [0, 1, 4])
def test_for_growing_by_new_tensors(n: int) -> None:
    x = np.arange(5, dtype=np.float32)
    got = xlinalg.compile(GROW_FOR, entry="f")(x, n)
    np.testing.assert_array_equal(got, x if n == 0 else np.full(n, 4.0, np.float32))
    np.testing.assert_array_equal(x, np.arange(5, dtype=np.float32))  # argument untouched


@pytest.mark.parametrize("n", [0, 1, 5])
def test_for_appending_with_pad(n: int) -> None:
    x = np.array([7, 8], dtype=np.float32)
    got = xlinalg.compile(APPEND_FOR, entry="f")(x, n)
    np.testing.assert_array_equal(got, _append(x, n))


@pytest.mark.parametrize("n", [0, 1, 3, 6])
def test_for_shrinking_to_a_slice(n: int) -> None:
    x = np.linspace(1, 6, 6).astype(np.float32)
    got = xlinalg.compile(SHRINK_FOR, entry="f")(x.copy(), n)
    np.testing.assert_array_equal(got, _shrink(x, n))


def test_for_ownership_in_the_ir() -> None:
    for text in (GROW_FOR, APPEND_FOR, SHRINK_FOR):
        module = bufferize(text)
        assert _check_ownership(module) == 1
        loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
        deallocs = [op for op in loop.body.block.ops if isinstance(op, memref.DeallocOp)]
        # the carried buffer of the iteration before and nothing else is freed in the body
        # (GROW_FOR's and APPEND_FOR's new buffers are passed on, not copied)
        assert [d.memref for d in deallocs][:1] == [loop.body.block.args[1]]


def test_for_in_place_loops_keep_one_buffer() -> None:
    """A carried tensor computed in place (same sizes) still lives in one buffer: no memref
    iter_args, no allocation in the loop (the IR the in-place path always produced)."""
    in_place = GROW_FOR.replace("outs(%e : tensor<?xf32>)", "outs(%a : tensor<?xf32>)").replace(
        "%e = tensor.empty(%k) : tensor<?xf32>", ""
    )
    module = bufferize(in_place)
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    assert not loop.iter_args
    assert not any(isinstance(op, memref.AllocOp | memref.DeallocOp) for op in loop.walk())
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(xlinalg.compile(in_place, entry="f")(x, 2), np.full(5, 4.0))


NESTED_FOR = (
    """
func.func @f(%x: tensor<?xf32>, %n: index, %m: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<?xf32>) {
    %in = scf.for %j = %c0 to %m step %c1 iter_args(%b = %a) -> (tensor<?xf32>) {
      %ij = arith.addi %i, %j : index
    """
    + _pad("%p", "%b", "%ij")
    + """
      scf.yield %p : tensor<?xf32>
    }
    %d = linalg.add ins(%in, %in : tensor<?xf32>, tensor<?xf32>) outs(%in : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %d : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
"""
)


@pytest.mark.parametrize(("n", "m"), [(0, 2), (2, 0), (3, 2)])
def test_nested_for_loops(n: int, m: int) -> None:
    x = np.array([1, 2], dtype=np.float32)
    expected = x.copy()
    for i in range(n):
        expected = np.concatenate([expected, np.arange(i, i + m, dtype=np.float32)]) * 2
    got = xlinalg.compile(NESTED_FOR, entry="f")(x, n, m)
    np.testing.assert_array_equal(got, expected)
    module = bufferize(NESTED_FOR)
    assert _check_ownership(module) == 2
    outer = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    # the inner loop takes the outer iteration's buffer over and its result is passed on:
    # no copy in the outer body
    assert not any(isinstance(op, memref.CopyOp) for op in outer.body.block.ops)


READ_AFTER = (
    """
func.func @f(%x: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<?xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<?xf32>) {
    """
    + _pad("%p", "%a", "%i")
    + """
    scf.yield %p : tensor<?xf32>
  }
  %d = tensor.dim %r, %c0 : tensor<?xf32>
  %e = tensor.empty(%d) : tensor<?xf32>
  %s = linalg.add ins(%r, %r : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %l = arith.subi %d, %c1 : index
  %last = tensor.extract %r[%l] : tensor<?xf32>
  return %r, %s, %last : tensor<?xf32>, tensor<?xf32>, f32
}
"""
)


@pytest.mark.parametrize("n", [0, 3])
def test_resized_tensor_read_after_the_loop_and_returned(n: int) -> None:
    x = np.array([5, 6], dtype=np.float32)
    r, s, last = xlinalg.compile(READ_AFTER, entry="f")(x, n)
    expected = _append(x, n)
    np.testing.assert_array_equal(r, expected)
    np.testing.assert_array_equal(s, expected * 2)
    assert float(last) == expected[-1]
    _check_ownership(bufferize(READ_AFTER))


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def test_repeated_calls_do_not_grow_the_process() -> None:
    """Each call grows a tensor to 24 x 4096 floats through 24 buffers (~1.2 MB freed per
    call): leaking them would grow the process by ~240 MB over 200 calls."""
    big = GROW_FOR.replace(
        "%k = arith.addi %i, %c1 : index",
        "%k0 = arith.addi %i, %c1 : index\n"
        "    %c4096 = arith.constant 4096 : index\n"
        "    %k = arith.muli %k0, %c4096 : index",
    )
    kernel = xlinalg.compile(big, entry="f")
    x = np.ones(3, np.float32)
    for _ in range(20):  # warm up the allocator
        kernel(x, 24)
    before = _rss_bytes()
    for _ in range(200):
        got = kernel(x, 24)
    assert got.shape == (24 * 4096,)
    assert _rss_bytes() - before < 48 << 20


# the before region drops the first element while it is larger than the after region's
# count; the after region appends the count (scf.condition and scf.yield both resize)
WHILE_BOTH = (
    """
func.func @f(%x: tensor<?xf32>, %n: index) -> (tensor<?xf32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%a = %x, %i = %c0) : (tensor<?xf32>, index) -> (tensor<?xf32>, index) {
    %go = arith.cmpi slt, %i, %n : index
    %d = tensor.dim %a, %c0 : tensor<?xf32>
    %m = arith.subi %d, %c1 : index
    %s = tensor.extract_slice %a[1] [%m] [1] : tensor<?xf32> to tensor<?xf32>
    scf.condition(%go) %s, %i : tensor<?xf32>, index
  } do {
  ^bb0(%b: tensor<?xf32>, %j: index):
    %k = arith.addi %j, %c1 : index
    """
    + _pad("%p", "%b", "%k", high=2)
    + """
    scf.yield %p, %k : tensor<?xf32>, index
  }
  return %r#0, %r#1 : tensor<?xf32>, index
}
"""
)


def _while_both(x: np.ndarray, n: int) -> np.ndarray:
    i = 0
    while True:
        x = x[1:]
        if not i < n:
            return x
        i += 1
        x = np.concatenate([x, np.full(2, i, np.float32)])


@pytest.mark.parametrize("n", [0, 1, 4])
def test_while_resized_by_condition_and_yield(n: int) -> None:
    x = np.array([9, 8, 7], dtype=np.float32)
    got, count = xlinalg.compile(WHILE_BOTH, entry="f")(x, n)
    np.testing.assert_array_equal(got, _while_both(x, n))
    assert int(count) == n
    assert _check_ownership(bufferize(WHILE_BOTH)) == 2


# two dynamically shaped tensors swapped by the condition every iteration, one doubled
SWAP_DYNAMIC = """
func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:3 = scf.while (%a = %x, %b = %y, %i = %c0) : (tensor<?xf32>, tensor<?xf32>, index) -> (tensor<?xf32>, tensor<?xf32>, index) {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %b, %a, %i : tensor<?xf32>, tensor<?xf32>, index
  } do {
  ^bb0(%p: tensor<?xf32>, %q: tensor<?xf32>, %j: index):
    %d = linalg.add ins(%p, %p : tensor<?xf32>, tensor<?xf32>) outs(%p : tensor<?xf32>) -> tensor<?xf32>
    %k = arith.addi %j, %c1 : index
    scf.yield %d, %q, %k : tensor<?xf32>, tensor<?xf32>, index
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xf32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_while_swapping_tensors_of_different_sizes(n: int) -> None:
    x = np.arange(3, dtype=np.float32) + 1
    y = np.arange(5, dtype=np.float32) + 10
    a, b = x.copy(), y.copy()
    for _ in range(n):
        a, b = b + b, a
    got = xlinalg.compile(SWAP_DYNAMIC, entry="f")(x, y, n)
    np.testing.assert_array_equal(got[0], b)
    np.testing.assert_array_equal(got[1], a)
    np.testing.assert_array_equal(x, np.arange(3, dtype=np.float32) + 1)  # arguments untouched
    np.testing.assert_array_equal(y, np.arange(5, dtype=np.float32) + 10)
    _check_ownership(bufferize(SWAP_DYNAMIC))


# an scf.for growing a tensor inside an scf.while that shrinks it
NESTED_WHILE = (
    """
func.func @f(%x: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.while (%a = %x, %i = %c0) : (tensor<?xf32>, index) -> (tensor<?xf32>, index) {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %a, %i : tensor<?xf32>, index
  } do {
  ^bb0(%b: tensor<?xf32>, %j: index):
    %g = scf.for %t = %c0 to %c3 step %c1 iter_args(%c = %b) -> (tensor<?xf32>) {
    """
    + _pad("%p", "%c", "%t", low=1, high=0)
    + """
      scf.yield %p : tensor<?xf32>
    }
    %d = tensor.dim %g, %c0 : tensor<?xf32>
    %m = arith.subi %d, %c1 : index
    %s = tensor.extract_slice %g[0] [%m] [1] : tensor<?xf32> to tensor<?xf32>
    %k = arith.addi %j, %c1 : index
    scf.yield %s, %k : tensor<?xf32>, index
  }
  return %r#0 : tensor<?xf32>
}
"""
)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_for_nested_in_while(n: int) -> None:
    x = np.array([1, 2], dtype=np.float32)
    expected = x.copy()
    for _ in range(n):
        for t in range(3):
            expected = np.concatenate([[np.float32(t)], expected])
        expected = expected[:-1]
    got = xlinalg.compile(NESTED_WHILE, entry="f")(x, n)
    np.testing.assert_array_equal(got, expected)
    assert _check_ownership(bufferize(NESTED_WHILE)) == 3


def test_while_in_place_loops_keep_one_buffer() -> None:
    """The condition forwards the carried tensor and the after region computes in place
    into it: one buffer (no memref carried, no allocation in the loop) as before."""
    text = SWAP_DYNAMIC.replace("scf.condition(%go) %b, %a, %i", "scf.condition(%go) %a, %b, %i")
    module = bufferize(text)
    loop = next(op for op in module.walk() if isinstance(op, scf.WhileOp))
    assert not any(isinstance(a.type, MemRefType) for a in loop.before_region.block.args)
    assert not any(isinstance(op, memref.AllocOp | memref.DeallocOp) for op in loop.walk())
    x, y = np.arange(3, dtype=np.float32), np.arange(4, dtype=np.float32)
    got = xlinalg.compile(text, entry="f")(x, y, 3)
    np.testing.assert_array_equal(got[0], x * 8)
    np.testing.assert_array_equal(got[1], y)


# the condition forwards the growing tensor twice; position 1 has another type before
# (tensor<4xf32>) than after, and the sizes of a position that changes
FORWARDED_TWICE = """
func.func @f(%x: tensor<?xf32>, %y: tensor<4xf32>, %n: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:3 = scf.while (%a = %x, %b = %y, %i = %c0) : (tensor<?xf32>, tensor<4xf32>, index) -> (tensor<?xf32>, tensor<?xf32>, index) {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %a, %a, %i : tensor<?xf32>, tensor<?xf32>, index
  } do {
  ^bb0(%p: tensor<?xf32>, %q: tensor<?xf32>, %j: index):
    %k = arith.addi %j, %c1 : index
    %kk = arith.index_cast %k : index to i32
    %v = arith.sitofp %kk : i32 to f32
    %e = tensor.empty(%k) : tensor<?xf32>
    %f = linalg.fill ins(%v : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %f, %y, %k : tensor<?xf32>, tensor<4xf32>, index
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xf32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 3])
def test_while_forwarding_a_changing_tensor_at_another_type(n: int) -> None:
    x = np.arange(2, dtype=np.float32)
    got = xlinalg.compile(FORWARDED_TWICE, entry="f")(x, np.ones(4, np.float32), n)
    expected = x if n == 0 else np.full(n, n, np.float32)
    np.testing.assert_array_equal(got[0], expected)
    np.testing.assert_array_equal(got[1], expected)
    assert _check_ownership(bufferize(FORWARDED_TWICE)) == 4


# one new tensor yielded at two positions (passed on once, copied once); an scf.if result
# (a constant or an argument, by parity) passed on as it is
TWICE_AND_IF = """
func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %cc = tensor.cast %cst : tensor<3xf32> to tensor<?xf32>
  %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x, %b = %x, %c = %y) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
    %k = arith.addi %i, %c1 : index
    %e = tensor.empty(%k) : tensor<?xf32>
    %z = arith.constant 4.0 : f32
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %odd = arith.remui %i, %c2 : index
    %is_odd = arith.cmpi ne, %odd, %c0 : index
    %g = scf.if %is_odd -> (tensor<?xf32>) {
      scf.yield %cc : tensor<?xf32>
    } else {
      scf.yield %y : tensor<?xf32>
    }
    scf.yield %f, %f, %g : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_for_yielding_a_tensor_twice_and_if_results(n: int) -> None:
    x = np.arange(2, dtype=np.float32)
    y = np.arange(5, dtype=np.float32) + 10
    got = xlinalg.compile(TWICE_AND_IF, entry="f")(x, y, n)
    grown = x if n == 0 else np.full(n, 4.0, np.float32)
    np.testing.assert_array_equal(got[0], grown)
    np.testing.assert_array_equal(got[1], grown)
    last = y if n == 0 or (n - 1) % 2 == 0 else np.array([1, 2, 3], np.float32)
    np.testing.assert_array_equal(got[2], last)
    module = bufferize(TWICE_AND_IF)
    assert _check_ownership(module) == 3
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    assert sum(isinstance(op, memref.CopyOp) for op in loop.body.block.ops) == 1  # %f's second


# the init is a tensor computed before the loop (its buffer owned by the function's block)
COMPUTED_INIT = (
    """
func.func @f(%x: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%d) : tensor<?xf32>
  %init = linalg.add ins(%x, %x : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (tensor<?xf32>) {
    """
    + _pad("%p", "%a", "%i")
    + """
    scf.yield %p : tensor<?xf32>
  }
  return %r, %x : tensor<?xf32>, tensor<?xf32>
}
"""
)


@pytest.mark.parametrize("read_after", [False, True])
@pytest.mark.parametrize("n", [0, 2])
def test_for_takes_over_an_init_buffer_nothing_uses_later(n: int, read_after: bool) -> None:
    """The loop starts with the init's own buffer (no copy) unless the init is used later."""
    text = (
        COMPUTED_INIT.replace("return %r, %x", "return %r, %init") if read_after else COMPUTED_INIT
    )
    x = np.array([1, 2, 3], dtype=np.float32)
    got = xlinalg.compile(text, entry="f")(x, n)
    np.testing.assert_array_equal(got[0], _append(x * 2, n))
    np.testing.assert_array_equal(got[1], x * 2 if read_after else x)
    module = bufferize(text)
    _check_ownership(module)
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    add = next(op for op in fn.body.block.ops if op.name == "linalg.add")
    loop = next(op for op in fn.body.block.ops if isinstance(op, scf.ForOp))
    assert (loop.iter_args[0] is add.operands[-1]) is not read_after


def test_for_init_also_carried_in_place_at_another_position() -> None:
    """Position 1 carries the init's buffer in place: position 0 must not take it over
    (its first iteration would free the buffer position 1 still computes in; the uses of
    position 1's tensor in the loop, and the loop's second use of the init, both say so)."""
    text = (
        COMPUTED_INIT.replace(
            "-> (tensor<?xf32>, tensor<?xf32>) {",
            "-> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {",
        )
        .replace(
            "%r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (tensor<?xf32>) {",
            "%r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init, %b = %init) -> (tensor<?xf32>, tensor<?xf32>) {\n"
            "    %b2 = linalg.add ins(%b, %b : tensor<?xf32>, tensor<?xf32>) outs(%b : tensor<?xf32>) -> tensor<?xf32>",
        )
        .replace("scf.yield %p : tensor<?xf32>", "scf.yield %p, %b2 : tensor<?xf32>, tensor<?xf32>")
        .replace(
            "return %r, %x : tensor<?xf32>, tensor<?xf32>",
            "return %r#0, %r#1, %x : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>",
        )
    )
    assert "%b2 : tensor" in text
    assert "return %r#0, %r#1, %x" in text
    x = np.array([1, 2, 3], dtype=np.float32)
    for n in (0, 1, 3):
        got = xlinalg.compile(text, entry="f")(x, n)
        np.testing.assert_array_equal(got[0], _append(x * 2, n))
        np.testing.assert_array_equal(got[1], x * 2 * 2**n)
    _check_ownership(bufferize(text))


# the before region grows the tensor with an scf.for (its result forwarded as it is)
FOR_IN_BEFORE = (
    """
func.func @f(%x: tensor<?xf32>, %n: index) -> (tensor<?xf32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%a = %x, %i = %c0) : (tensor<?xf32>, index) -> (tensor<?xf32>, index) {
    %g = scf.for %t = %c0 to %i step %c1 iter_args(%c = %a) -> (tensor<?xf32>) {
    """
    + _pad("%p", "%c", "%t")
    + """
      scf.yield %p : tensor<?xf32>
    }
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %g, %i : tensor<?xf32>, index
  } do {
  ^bb0(%b: tensor<?xf32>, %j: index):
    %k = arith.addi %j, %c1 : index
    scf.yield %b, %k : tensor<?xf32>, index
  }
  return %r#0, %r#1 : tensor<?xf32>, index
}
"""
)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_for_nested_in_the_before_region(n: int) -> None:
    x = np.array([7], dtype=np.float32)
    expected = x
    for i in range(n + 1):  # the before region runs n + 1 times, with i = 0 .. n
        expected = np.concatenate([expected, np.arange(i, dtype=np.float32)])
    got, count = xlinalg.compile(FOR_IN_BEFORE, entry="f")(x, n)
    np.testing.assert_array_equal(got, expected)
    assert int(count) == n
    module = bufferize(FOR_IN_BEFORE)
    assert _check_ownership(module) == 3
    assert not any(
        isinstance(op, memref.CopyOp)
        for op in module.walk()
        if op.parent_op() is not None and isinstance(op.parent_op(), scf.WhileOp)
    )
