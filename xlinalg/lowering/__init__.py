"""xlinalg/lowering: from the transformed payload (linalg/scf/affine/memref/arith/math) to LLVM IR.

```
pipeline.py          lower_to_llvm(module) -> LoweredModule, lower_to_cf, lower_to_scf, lower_to_loops
linalg_to_loops.py   convert-linalg-to-loops   linalg.generic on memrefs → scf.for nest
lower_affine.py      lower-affine              affine.apply/min/max → arith; affine.for/load/store
affine_expansion.py  affine expressions → arith (floordiv/ceildiv/mod as upstream)
scf_while_to_cf.py   convert-scf-while-to-cf   scf.while → cf (xDSL's convert-scf-to-cf does for/if)
scf_to_cf.py         xlinalg-convert-scf-to-cf while, then xDSL's for/if/index_switch patterns in one walk
cleanup.py           licm + cse + dce between stages (xDSL's algorithms; cse.py, licm.py and dce.py
                     run them with less overhead, effects.py memoises memory effects)
walk.py              walk_ops: list(op.walk()) without the nested generators
diagnostics.py       LoweringError naming the op and its location
to_llvm/             func/cf/arith/math/memref → LLVM dialect → LLVM IR text
```

`lower_to_llvm` and `lower_to_cf` are re-exported here (imported on first use).
"""

from __future__ import annotations

from typing import Any

from xlinalg.lowering import pipeline

__all__ = ["lower_to_cf", "lower_to_llvm"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(pipeline, name)
    raise AttributeError(f"module 'xlinalg.lowering' has no attribute '{name}'")
