"""Arrays whose data starts at a cache-line boundary.

NumPy aligns large allocations to 16 bytes only. A kernel timed on such an array
pays for every 64-byte vector load that straddles two cache lines (1.34x on the
7x7x512 convolution, where the filter sits at 16 mod 64), while frameworks and
IREE's runtime hand kernels 64-byte aligned buffers. `Kernel.make_inputs` (and so
every tuning trial and rerank) and the benches use `aligned` so candidates are
timed the way they will run.
"""

from __future__ import annotations

import numpy as np

CACHE_LINE_BYTES = 64


def aligned(array: np.ndarray, alignment: int = CACHE_LINE_BYTES) -> np.ndarray:
    """A copy of `array` whose data starts at a multiple of `alignment` bytes."""
    raw = np.empty(array.nbytes + alignment, np.uint8)
    offset = -raw.ctypes.data % alignment
    out = raw[offset : offset + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out
