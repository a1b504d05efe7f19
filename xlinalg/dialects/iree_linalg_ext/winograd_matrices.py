"""Winograd F(m, r) transform matrices: `Y = A^T [(G g G^T) * (B^T d B)] A`.

m is the output tile size (`output_tile_size`), r the kernel size
(`kernel_size`), the input tile is T = m + r - 1. Naming: the seed's winograd
prose calls the kernel m×m and the output tile r×r (the letters of
`linalg.winograd_*` swapped); we name things by the attributes
(`output_tile_size`, `kernel_size`), which is unambiguous.

F(6, 3) is IREE's (the constants `iree-opt --iree-linalg-ext-decompose-winograd`
emits, interpolation points 0, ±1, ±1/2, ±2, ∞; IREE supports only this one);
F(2, 3), F(4, 3) and F(2, 5) are the ones `linalg.winograd_*` uses
(`xlinalg.dialects.linalg.winograd_matrices`, upstream MLIR's). The seed's filter formula "G·(F·B^T)" is a doc defect: the
filter transform is `G g G^T` (what IREE computes and what makes the
algorithm a convolution); the tests check all three against a direct convolution.
"""

from __future__ import annotations

import numpy as np

from xlinalg.dialects.linalg.winograd_matrices import FMR_CASES, winograd_matrices

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


def _linalg(m: int, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    w = winograd_matrices(m, r)
    return w.numpy("G"), w.numpy("BT"), w.numpy("AT")


#: (output_tile_size, kernel_size) -> (G, B^T, A^T)
MATRICES: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {
    (6, 3): (
        np.array(_F63_G, dtype=np.float64),
        np.array(_F63_BT, dtype=np.float64),
        np.array(_F63_AT, dtype=np.float64),
    ),
    **{mr: _linalg(*mr) for mr in FMR_CASES},
}
