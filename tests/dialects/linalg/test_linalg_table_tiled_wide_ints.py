"""Every integer-capable table op tiled with non-dividing sizes in i16 (windowed ops) and
i32, compiled and equal to the untiled NumPy reference (helpers: support/linalg_table.py)."""

from __future__ import annotations

import pytest

from support.linalg_table import TILED_GROUPS, check_all, expected_count


@pytest.mark.slow
@pytest.mark.parametrize(("elt", "windowed"), TILED_GROUPS["test_linalg_table_tiled_wide_ints.py"])
def test_every_op_of_the_group_tiled_matches_the_reference(elt: str, windowed: bool) -> None:
    assert check_all(elt, True, windowed) == expected_count(elt, True, windowed)
