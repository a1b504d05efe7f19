"""Our `memref` dialect: xDSL's memref ops, with upstream's custom syntax for the two ops
xDSL 0.74 only knows in the generic form.

```
memref.copy %a, %b : memref<4xf32> to memref<4xf32>
%c = memref.cast %a : memref<4xf32> to memref<?xf32>
```

`CopyOp` / `CastOp` replace xDSL's classes in the registered dialect (a decorated xDSL op
class cannot be subclassed), with the same operands, results, traits and verifier. Passes
that build copies keep building xDSL's `memref.CopyOp` (printed in the generic form, which
upstream parses too); code that recognises a parsed copy tests `isinstance(op, COPY_OPS)`
(or the op name, as the lowerings and the reference do).
"""

from __future__ import annotations

from xdsl.dialects import memref as _xdsl
from xdsl.dialects.builtin import MemRefType, UnrankedMemRefType
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import IRDLOperation, base, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.memref_prefetch import PrefetchOp


@irdl_op_definition
class CopyOp(IRDLOperation):
    """`memref.copy %source, %target : type to type` (upstream's assembly)."""

    name = "memref.copy"

    source = operand_def(MemRefType)
    destination = operand_def(MemRefType)

    traits = traits_def(MemoryWriteEffect(), MemoryReadEffect())

    assembly_format = "$source `,` $destination attr-dict `:` type($source) `to` type($destination)"

    def __init__(self, source: SSAValue | Operation, destination: SSAValue | Operation):
        super().__init__(operands=[source, destination])

    def verify_(self) -> None:
        # xDSL's rules and messages (its `verify_` also checks the op against xDSL's class)
        source, destination = self.source.type, self.destination.type
        assert isinstance(source, MemRefType)
        assert isinstance(destination, MemRefType)
        if source.get_shape() != destination.get_shape():
            raise VerifyException("Expected source and destination to have the same shape.")
        if source.get_element_type() != destination.get_element_type():
            raise VerifyException("Expected source and destination to have the same element type.")


@irdl_op_definition
class CastOp(IRDLOperation):
    """`memref.cast %source : type to type` (upstream's assembly)."""

    name = "memref.cast"

    source = operand_def(base(MemRefType) | base(UnrankedMemRefType))
    dest = result_def(base(MemRefType) | base(UnrankedMemRefType))

    traits = traits_def(NoMemoryEffect())

    assembly_format = "$source attr-dict `:` type($source) `to` type($dest)"


#: a `memref.copy` built by a pass (xDSL's class) or parsed (ours)
COPY_OPS = (_xdsl.CopyOp, CopyOp)
#: a `memref.cast` built by a pass (xDSL's class) or parsed (ours)
CAST_OPS = (_xdsl.CastOp, CastOp)

_OURS: list[type[IRDLOperation]] = [CopyOp, CastOp, PrefetchOp]


def _memref_ops() -> list[type[Operation]]:
    replaced = {op.name for op in _OURS}
    return [*(op for op in _xdsl.MemRef.operations if op.name not in replaced), *_OURS]


MemRef = Dialect("memref", _memref_ops(), [*_xdsl.MemRef.attributes])
"""xDSL's memref dialect with upstream's custom forms of `memref.copy` and `memref.cast`,
and upstream's `memref.prefetch`."""

__all__ = ["CAST_OPS", "COPY_OPS", "CastOp", "CopyOp", "MemRef", "PrefetchOp"]
