"""Loop transform ops: get_parent_for, coalesce, outline, peel, pipeline, unroll;
affine.simplify_bounded_affine_ops; memref.multibuffer. Effects are checked on the
IR and, where computation is rewritten, by running the kernel against the
untransformed one."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import scf

import xlinalg
from xlinalg.interpreter import parse_module
from xlinalg.transforms.affine import simplify_bounds
from xlinalg.transforms.scf.software_pipeline import schedule_loop

from support import needs_iree, run_iree_opt
from support.transform import LOOP, MATMUL, MATMUL_SHAPES, apply, fails, same_results, schedule

TESTED_OPS = [
    "transform.loop.get_parent_for",
    "transform.loop.coalesce",
    "transform.loop.outline",
    "transform.loop.peel",
    "transform.loop.pipeline",
    "transform.loop.unroll",
    "transform.affine.simplify_bounded_affine_ops",
    "transform.memref.multibuffer",
]


TILE = (
    '    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op\n'
    "    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [8, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)\n"
)

MATCH_FOR = '    %for = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op\n'


# ------------------------------------------------------------------ syntax


ALL_LOOP = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.consumed}) {
    %0 = transform.structured.match ops{["scf.for"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %f = transform.cast %0 : !transform.any_op to !transform.op<"scf.for">
    %p1, %p2 = transform.loop.peel %f peel_front = true fail_if_already_divisible = true : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    %pp = transform.cast %p1 : !transform.any_op to !transform.op<"scf.for">
    %pl = transform.loop.pipeline %pp iteration_interval = 2 : (!transform.op<"scf.for">) -> !transform.any_op
    %c = transform.loop.coalesce %pl : (!transform.any_op) -> !transform.any_op
    %fn, %call = transform.loop.outline %c func_name = "foo" : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %m = transform.structured.match ops{["affine.min"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %b = transform.structured.match ops{["arith.addi"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    transform.affine.simplify_bounded_affine_ops %m with [%b : !transform.any_op] within [0] and [5] : !transform.any_op
    %a = transform.structured.match ops{["memref.alloc"]} in %arg0 : (!transform.any_op) -> !transform.op<"memref.alloc">
    %mb = transform.memref.multibuffer %a <factor = 2, skip_analysis> : (!transform.op<"memref.alloc">) -> !transform.any_op
    transform.loop.unroll %p2 factor = 4 : !transform.any_op
    transform.yield
  }
}
"""


def test_loop_ops_round_trip() -> None:
    text = str(parse_module(ALL_LOOP))
    assert str(parse_module(text)) == text
    assert "transform.loop.peel %f peel_front = true fail_if_already_divisible = true" in text
    assert "transform.loop.pipeline %pp iteration_interval = 2 :" in text
    assert "transform.memref.multibuffer %a <factor = 2, skip_analysis>" in text
    assert "with[%b : !transform.any_op] within [0] and [5]" in text


@needs_iree
def test_loop_ops_parse_in_iree_opt(tmp_path) -> None:
    path = tmp_path / "loop.mlir"
    path.write_text(str(parse_module(ALL_LOOP)).replace("builtin.module", "module", 1))
    proc = run_iree_opt(path)
    assert proc.returncode == 0, proc.stderr


def test_spec_era_forms_parse() -> None:
    text = str(
        parse_module(
            schedule(
                MATCH_FOR
                + "    %p = transform.loop.get_parent_for %for {num_loops = 1} : (!transform.any_op) -> !transform.any_op\n"
                + "    %m = transform.loop.peel %p {fail_if_already_divisible = false} : (!transform.any_op) -> !transform.any_op\n"
            )
        )
    )
    assert "transform.loop.peel %p : (!transform.any_op) -> !transform.any_op" in text


# ------------------------------------------------------------------ get_parent_for


NEST = """
func.func @f(%a: memref<4x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c6 step %c2 {
      %x = memref.load %a[%i, %j] : memref<4x6xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %a[%i, %j] : memref<4x6xf32>
    }
  }
  func.return
}
"""
MATCH_ADD = '    %add = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op\n'


