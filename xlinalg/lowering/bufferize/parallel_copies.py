"""The buffers of an `scf.while`'s carried tensors, and the copies into them with
parallel-assignment semantics.

`scf.condition` forwards, and `scf.yield` of the after region yields, all its values at
once: `scf.condition(%c) %b, %a` swaps the two carried tensors. Each carried tensor lives in
one buffer (the before region's argument's), so the terminator becomes copies into those
buffers; done one after the other, a copy may overwrite a buffer that a later copy still
reads (the swap would leave both buffers holding %b). As upstream's one-shot bufferize
(which copies when a yielded buffer is not equivalent to its block argument), every
source that an earlier copy of the same terminator overwrites is first copied to a
temporary, so all copies read the values the terminator names.

The value the condition forwards at position j (the after region's argument j and the
loop's result j) lives in the before region's buffer j when both have the same type;
when the condition permutes tensors of different types (`scf.condition(%c) %b, %a` with
`%a : tensor<4xf32>`, `%b : tensor<5xf32>`) it gets a buffer of its own, allocated before
the loop (`forwarded_buffer`), and the condition copies into it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

if TYPE_CHECKING:
    from xlinalg.lowering.bufferize.analysis import Root
    from xlinalg.lowering.bufferize.one_shot import _FunctionBufferizer


def forwarded_buffer(bufferizer: _FunctionBufferizer, loop: scf.WhileOp, j: int) -> tuple[SSAValue, Root]:
    """(buffer, root) of the tensor `loop`'s condition forwards at position `j`: the before
    region's buffer j if that argument has the same type, else a new static buffer."""
    before, forwarded = loop.before_region.block.args, loop.after_region.block.args[j]
    if j < len(before) and before[j].type == forwarded.type:
        return bufferizer.buf[before[j]], bufferizer.alias.root[before[j]]
    ttype = forwarded.type
    assert isinstance(ttype, TensorType)
    if any(d < 0 for d in ttype.get_shape()):
        raise bufferizer._unsupported(
            loop, "a dynamically shaped tensor forwarded by scf.condition at a position whose "
                  "before-region argument has another type")
    return bufferizer._alloc(ttype, [], loop)


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
