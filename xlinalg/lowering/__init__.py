"""xlinalg/lowering: from the transformed payload (linalg/scf/affine/memref/arith/math/vector
on tensors or memrefs) to LLVM IR text and the native signatures of its functions.

```
pipeline.py                the pass pipeline: lower_to_llvm(module) -> LoweredModule,
                           lower_to_cf, lower_to_scf, lower_to_loops
default_mmt4d_schedule.py  encodings a schedule left → pack/mmt4d/unpack + the built-in
                           mmt4d schedule (xlinalg.compile runs it before the pipeline)
lower_interface_ops.py     ops with their own loop lowering (LoopLoweringInterface)
pack_in_place.py           xl-pack-in-place: unit-tile packs read straight from their source
unpack_in_place*.py        xl-unpack-in-place: packed results computed in their unpack's memory
forall_to_threads.py       xl-convert-forall-to-threads: scf.forall → calls of the thread pool
scf_while_to_cf.py         convert-scf-while-to-cf: scf.while → cf
scf_to_cf.py               xlinalg-convert-scf-to-cf: while, then xDSL's for/if patterns
cleanup.py                 licm + cse + dce between stages (xlinalg/ir/)
vector_to_llvm/            n-D vectors → rows of 1-D vectors
to_llvm/                   func/cf/arith/math/memref/vector → LLVM dialect → LLVM IR text
abi.py                     the native calling convention the backend calls
```
The passes that transform ops also run (one-shot bufferization, convert-linalg-to-loops,
lower-affine, generalize) live in `xlinalg/transforms/`.
"""

from xlinalg.lowering.pipeline import lower_to_cf, lower_to_llvm

__all__ = ["lower_to_cf", "lower_to_llvm"]