def test_get_parent_for_counts_loops_and_fails_when_too_few() -> None:
    fails(
        NEST,
        MATCH_ADD
        + "    %p = transform.loop.get_parent_for %add {num_loops = 3} : (!transform.any_op) -> !transform.any_op\n",
        silenceable=True,
        match="could not find the 3-th enclosing 'scf.for'",
    )
    fails(
        NEST,
        MATCH_ADD
        + "    %p = transform.loop.get_parent_for %add {affine = true} : (!transform.any_op) -> !transform.any_op\n",
        silenceable=True,
        match="enclosing 'affine.for'",
    )


# ------------------------------------------------------------------ peel


def test_peel_splits_off_the_partial_tile_and_folds_its_size() -> None:
    body = (
        TILE
        + "    %main, %rest = transform.loop.peel %l#0 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
        + '    transform.annotate %main "main" : !transform.any_op\n'
        + '    transform.annotate %rest "rest" : !transform.any_op\n'
    )
    same_results(MATMUL, body, MATMUL_SHAPES)


DYNAMIC_LOOP = """
func.func @f(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %n step %c3 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i] : memref<?xf32>
  }
  func.return
}
"""


def test_peel_front_and_dynamic_bounds() -> None:
    kernel_text = DYNAMIC_LOOP
    k = xlinalg.compile(
        kernel_text,
        schedule=schedule(
            MATCH_FOR
            + "    %a, %b = transform.loop.peel %for : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
        ),
    )
    data = np.arange(11, dtype=np.float32)
    k(data, 11)
    expected = np.arange(11, dtype=np.float32)
    expected[::3] *= 2
    np.testing.assert_array_equal(data, expected)


