"""Encodings materialized into pack / linalg.mmt4d / unpack with knob-chosen tile sizes:
the data-tiled program computes the same matmul (NumPy reference of the rewritten IR)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xlinalg
from xlinalg.coverage.linalg_ext_cases import ENCODING_TILED_CASES
from xlinalg.dialects.context import make_context
from xlinalg.errors import XlinalgError
from xlinalg.reference.function import run_function
from xlinalg.transforms.iree_linalg_ext.materialize_encoding import MaterializeEncodingPass

from support import IREE_OPT, iree_opt
from support.encoding import KNOBS, SPACE, SRC, K, M, N, enc


@pytest.mark.parametrize("tiles", [(8, 8, 4), (4, 16, 2), (13, 11, 7)])
def test_materialized_matmul_matches(tiles: tuple[int, int, int]) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = rng.standard_normal((M, N)).astype(np.float32)
    module = xlinalg.parse(SRC)
    (before,) = run_function(module, "f", [a, b, c])
    MaterializeEncodingPass(*tiles).apply(make_context(), module)
    module.verify()
    (after,) = run_function(xlinalg.parse(str(module)), "f", [a, b, c])
    expected = c + a.astype(np.float64) @ b
    np.testing.assert_allclose(before, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(after, expected, rtol=1e-5, atol=1e-5)


def test_upper_bound_tile_size_becomes_the_role_tiles() -> None:
    module = xlinalg.parse(f"""
func.func @f() -> (index, index) {{
  %m, %n = iree_linalg_ext.upper_bound_tile_size tensor<?x?xf32, {enc("RHS")}> -> index, index
  return %m, %n : index, index
}}""")
    MaterializeEncodingPass(16, 32, 4).apply(make_context(), module)
    assert run_function(module, "f", []) == [4, 32]


def test_bad_tile_sizes_are_rejected() -> None:
    with pytest.raises(XlinalgError, match="tile sizes must be positive"):
        MaterializeEncodingPass(0, 8, 8).apply(make_context(), xlinalg.parse(SRC))


def test_search_space_knobs_reach_the_materialization() -> None:
    """The encoding tile sizes are knobs (apply_registered_pass takes them as param options,
    k0 = 1); the materialized mmt4d is register-blocked and vectorized (FMA on vectors)."""
    assert {k.name for k in xlinalg.list_knobs(SPACE)} == set(KNOBS)
    text = str(xlinalg.apply_schedule(SRC, SPACE, KNOBS))
    assert "inner_tiles = [4, 1]" in text
    assert "inner_tiles = [16, 1]" in text  # LHS, RHS
    assert "vector.fma" in text
    assert "vector<16xf32>" in text
    assert "scf.for" in text
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(s).astype(np.float32) for s in ((M, K), (K, N), (M, N)))
    kernel = xlinalg.compile(SRC, schedule=SPACE, knobs=KNOBS)
    np.testing.assert_allclose(kernel(a, b, c), c + a @ b, rtol=1e-5, atol=1e-5)
    assert kernel.flops() > 0


def test_registered_pass_with_param_options_round_trips_and_matches_upstream_syntax() -> None:
    resolved = xlinalg.resolve_knobs(SPACE, KNOBS, as_constants=True)
    module = xlinalg.parse(resolved)
    printed = str(module)
    assert 'with options = {"tile-m" = %' in printed
    assert str(xlinalg.parse(printed)) == printed
    if IREE_OPT is not None:
        iree_opt(printed)  # upstream parses our spelling of param-valued options


def test_an_option_param_with_two_values_is_a_definite_failure() -> None:
    schedule = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %a = transform.param.constant 4 : i64 -> !transform.param<i64>
    %b = transform.param.constant 8 : i64 -> !transform.param<i64>
    %two = transform.merge_handles %a, %b : !transform.param<i64>
    %d = transform.apply_registered_pass "iree-codegen-materialize-encoding" with options = {"tile-m" = %two}
      to %func : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}"""
    with pytest.raises(XlinalgError, match="option 'tile-m' expects one param value, got 2"):
        xlinalg.apply_schedule(SRC, schedule)


# ---------------------------------------------------------------- tiling: after materialization
# IREE 3.13's set_encoding / unset_encoding do not implement TilingInterface (iree-opt:
# `transform.structured.tile_using_for` on iree_encoding.set_encoding fails with "only ops
# implementing TilingInterface are supported"); neither do ours: they are tiled after
# materialization, as the pack / mmt4d / unpack they become (`ENCODING_TILED_CASES`).
TILE_MATERIALIZED = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %m = transform.param.constant 8 : i64 -> !transform.param<i64>
    %k = transform.param.constant 4 : i64 -> !transform.param<i64>
    %d = transform.apply_registered_pass "iree-codegen-materialize-encoding"
        with options = {"tile-m" = %m, "tile-n" = %m, "tile-k" = %k} to %func
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    %packs = transform.structured.match ops{["iree_linalg_ext.pack"]} in %root : (!transform.any_op) -> !transform.any_op
    %tp, %lp:2 = transform.structured.tile_using_for %packs tile_sizes [1, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %mm = transform.structured.match ops{["linalg.mmt4d"]} in %root : (!transform.any_op) -> !transform.any_op
    %tm, %lm:3 = transform.structured.tile_using_for %mm tile_sizes [1, 1, 1, 0, 0, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %un = transform.structured.match ops{["iree_linalg_ext.unpack"]} in %root : (!transform.any_op) -> !transform.any_op
    %tu, %lu:2 = transform.structured.tile_using_for %un tile_sizes [5, 3]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}"""


@pytest.mark.parametrize("t", sorted({t for op, t in ENCODING_TILED_CASES if op == "set_encoding"}))
def test_encodings_tile_after_materialization(t: str) -> None:
    """Materialize (8x8x4 over 13x11x7: every tile padded), then tile each pack by one
    outer tile, the mmt4d by one (m1, n1, k1) step and the unpack by 5x3 (not dividing)."""
    src = SRC.replace("xf32", f"x{t}").replace("[f32, f32, f32]", f"[{t}, {t}, {t}]")
    kernel = xlinalg.compile(src, schedule=TILE_MATERIALIZED)
    assert str(kernel.module).count("scf.for") >= 3 * 2 + 3 + 2  # three packs, the mmt4d, unpack
    rng = np.random.default_rng(7)
    dtype = {"f32": np.float32, "f64": np.float64}[t]
    a, b, c = (rng.standard_normal(s).astype(dtype) for s in ((M, K), (K, N), (M, N)))
    np.testing.assert_allclose(kernel(a, b, c), c + a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def test_set_encoding_itself_is_not_tileable() -> None:
    """Silenceable as upstream's "only ops implementing TilingInterface are supported"."""
    schedule = (
        TILE_MATERIALIZED.split("    %d = transform.apply_registered_pass")[0]
        + """    %s = transform.structured.match ops{["iree_linalg_ext.set_encoding"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %s tile_sizes [4, 4]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}"""
    )
    with pytest.raises(
        XlinalgError, match=re.escape("cannot tile payload op 'iree_linalg_ext.set_encoding'")
    ):
        xlinalg.apply_schedule(SRC, schedule)
