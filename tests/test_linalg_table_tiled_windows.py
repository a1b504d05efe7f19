"""Every convolution, depthwise convolution and pooling tiled with non-dividing sizes,
compiled and equal to the untiled NumPy reference (helpers: linalg_table_cases.py)."""

from __future__ import annotations

from linalg_table_cases import check_all, is_windowed

from xlinalg.dialects.linalg.samples import TILED_CASES


def test_every_windowed_op_tiled_matches_the_reference() -> None:
    expected = sum(1 for n, e in TILED_CASES if e == "f32" and is_windowed(n))
    assert check_all("f32", schedule=True, windowed=True) == expected
