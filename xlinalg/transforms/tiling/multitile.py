"""Multi-size tiling sizes (upstream `linalg::computeStaticMultiTileSizes`).

For a loop of extent `n`, a target tile size `t` and a divisor `d` (d | n),
find two tile sizes `low = k*d` and `high = (k+1)*d`, both at most `t` when
possible, and trip counts with `low_count*low + high_count*high = n`; the
split point is `low_count*low`. The spec's example: n=54, t=12, d=2 gives
10 (x3) and 12 (x2), split point 30.
"""

from __future__ import annotations

from dataclasses import dataclass

from xlinalg.errors import TransformFailure, silenceable_failure


@dataclass(frozen=True)
class MultiTileSizes:
    low_size: int
    high_size: int
    low_count: int
    high_count: int

    @property
    def split_point(self) -> int:
        return self.low_size * self.low_count


def multitile_sizes(extent: int, target_size: int, divisor: int = 1) -> MultiTileSizes:
    if extent < 0:
        raise TransformFailure("multitile_sizes: the dimension must be static", silenceable=False)
    if divisor <= 0 or target_size <= 0:
        raise TransformFailure(
            "multitile_sizes: target_size and divisor must be positive", silenceable=False
        )
    if extent % divisor != 0:
        raise silenceable_failure(
            f"multitile_sizes: the divisor {divisor} does not divide the dimension {extent}"
        )
    if extent == 0:
        return MultiTileSizes(0, divisor, 0, 0)
    units = extent // divisor  # the extent in units of the divisor
    target_units = -(-target_size // divisor)
    total = -(-units // target_units)
    low_units = units // total
    high_count = units % total
    return MultiTileSizes(
        low_units * divisor, (low_units + 1) * divisor, total - high_count, high_count
    )


__all__ = ["MultiTileSizes", "multitile_sizes"]
