"""Every op of the op table tiled with non-dividing sizes (`xlinalg.apply_schedule` +
`transform.structured.tile_using_for`), compiled and equal to the untiled NumPy reference;
and the property "tiled = untiled" on random shapes and tile sizes (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xlinalg
from xlinalg.backend.jit import JitModule
from xlinalg.coverage.linalg_samples import sample
from xlinalg.dialects.linalg import NamedStructuredOp
from xlinalg.lowering.pipeline import lower_to_llvm

from support.linalg_table import (
    TILED_GROUPS,
    check_all,
    expected_count,
    operands_for,
    tiling_schedule,
)


@pytest.mark.slow
@pytest.mark.parametrize(("elt", "windowed"), TILED_GROUPS["test_linalg_table_tiled.py"])
def test_every_non_windowed_op_tiled_matches_the_reference(elt: str, windowed: bool) -> None:
    assert check_all(elt, True, windowed) == expected_count(elt, True, windowed)


# ---------------------------------------------------------------------------
# property: tiling = untiled, on random shapes and tile sizes
# ---------------------------------------------------------------------------

PROPERTY_OPS = ("matmul", "conv_2d_nhwc_hwcf", "pooling_nhwc_max", "depthwise_conv_1d_nwc_wcm")


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(PROPERTY_OPS),
    sizes=st.fixed_dictionaries(
        {
            d: st.integers(1, 6)
            for d in ("m", "n", "k", "oh", "ow", "c", "f", "ic", "cm", "kh", "kw")
        }
    ),
    tiles=st.lists(st.integers(0, 5), min_size=7, max_size=7),
    seed=st.integers(0, 2**16),
)
def test_tiling_equals_untiled(
    name: str, sizes: dict[str, int], tiles: list[int], seed: int
) -> None:
    s = sample(name, "f32", sizes=sizes)
    module = xlinalg.parse(s.function("k"))
    (op,) = [o for o in module.walk() if isinstance(o, NamedStructuredOp)]
    loop_tiles = tiles[: op.get_num_loops()]
    tiled = xlinalg.apply_schedule(
        module.clone(), tiling_schedule({name: op}, lambda _: loop_tiles)
    )
    untiled_fn = JitModule(lower_to_llvm(module.clone())).function("k")
    tiled_fn = JitModule(lower_to_llvm(tiled)).function("k")
    args = operands_for(s, seed)
    a, b = [np.copy(x) for x in args], [np.copy(x) for x in args]
    untiled_fn(*a)
    tiled_fn(*b)
    np.testing.assert_allclose(b[s.n_inputs], a[s.n_inputs], rtol=1e-5, atol=1e-5)
