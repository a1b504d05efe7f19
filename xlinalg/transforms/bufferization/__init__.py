"""One-shot bufferization: tensor payloads → memref payloads in destination-passing style.

`OneShotBufferizePass` (`one-shot-bufferize`) runs first in the lowering
pipeline; a payload without tensors passes through untouched. See
`one_shot.py` for the rewrite of every op and the function-boundary
convention, and `analysis.py` for the in-place (read-after-write conflict)
analysis.
"""

from xlinalg.transforms.bufferization.one_shot import OneShotBufferizePass, bufferize_function

__all__ = ["OneShotBufferizePass", "bufferize_function"]
