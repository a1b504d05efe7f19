"""The copies into an `scf.while`'s loop-carried buffers, with parallel-assignment semantics.

`scf.condition` forwards, and `scf.yield` of the after region yields, all its values at
once: `scf.condition(%c) %b, %a` swaps the two carried tensors. Each carried tensor lives in
one buffer (the before region's argument's), so the terminator becomes copies into those
buffers; done one after the other, a copy may overwrite a buffer that a later copy still
reads (the swap would leave both buffers holding %b). As upstream's one-shot bufferize
(which copies when a yielded buffer is not equivalent to its block argument), every
source that an earlier copy of the same terminator overwrites is first copied to a
temporary, so all copies read the values the terminator names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import memref
from xdsl.ir import Operation, SSAValue

if TYPE_CHECKING:
    from xlinalg.lowering.bufferize.one_shot import _FunctionBufferizer


def copy_in_parallel(
    bufferizer: _FunctionBufferizer,
    pairs: Sequence[tuple[SSAValue, SSAValue]],
    before: Operation,
) -> None:
    """Copy each (tensor value, loop-carried block argument) pair's buffer into the
    argument's buffer before `before`, reading every source before any target is written."""
    buf, root = bufferizer.buf, bufferizer.alias.root
    written: set[object] = set()  # roots of the buffers the copies so far overwrite
    sources: list[SSAValue] = []
    for value, target in pairs:
        source = buf[value]
        if source is not buf[target] and root[value] in written:
            # read before an earlier copy of this terminator overwrites it
            source, _ = bufferizer._copy_of(source, before)
        sources.append(source)
        if source is not buf[target]:
            written.add(root[target])
    for (value, target), source in zip(pairs, sources, strict=True):
        if source is buf[value]:
            bufferizer._copy_into(value, target, before)
        else:  # the temporary: a buffer of its own
            bufferizer._insert(memref.CopyOp(source, buf[target]), before)
