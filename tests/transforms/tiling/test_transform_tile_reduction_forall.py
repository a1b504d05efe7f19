"""`transform.structured.tile_reduction_using_forall` with `tile_sizes` (current
upstream: one forall iteration per tile, `num_threads` win when both are given) and
on memrefs (silenceable, as upstream): IR, results, the same schedule in iree-opt."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.dialects.scf import ForallOp

from support import IREE_OPT, needs_iree
from support.tiling import MATCH, SPEC_PAYLOAD
from support.transform import apply, fails, schedule, upstream

TESTED_OPS = ["transform.structured.tile_reduction_using_forall"]

ANY = "!transform.any_op"
STATIC = """
func.func @f(%a: tensor<6x37xf32>, %o: tensor<6xf32>) -> tensor<6xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<6x37xf32>) outs(%o : tensor<6xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}
"""
MEMREF = """
func.func @f(%a: memref<6x37xf32>, %o: memref<6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<6x37xf32>) outs(%o : memref<6xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}
"""


def script(by: str) -> str:
    return MATCH + (
        f"    %a, %b, %c, %d = transform.structured.tile_reduction_using_forall %0 by {by} "
        f": ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})\n"
    )


def _run(payload: str, body: str | None, a: np.ndarray, o: np.ndarray) -> np.ndarray:
    sched = schedule(body) if body is not None else None
    return xlinalg.compile(payload, schedule=sched, entry="f")(a, o.copy())


@pytest.mark.parametrize("payload", [STATIC, SPEC_PAYLOAD])
@pytest.mark.parametrize("sizes", ["[0, 5]", "[0, 1]", "[0, 37]", "[0, 64]"])
def test_tile_sizes_compute_the_row_sums(payload: str, sizes: str) -> None:
    rng = np.random.default_rng(len(sizes))
    a = rng.random((6, 37), dtype=np.float32)
    o = rng.random(6, dtype=np.float32)
    got = _run(payload, script(f"tile_sizes = {sizes}"), a, o)
    np.testing.assert_allclose(got, o + a.sum(axis=1), rtol=1e-5)


def test_num_threads_win_over_tile_sizes() -> None:
    both = str(apply(STATIC, script("num_threads = [0, 4] tile_sizes = [0, 5]")))
    threads_only = str(apply(STATIC, script("num_threads = [0, 4]")))
    assert both == threads_only


def test_return_modes() -> None:
    fails(STATIC, script("tile_sizes = [3, 0]"), silenceable=True, match="on a reduction loop")
    fails(STATIC, script("tile_sizes = [3, 5]"), silenceable=True, match="exactly one non-zero")
    fails(MEMREF, script("num_threads = [0, 4]"), silenceable=True, match="tensor")
    fails(MEMREF, script("tile_sizes = [0, 5]"), silenceable=True, match="tensor")


@needs_iree
@pytest.mark.parametrize("by", ["tile_sizes = [0, 5]", "num_threads = [0, 4] tile_sizes = [0, 5]"])
def test_same_as_upstream(by: str, tmp_path) -> None:
    """iree-opt parses our printed schedule; its forall has the same bounds and partial
    tensor as ours and its kernel computes the same row sums."""

    theirs_text = upstream(STATIC, script(by).replace("    ", ""), tmp_path)
    theirs = xlinalg.parse(theirs_text)
    ours = apply(STATIC, script(by))
    (t,) = [op for op in theirs.walk() if isinstance(op, ForallOp)]
    (o,) = [op for op in ours.walk() if isinstance(op, ForallOp)]
    # iree prints a normalized `in (4)` forall as lb 0 / step 1 too
    assert t.outputs[0].type == o.outputs[0].type
    assert (t.lower_bounds(), t.upper_bounds(), t.steps()) == (
        o.lower_bounds(),
        o.upper_bounds(),
        o.steps(),
    )
    rng = np.random.default_rng(9)
    a = rng.random((6, 37), dtype=np.float32)
    out = rng.random(6, dtype=np.float32)
    want = out + a.sum(axis=1)
    np.testing.assert_allclose(
        xlinalg.compile(theirs_text, entry="f")(a, out.copy()), want, rtol=1e-5
    )
    np.testing.assert_allclose(_run(STATIC, script(by), a, out), want, rtol=1e-5)


def _roles(body: str) -> dict[str, str]:
    """Which payload op each annotation landed on (`transform.annotate`)."""
    module = apply(STATIC, MATCH + body)
    roles: dict[str, str] = {}
    for op in module.walk():
        for name in ("h0", "h1", "h2", "h3"):
            if name in op.attributes:
                roles[name] = op.name
    return roles


ANNOTATE = "".join(f'    transform.annotate %h{i} "h{i}" : {ANY}\n' for i in range(4))
ROLES_UPSTREAM = {
    "h0": "linalg.fill",
    "h1": "linalg.generic",  # the split op, inside the forall
    "h2": "linalg.generic",  # the combining op
    "h3": "scf.forall",
}


def test_the_upstream_form_returns_upstreams_order() -> None:
    """With the trailing type (which upstream requires) the handles are fill, split,
    combining, forall — what IREE 3.13 returns."""
    body = (
        "    %h0, %h1, %h2, %h3 = transform.structured.tile_reduction_using_forall %0 "
        f"by num_threads = [0, 4] : ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})\n"
    ) + ANNOTATE
    assert _roles(body) == ROLES_UPSTREAM
    module = apply(STATIC, MATCH + body)
    (forall,) = [op for op in module.walk() if isinstance(op, ForallOp)]
    assert "h3" in forall.attributes
    split = next(op for op in forall.walk() if "h1" in op.attributes)
    assert split.name == "linalg.generic"
    combining = next(op for op in module.walk() if "h2" in op.attributes)
    assert combining.parent_op() is not forall
    assert combining.operands[0] is forall.results[0]


def test_the_spec_form_returns_the_spec_order() -> None:
    """Without a type (the spec's syntax, commas between clauses) the handles are
    forall, fill, split, combining."""
    body = (
        "    %h0, %h1, %h2, %h3 = transform.structured.tile_reduction_using_forall %0 "
        "by num_threads = [0, 4], tile_sizes = [], mapping = []\n"
    ) + ANNOTATE
    assert _roles(body) == {
        "h0": "scf.forall",
        "h1": "linalg.fill",
        "h2": "linalg.generic",
        "h3": "linalg.generic",
    }


@pytest.mark.parametrize(
    "form",
    [
        "by num_threads = [0, 4], tile_sizes = [], mapping = []",
        f"by num_threads = [0, 4] : ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})",
        f"by tile_sizes = [0, 4] mapping = [] : ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})",
    ],
)
def test_each_form_prints_as_itself(form: str) -> None:
    text = schedule(
        MATCH
        + f"    %h0, %h1, %h2, %h3 = transform.structured.tile_reduction_using_forall %0 {form}\n"
    )
    printed = str(xlinalg.parse(text))
    assert f"tile_reduction_using_forall %0 {form}\n" in printed
    assert str(xlinalg.parse(printed)) == printed


def test_wrong_handle_counts() -> None:
    three = (
        "    %h0, %h1, %h2 = transform.structured.tile_reduction_using_forall %0 "
        f"by num_threads = [0, 4] : ({ANY}) -> ({ANY}, {ANY}, {ANY})\n"
    )
    # upstream's fill group is variadic: 3 handles means no fill handle (a definite
    # failure at application, as upstream's "expected to produce N results")
    fails(STATIC, MATCH + three, silenceable=False, match="expected 0 fill handle")
    five = (
        "    %h0, %h1, %h2, %h3, %h4 = transform.structured.tile_reduction_using_forall %0 "
        f"by num_threads = [0, 4] : ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY}, {ANY})\n"
    )
    fails(STATIC, MATCH + five, silenceable=False, match="expected 2 fill handle")


@needs_iree
def test_upstream_form_handles_match_iree_opt(tmp_path) -> None:
    """The same schedule (upstream's form) annotates the same ops in iree-opt and here."""

    body = (
        "    %h0, %h1, %h2, %h3 = transform.structured.tile_reduction_using_forall %0 "
        f"by num_threads = [0, 4] : ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})\n"
    ) + ANNOTATE
    theirs = xlinalg.parse(upstream(STATIC, (MATCH + body).replace("    ", ""), tmp_path))
    roles = {
        name: op.name
        for op in theirs.walk()
        for name in ("h0", "h1", "h2", "h3")
        if name in op.attributes
    }
    # iree-opt's combining op is a linalg.reduce, ours a linalg.generic
    assert roles == {**ROLES_UPSTREAM, "h2": "linalg.reduce"}


def test_export_as_constants_rewrites_the_spec_form_for_upstream(tmp_path) -> None:
    """`resolve_knobs(as_constants=True)` (what `xlinalg export --as-constants` writes for
    upstream tools) turns the spec's form into upstream's: same handle roles, and the
    text parses (and annotates the same ops) in iree-opt."""
    body = (
        "    %h0, %h1, %h2, %h3 = transform.structured.tile_reduction_using_forall %0 "
        "by num_threads = [0, 4], tile_sizes = [], mapping = []\n"
    ) + ANNOTATE
    exported = xlinalg.resolve_knobs(schedule(MATCH + body), {}, as_constants=True)
    assert (
        "%h1, %h2, %h3, %h0 = transform.structured.tile_reduction_using_forall %0 by num_threads = [0, 4] mapping = [] : ("
        in exported
    )
    spec_roles = _roles(body)
    exported_roles = {
        name: op.name
        for op in xlinalg.apply_schedule(STATIC, exported).walk()
        for name in ("h0", "h1", "h2", "h3")
        if name in op.attributes
    }
    assert exported_roles == spec_roles
    if IREE_OPT is not None:
        inner = exported.split("{transform.consumed}) {\n")[1]
        inner = inner.rsplit("    transform.yield", 1)[0].replace("    ", "")
        iree = xlinalg.parse(upstream(STATIC, inner, tmp_path))
        roles = {
            name: op.name
            for op in iree.walk()
            for name in ("h0", "h1", "h2", "h3")
            if name in op.attributes
        }
        assert roles == {**spec_roles, "h3": "linalg.reduce"}  # iree combines with linalg.reduce
