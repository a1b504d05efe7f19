"""Vector dialect lowering before LLVM: n-D vectors → 1-D rows (`unroll_to_1d`).

The 1-D → LLVM step is `xlinalg/lowering/to_llvm/convert_vector_to_llvm.py`.
"""

from xlinalg.lowering.vector_to_llvm.unroll_to_1d import VectorUnrollTo1DPass

__all__ = ["VectorUnrollTo1DPass"]