def test_peel_walks_each_loop_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The min/max folding after a peel walks each of the two loops once, static or dynamic."""
    roots: list[str] = []

    def counting_walk(root, *args, **kwargs):
        roots.append(root.name)
        return walk_ops(root, *args, **kwargs)

    walk_ops = simplify_bounds.walk_ops
    monkeypatch.setattr(simplify_bounds, "walk_ops", counting_walk)
    peel = "    %main, %rest = transform.loop.peel %l#0 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
    apply(MATMUL, TILE + peel)
    assert roots == ["scf.for", "scf.for"]
    roots.clear()
    apply(DYNAMIC_LOOP, MATCH_FOR + peel.replace("%l#0", "%for"))
    assert roots == ["scf.for", "scf.for"]


def test_peel_return_modes() -> None:
    fails(
        LOOP,
        MATCH_FOR
        + "    %a, %b = transform.loop.peel %for fail_if_already_divisible = true : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n",
        silenceable=True,
        match="nothing to peel: the step already divides the range",
    )
    fails(
        LOOP,
        MATCH_FOR
        + "    %a, %b = transform.loop.peel %for : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
        + '    transform.annotate %for "x" : !transform.any_op\n',
        silenceable=False,
        match="consumed by 'transform.loop.peel'",
    )


# ------------------------------------------------------------------ coalesce


def test_coalesce_perfect_nest() -> None:
    body = (
        '    %l = transform.structured.match ops{["scf.for"]} attributes{outer} in %root : (!transform.any_op) -> !transform.any_op\n'
        "    %c = transform.loop.coalesce %l : (!transform.any_op) -> !transform.any_op\n"
        + '    transform.annotate %c "coalesced" : !transform.any_op\n'
    )
    payload = NEST.replace(
        "scf.for %i = %c0 to %c4 step %c1 {", "scf.for %i = %c0 to %c4 step %c1 {", 1
    ).replace("    }\n  }\n  func.return", "    }\n  } {outer}\n  func.return")
    same_results(payload, body, [(4, 6)])


def test_coalesce_returns_a_single_loop_unchanged_and_consumes() -> None:
    fails(
        LOOP,
        MATCH_FOR
        + "    %c = transform.loop.coalesce %for : (!transform.any_op) -> !transform.any_op\n"
        + '    transform.annotate %for "x" : !transform.any_op\n',
        silenceable=False,
        match="consumed by 'transform.loop.coalesce'",
    )


# ------------------------------------------------------------------ outline


def test_outline_moves_the_loop_into_a_function() -> None:
    body = (
        MATCH_FOR
        + '    %fn, %call = transform.loop.outline %for func_name = "f" : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n'
        + '    transform.annotate %call "call" : !transform.any_op\n'
    )
    same_results(LOOP, body, [(10,), (10,)])


def test_outline_needs_loops() -> None:
    fails(
        LOOP,
        '    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        '    %fn, %call = transform.loop.outline %f func_name = "g" : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n',
        silenceable=False,
        match="expected loops",
    )


# ------------------------------------------------------------------ pipeline


def test_pipeline_prefetches_loads_and_keeps_results() -> None:
    body = (
        MATCH_FOR
        + '    %f = transform.cast %for : !transform.any_op to !transform.op<"scf.for">\n'
        + '    %p = transform.loop.pipeline %f read_latency = 3 : (!transform.op<"scf.for">) -> !transform.any_op\n'
        + '    transform.annotate %p "kernel" : !transform.any_op\n'
    )
    same_results(LOOP, body, [(10,), (10,)])


def test_pipeline_iteration_interval_changes_the_stages() -> None:
    module = parse_module(LOOP)
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    assert sorted(schedule_loop(loop, 1, 3).stage.values()) == [0, 3, 4, 5]
    assert sorted(schedule_loop(loop, 2, 3).stage.values()) == [0, 1, 2, 2]
    body = (
        MATCH_FOR
        + "    %p = transform.loop.pipeline %for iteration_interval = 2 read_latency = 3 : (!transform.any_op) -> !transform.any_op\n"
    )
    same_results(LOOP, body, [(10,), (10,)])


def test_pipeline_fails_silenceably_on_dynamic_or_short_loops() -> None:
    short = LOOP.replace("%c10 = arith.constant 10", "%c10 = arith.constant 3")
    fails(
        short,
        MATCH_FOR
        + "    %p = transform.loop.pipeline %for : (!transform.any_op) -> !transform.any_op\n",
        silenceable=True,
        match="the loop runs 3 iterations",
    )
    single_stage = LOOP.replace(
        "%y = arith.mulf %x, %x : f32\n    %z = arith.addf %y, %x : f32\n", ""
    ).replace("memref.store %z", "memref.store %x")
    fails(
        single_stage,
        MATCH_FOR
        + "    %p = transform.loop.pipeline %for read_latency = 0 : (!transform.any_op) -> !transform.any_op\n",
        silenceable=True,
        match="single stage",
    )


# ------------------------------------------------------------------ unroll


def test_unroll_consumes_and_fails_on_non_loops() -> None:
    body = MATCH_FOR + "    transform.loop.unroll %for factor = 4 : !transform.any_op\n"
    same_results(LOOP, body, [(10,), (10,)])
    fails(
        LOOP,
        '    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        "    transform.loop.unroll %f factor = 2 : !transform.any_op\n",
        silenceable=True,
        match="expected scf.for loops",
    )


# ------------------------------------------------------------------ simplify_bounded_affine_ops


BOUNDED = """
func.func @f(%a: memref<8xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = arith.addi %n, %c1 : index
  %m = affine.min affine_map<(d0) -> (d0 + 4, 8)> (%b)
  %k = affine.min affine_map<(d0) -> (d0, 3)> (%b)
  memref.store %m, %a[%c0] : memref<8xindex>
  memref.store %k, %a[%c1] : memref<8xindex>
  func.return
}
"""
MATCH_BOUNDED = (
    '    %min = transform.structured.match ops{["affine.min"]} in %root : (!transform.any_op) -> !transform.any_op\n'
    '    %b = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op\n'
)


def test_simplify_bounded_leaves_undecidable_mins_and_checks_operands() -> None:
    fails(
        BOUNDED,
        MATCH_BOUNDED
        + "    transform.affine.simplify_bounded_affine_ops %b with [%b : !transform.any_op] within [0] and [5] : !transform.any_op\n",
        silenceable=False,
        match="target must be affine.min or affine.max",
    )
    with pytest.raises(Exception, match="lower bound 6 is greater than upper bound 5"):
        parse_module(
            schedule(
                MATCH_BOUNDED
                + "    transform.affine.simplify_bounded_affine_ops %min with [%b : !transform.any_op] within [6] and [5] : !transform.any_op\n"
            )
        ).verify()


# ------------------------------------------------------------------ multibuffer


MB = """
func.func @f(%in: memref<6x4xf32>, %out: memref<6x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %buf = memref.alloc() : memref<1x4xf32>
  scf.for %i = %c0 to %c6 step %c1 {
    %src = memref.subview %in[%i, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<1x4xf32, strided<[4, 1], offset: ?>>
    linalg.copy ins(%src : memref<1x4xf32, strided<[4, 1], offset: ?>>) outs(%buf : memref<1x4xf32>)
    %dst = memref.subview %out[%i, 0] [1, 4] [1, 1] : memref<6x4xf32> to memref<1x4xf32, strided<[4, 1], offset: ?>>
    linalg.add ins(%buf, %buf : memref<1x4xf32>, memref<1x4xf32>) outs(%dst : memref<1x4xf32, strided<[4, 1], offset: ?>>)
  }
  memref.dealloc %buf : memref<1x4xf32>
  func.return
}
"""
MATCH_ALLOC = '    %a = transform.structured.match ops{["memref.alloc"]} in %root : (!transform.any_op) -> !transform.any_op\n'


def test_multibuffer_cycles_buffers_per_iteration() -> None:
    body = (
        MATCH_ALLOC
        + "    %m = transform.memref.multibuffer %a <factor = 2> : (!transform.any_op) -> !transform.any_op\n"
        + '    transform.annotate %m "mb" : !transform.any_op\n'
    )
    same_results(MB, body, [(6, 4), (6, 4)])


def test_multibuffer_analysis_rejects_carried_data_unless_skipped() -> None:
    carried = MB.replace(
        "    linalg.copy ins(%src : memref<1x4xf32, strided<[4, 1], offset: ?>>) outs(%buf : memref<1x4xf32>)\n",
        "",
    ).replace(
        "    linalg.add ins(%buf, %buf",
        "    linalg.add ins(%buf, %buf",
    )
    fails(
        carried,
        MATCH_ALLOC
        + "    %m = transform.memref.multibuffer %a <factor = 2> : (!transform.any_op) -> !transform.any_op\n",
        silenceable=True,
        match="cannot prove that the buffer is overwritten",
    )
    fails(
        MB,
        '    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        "    %m = transform.memref.multibuffer %f <factor = 2> : (!transform.any_op) -> !transform.any_op\n",
        silenceable=False,
        match="expected memref.alloc ops",
    )


CONSUMING = {
    "transform.loop.pipeline": (
        LOOP,
        MATCH_FOR
        + "    %p = transform.loop.pipeline %for read_latency = 3 : (!transform.any_op) -> !transform.any_op\n",
    ),
    "transform.loop.outline": (
        LOOP,
        MATCH_FOR
        + '    %fn, %call = transform.loop.outline %for func_name = "g" : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n',
    ),
    "transform.loop.unroll": (
        LOOP,
        MATCH_FOR + "    transform.loop.unroll %for factor = 2 : !transform.any_op\n",
    ),
    "transform.memref.multibuffer": (
        MB,
        MATCH_ALLOC.replace("%a =", "%for =")
        + "    %m = transform.memref.multibuffer %for <factor = 2> : (!transform.any_op) -> !transform.any_op\n",
    ),
    "transform.affine.simplify_bounded_affine_ops": (
        BOUNDED,
        MATCH_BOUNDED.replace("%min =", "%for =")
        + "    transform.affine.simplify_bounded_affine_ops %for with [%b : !transform.any_op] within [0] and [3] : !transform.any_op\n",
    ),
}


@pytest.mark.parametrize("name", sorted(CONSUMING))
def test_consuming_loop_ops_report_a_later_use(name: str) -> None:
    payload, body = CONSUMING[name]
    apply(payload, body)
    fails(
        payload,
        body + '    transform.annotate %for "again" : !transform.any_op\n',
        silenceable=False,
        match=f"uses %for, a handle that was consumed by '{name}'",
    )
