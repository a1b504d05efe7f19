"""The Winograd F(m x m, r x r) transform matrices: `Y = A^T [(G g G^T) ⊙ (B^T d B)] A`.

The spec ([003]/[000]) names the three algorithms (`fmr` cases F_2_3, F_4_3,
F_2_5) but prints no matrices, so these are the ones upstream MLIR's
decomposition uses (Lavin-Gray style Toom-Cook matrices, written here as exact
fractions). Upstream multiplies the output transform by a scalar factor (32
on each side for F(4,3), 16 for F(2,5)); here that factor is folded into
`AT`, which is the same mathematics. `tests/dialects/linalg/test_linalg_winograd.py` checks
the identity (transforms + elementwise product = direct correlation) for all
three.

Reading chosen where the seed text is ambiguous: the [004] IREE text writes
the filter transform with `B^T` where the [003] formula has `G ... G^T`; the
mathematics requires `G g G^T` (CHECKLIST §E.5), which is what is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F  # noqa: N817 - the tables below read as math: F(1, 2)

import numpy as np

Matrix = tuple[tuple[F, ...], ...]

#: fmr enum case → (m, r), the order of upstream's `WinogradConv2DFmr`.
FMR_CASES: tuple[tuple[int, int], ...] = ((2, 3), (4, 3), (2, 5))
FMR_NAMES: tuple[str, ...] = ("F_2_3", "F_4_3", "F_2_5")


def _m(rows: list[list[int | F]], scale: int = 1) -> Matrix:
    return tuple(tuple(F(v) * scale for v in row) for row in rows)


@dataclass(frozen=True)
class WinogradMatrices:
    m: int
    r: int
    G: Matrix  # alpha x r
    BT: Matrix  # alpha x alpha
    AT: Matrix  # m x alpha (scalar factor included)

    @property
    def alpha(self) -> int:
        return self.m + self.r - 1

    def numpy(self, name: str) -> np.ndarray:
        return np.array([[float(v) for v in row] for row in getattr(self, name)], dtype=np.float64)


_F23 = WinogradMatrices(
    2,
    3,
    G=_m([[-1, 0, 0], [F(1, 2), F(-1, 2), F(1, 2)], [F(1, 2), F(1, 2), F(1, 2)], [0, 0, 1]]),
    BT=_m([[-1, 0, 1, 0], [0, -1, 1, 0], [0, 1, 1, 0], [0, -1, 0, 1]]),
    AT=_m([[1, 1, 1, 0], [0, -1, 1, 1]]),
)

_F43 = WinogradMatrices(
    4,
    3,
    G=_m(
        [
            [1, 0, 0],
            [F(-1, 3), F(1, 3), F(-1, 3)],
            [F(-1, 3), F(-1, 3), F(-1, 3)],
            [F(1, 12), F(-1, 6), F(1, 3)],
            [F(1, 12), F(1, 6), F(1, 3)],
            [0, 0, 1],
        ]
    ),
    BT=_m(
        [
            [F(1, 4), 0, F(-5, 16), 0, F(1, 16), 0],
            [0, F(1, 4), F(-1, 4), F(-1, 16), F(1, 16), 0],
            [0, F(-1, 4), F(-1, 4), F(1, 16), F(1, 16), 0],
            [0, F(1, 4), F(-1, 8), F(-1, 4), F(1, 8), 0],
            [0, F(-1, 4), F(-1, 8), F(1, 4), F(1, 8), 0],
            [0, F(1, 4), 0, F(-5, 16), 0, F(1, 16)],
        ]
    ),
    AT=_m(
        [
            [F(1, 8), F(1, 4), F(1, 4), F(1, 8), F(1, 8), 0],
            [0, F(-1, 4), F(1, 4), F(-1, 4), F(1, 4), 0],
            [0, F(1, 4), F(1, 4), F(1, 2), F(1, 2), 0],
            [0, F(-1, 4), F(1, 4), -1, 1, F(1, 2)],
        ],
        scale=32,
    ),
)

_F25 = WinogradMatrices(
    2,
    5,
    G=_m(
        [
            [1, 0, 0, 0, 0],
            [F(1, 6), F(-1, 6), F(1, 6), F(-1, 6), F(1, 6)],
            [F(-1, 6), F(-1, 6), F(-1, 6), F(-1, 6), F(-1, 6)],
            [F(-4, 15), F(2, 15), F(-1, 15), F(1, 30), F(-1, 60)],
            [F(1, 60), F(1, 30), F(1, 15), F(2, 15), F(4, 15)],
            [0, 0, 0, 0, 1],
        ]
    ),
    BT=_m(
        [
            [F(1, 8), F(3, 16), F(-1, 4), F(-3, 16), F(1, 8), 0],
            [0, F(1, 8), F(1, 16), F(-5, 16), F(1, 8), 0],
            [0, F(-1, 8), F(-5, 16), F(-1, 16), F(1, 8), 0],
            [0, F(1, 4), F(-1, 8), F(-1, 4), F(1, 8), 0],
            [0, F(-1, 8), F(-1, 4), F(1, 8), F(1, 4), 0],
            [0, F(1, 8), F(3, 16), F(-1, 4), F(-3, 16), F(1, 8)],
        ]
    ),
    AT=_m([[F(1, 2), 1, 1, 2, 1, 0], [0, -1, 1, -1, 2, F(1, 2)]], scale=16),
)

_BY_MR = {(w.m, w.r): w for w in (_F23, _F43, _F25)}


def winograd_matrices(m: int, r: int) -> WinogradMatrices:
    """The matrices of F(m, r); KeyError for an unsupported pair."""
    return _BY_MR[(m, r)]


IDENTITY_1: Matrix = ((F(1),),)
