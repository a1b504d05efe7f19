"""Winograd F(m, r) transform matrices: `Y = A^T [(G g G^T) * (B^T d B)] A`.

m is the output tile size (`output_tile_size`), r the kernel size
(`kernel_size`), the input tile is T = m + r - 1. Naming: the seed's winograd
prose calls the kernel m×m and the output tile r×r (the letters of
`linalg.winograd_*` swapped); we name things by the attributes
(`output_tile_size`, `kernel_size`), which is unambiguous.

F(6, 3) is IREE's (the constants `iree-opt --iree-linalg-ext-decompose-winograd`
emits, interpolation points 0, ±1, ±1/2, ±2, ∞); F(2, 3) and F(4, 3) are
Lavin & Gray's. The seed's filter formula "G·(F·B^T)" is a doc defect: the
filter transform is `G g G^T` (what IREE computes and what makes the
algorithm a convolution); the tests check all three against a direct convolution.
"""

from __future__ import annotations

import numpy as np

_F63_G = [
    [1, 0, 0],
    [-2 / 9, -2 / 9, -2 / 9],
    [-2 / 9, 2 / 9, -2 / 9],
    [1 / 90, 1 / 45, 2 / 45],
    [1 / 90, -1 / 45, 2 / 45],
    [32 / 45, 16 / 45, 8 / 45],
    [32 / 45, -16 / 45, 8 / 45],
    [0, 0, 1],
]
_F63_BT = [
    [1, 0, -5.25, 0, 5.25, 0, -1, 0],
    [0, 1, 1, -4.25, -4.25, 1, 1, 0],
    [0, -1, 1, 4.25, -4.25, -1, 1, 0],
    [0, 0.5, 0.25, -2.5, -1.25, 2, 1, 0],
    [0, -0.5, 0.25, 2.5, -1.25, -2, 1, 0],
    [0, 2, 4, -2.5, -5, 0.5, 1, 0],
    [0, -2, 4, 2.5, -5, -0.5, 1, 0],
    [0, -1, 0, 5.25, 0, -5.25, 0, 1],
]
_F63_AT = [
    [1, 1, 1, 1, 1, 1, 1, 0],
    [0, 1, -1, 2, -2, 0.5, -0.5, 0],
    [0, 1, 1, 4, 4, 0.25, 0.25, 0],
    [0, 1, -1, 8, -8, 0.125, -0.125, 0],
    [0, 1, 1, 16, 16, 1 / 16, 1 / 16, 0],
    [0, 1, -1, 32, -32, 1 / 32, -1 / 32, 1],
]

_F23_G = [[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]]
_F23_BT = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]]
_F23_AT = [[1, 1, 1, 0], [0, 1, -1, -1]]

_F43_G = [
    [1 / 4, 0, 0],
    [-1 / 6, -1 / 6, -1 / 6],
    [-1 / 6, 1 / 6, -1 / 6],
    [1 / 24, 1 / 12, 1 / 6],
    [1 / 24, -1 / 12, 1 / 6],
    [0, 0, 1],
]
_F43_BT = [
    [4, 0, -5, 0, 1, 0],
    [0, -4, -4, 1, 1, 0],
    [0, 4, -4, -1, 1, 0],
    [0, -2, -1, 2, 1, 0],
    [0, 2, -1, -2, 1, 0],
    [0, 4, 0, -5, 0, 1],
]
_F43_AT = [
    [1, 1, 1, 1, 1, 0],
    [0, 1, -1, 2, -2, 0],
    [0, 1, 1, 4, 4, 0],
    [0, 1, -1, 8, -8, 1],
]

#: (output_tile_size, kernel_size) -> (G, B^T, A^T)
MATRICES: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {
    (m, r): (np.array(g, dtype=np.float64), np.array(bt, dtype=np.float64), np.array(at, dtype=np.float64))
    for (m, r), (g, bt, at) in {
        (6, 3): (_F63_G, _F63_BT, _F63_AT),
        (4, 3): (_F43_G, _F43_BT, _F43_AT),
        (2, 3): (_F23_G, _F23_BT, _F23_AT),
    }.items()
}
