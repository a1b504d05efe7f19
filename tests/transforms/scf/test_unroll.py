"""unroll_for (upstream `loopUnrollByFactor` for scf.for): structure and numerical equivalence."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects import affine, arith, func, memref, scf
from xdsl.dialects.builtin import ModuleOp

from xlinalg.errors import TransformFailure
from xlinalg.reference.function import run_function
from xlinalg.transforms.scf.canonicalize_loops import canonicalize_loops
from xlinalg.transforms.scf.unroll import static_trip_count, unroll_for
from xlinalg.transforms.tiling.tile_using_for import tile_using_for

from support import parse_module as parse
from support.tiling import (
    IOTA,
    MM_SHAPES,
    STATIC_MM,
    check_same_result,
    check_upstream_syntax,
    reparse,
    the_op,
)


def sum_loop(lb: str, ub: str, step: str) -> str:
    """A reduction over A[i] with two iter_args: a weighted sum and a swap pair."""
    return f"""
func.func @f(%A: memref<?xf32>, %O: memref<?xf32>, %n: index, %s: index, %init: f32) -> (f32, f32, f32) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %c12 = arith.constant 12 : index
  %c23 = arith.constant 23 : index
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %r:3 = scf.for %i = {lb} to {ub} step {step} iter_args(%acc = %init, %p = %one, %q = %half) -> (f32, f32, f32) {{
    %v = memref.load %A[%i] : memref<?xf32>
    %w = arith.mulf %acc, %half : f32
    %x = arith.addf %w, %v : f32
    memref.store %x, %O[%i] : memref<?xf32>
    scf.yield %x, %q, %p : f32, f32, f32
  }}
  return %r#0, %r#1, %r#2 : f32, f32, f32
}}
"""


def run(module: ModuleOp, n: int = 0, s: int = 1, size: int = 40) -> tuple[list[Any], np.ndarray]:
    a = np.random.default_rng(1).standard_normal(size).astype(np.float32)
    o = np.zeros(size, np.float32)
    results = run_function(module, "f", [a, o, n, s, np.float32(0.25)])
    return results, o


def check_equivalent(
    text: str, module: ModuleOp, cases: tuple[tuple[int, int], ...] = ((0, 1),)
) -> None:
    for n, s in cases:
        expected, expected_o = run(parse(text), n, s)
        got, got_o = run(reparse(module), n, s)
        assert [float(x) for x in got] == pytest.approx([float(x) for x in expected], rel=1e-6)
        np.testing.assert_allclose(got_o, expected_o, rtol=1e-6)


def loops(module: ModuleOp) -> list[scf.ForOp]:
    return [op for op in module.walk() if isinstance(op, scf.ForOp)]


def loads(op: Any) -> int:
    return sum(1 for o in op.walk() if isinstance(o, memref.LoadOp))


def test_divisible_static_trip_count_has_no_epilogue() -> None:
    text = sum_loop("%c0", "%c12", "%c1")
    module = parse(text)
    loop = the_op(module, scf.ForOp)
    unroll_for(loop, 4)
    module.verify()
    (main,) = loops(module)
    assert main is loop
    assert static_trip_count(main) == 3
    assert loads(main) == 4
    check_equivalent(text, module)
    check_upstream_syntax(module)


def test_non_divisible_static_gets_epilogue() -> None:
    text = sum_loop("%c0", "%c10", "%c1")
    module = parse(text)
    unroll_for(the_op(module, scf.ForOp), 4)
    module.verify()
    main, epilogue = loops(module)
    assert static_trip_count(main) == 2
    assert loads(main) == 4
    assert static_trip_count(epilogue) == 2
    assert loads(epilogue) == 1
    assert epilogue.lb is main.ub
    assert list(epilogue.iter_args) == list(main.res)
    check_equivalent(text, module)


def test_single_iteration_epilogue_is_promoted_and_lb_step_respected() -> None:
    text = sum_loop("%c2", "%c23", "%c3")  # i = 2, 5, ..., 20: 7 iterations
    module = parse(text)
    unroll_for(the_op(module, scf.ForOp), 2)
    module.verify()
    (main,) = loops(module)  # epilogue (i = 20) became straight-line code
    assert static_trip_count(main) == 3
    assert loads(main) == 2
    fn = the_op(module, func.FuncOp)
    assert loads(fn) == 3
    check_equivalent(text, module)


def test_full_unroll_replaces_loop_and_factor_is_clamped() -> None:
    text = sum_loop("%c0", "%c9", "%c1")
    for factor in (9, 64):
        module = parse(text)
        unroll_for(the_op(module, scf.ForOp), factor)
        module.verify()
        assert loops(module) == []
        assert loads(module) == 9
        check_equivalent(text, module)


def test_dynamic_bounds_and_step() -> None:
    text = sum_loop("%c1", "%n", "%c2")
    module = parse(text)
    unroll_for(the_op(module, scf.ForOp), 3)
    module.verify()
    main, epilogue = loops(module)
    assert loads(main) == 3
    assert loads(epilogue) == 1
    check_equivalent(text, module, tuple((n, 1) for n in (0, 1, 2, 5, 7, 8, 13, 31)))
    text = sum_loop("%c0", "%n", "%s")
    module = parse(text)
    unroll_for(the_op(module, scf.ForOp), 4)
    module.verify()
    assert len(loops(module)) == 2
    check_equivalent(text, module, tuple((n, s) for n in (0, 3, 17, 40) for s in (1, 2, 3, 5)))
    check_upstream_syntax(module)


def test_factor_one_is_noop_and_bad_factors_fail() -> None:
    text = sum_loop("%c0", "%c10", "%c1")
    module = parse(text)
    before = str(module)
    unroll_for(the_op(module, scf.ForOp), 1)
    assert str(module) == before
    for factor in (0, -2):
        with pytest.raises(TransformFailure) as info:
            unroll_for(the_op(module, scf.ForOp), factor)
        assert info.value.silenceable
    assert str(module) == before


def test_empty_trip_count_untouched() -> None:
    text = sum_loop("%c10", "%c2", "%c1")
    module = parse(text)
    before = str(module)
    unroll_for(the_op(module, scf.ForOp), 4)
    assert str(module) == before


def test_unroll_inner_loop_of_tiled_matmul() -> None:
    module = parse(STATIC_MM)
    result = tile_using_for(the_op(module), [8, 16, 5])
    inner = tile_using_for(result.tiled_op, [2, 4])
    unroll_for(inner.loops[-1], 2)  # trip count of the inner loop is dynamic (affine.min)
    unroll_for(result.loops[0], 2)  # 37 / 8: 5 iterations, not divisible
    module.verify()
    # inner: 2 copies in the main loop + 1 in the epilogue; outer (5 iterations by 2):
    # 2 copies of that in the main loop + 1 promoted epilogue iteration
    assert len([op for op in module.walk() if op.name == "linalg.generic"]) == 9
    check_same_result(parse(STATIC_MM), reparse(module), MM_SHAPES)


# ---------------------------------------------------------------------------
# canonicalize_loops: the clean-up of tiled / unrolled IR
# ---------------------------------------------------------------------------


def test_canonicalize_after_full_unroll_of_tiled_loop() -> None:
    text = (
        STATIC_MM.replace("37x23", "37x24")
        .replace("23x29", "24x29")
        .replace("memref<37x24xf32>, memref<23x29xf32>", "memref<37x24xf32>, memref<24x29xf32>")
    )
    module = parse(text)
    result = tile_using_for(the_op(module), [8, 16, 12])
    unroll_for(result.loops[-1], 2)  # k: 24 / 12 = 2 iterations, fully unrolled
    canonicalize_loops(module)
    module.verify()
    assert len(loops(module)) == 2
    assert not any(isinstance(op, arith.AddiOp) for op in module.walk())
    views = [op for op in module.walk() if isinstance(op, memref.SubviewOp)]
    # the unrolled copies address k = 0 and k = 12 with static offsets
    static_k = sorted(
        op.static_offsets.get_values()[1] for op in views if op.source.type.get_shape() == (37, 24)
    )
    assert static_k == [0, 12]
    check_same_result(parse(text), reparse(module), [(37, 24), (24, 29), (37, 29)])
    before = str(module)
    canonicalize_loops(module)
    assert str(module) == before  # idempotent


def test_canonicalize_promotes_single_iteration_and_folds_min() -> None:
    module = parse(STATIC_MM)
    result = tile_using_for(the_op(module), [8, 32, 5])  # j: one iteration of a 32-tile over 29
    assert len(result.loops) == 3
    canonicalize_loops(module)
    module.verify()
    assert len(loops(module)) == 2
    mins = [op for op in module.walk() if isinstance(op, affine.MinOp)]
    assert len(mins) == 2  # min(29 - 0, 32) folded to the constant 29
    check_same_result(parse(STATIC_MM), reparse(module), MM_SHAPES)


def test_canonicalize_erases_empty_loops_forwarding_inits() -> None:
    text = sum_loop("%c10", "%c2", "%c1")
    module = parse(text)
    canonicalize_loops(module)
    module.verify()
    assert loops(module) == []
    check_equivalent(text, module)
    text = sum_loop("%c2", "%c3", "%c1")  # one iteration: promoted
    module = parse(text)
    canonicalize_loops(module)
    assert loops(module) == []
    check_equivalent(text, module)


def test_unroll_tiled_generic_with_index_offsets() -> None:
    """The body's `affine.apply(index + iv)` of each unrolled copy sees that copy's iv."""
    module = parse(IOTA)
    result = tile_using_for(the_op(module), [4, 3])
    unroll_for(result.loops[1], 2)  # dynamic column count: main loop + epilogue loop
    module.verify()
    assert len(loops(module)) == 3
    check_same_result(parse(IOTA), reparse(module), [(11, 7), (11, 7)], name="iota", local=True)
