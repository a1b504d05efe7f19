"""`memref.prefetch` (upstream's op, absent from xDSL 0.74): a hint to fetch the cache line
holding one element of a memref.

```
memref.prefetch %m[%i, %j], read, locality<3>, data : memref<400x400xf32>
```

`read`/`write` is the expected access, `locality<0..3>` the temporal locality (3: keep it
in every cache level), `data`/`instr` the cache. As upstream the op declares no memory
effects (so no pass removes or moves it as if it were pure) and lowers to `llvm.prefetch`
on the element's address (`xlinalg/lowering/to_llvm/convert_memref_to_llvm.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import BoolAttr, IndexType, IntegerAttr, IntegerType, MemRefType, i32
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

_ACCESS = ("read", "write")
_CACHE = ("instr", "data")


@irdl_op_definition
class PrefetchOp(IRDLOperation):
    """`memref.prefetch %memref[%indices], read|write, locality<N>, data|instr : type`."""

    name = "memref.prefetch"

    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType())

    isWrite = prop_def(BoolAttr)
    localityHint = prop_def(IntegerAttr[IntegerType])
    isDataCache = prop_def(BoolAttr)

    def __init__(
        self,
        memref: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
        *,
        write: bool = False,
        locality: int = 3,
        data: bool = True,
    ) -> None:
        super().__init__(
            operands=[memref, indices],
            properties={
                "isWrite": BoolAttr.from_bool(write),
                "localityHint": IntegerAttr(locality, i32),
                "isDataCache": BoolAttr.from_bool(data),
            },
        )

    @property
    def write(self) -> bool:
        return bool(self.isWrite.value.data)

    @property
    def locality(self) -> int:
        return self.localityHint.value.data

    @property
    def data(self) -> bool:
        return bool(self.isDataCache.value.data)

    def verify_(self) -> None:
        memref_type = self.memref.type
        assert isinstance(memref_type, MemRefType)
        if memref_type.get_num_dims() != len(self.indices):
            raise VerifyException(
                f"too few indices: expected {memref_type.get_num_dims()}, got {len(self.indices)}"
            )
        if self.localityHint.type != i32 or not 0 <= self.locality <= 3:
            raise VerifyException(
                "attribute 'localityHint' failed to satisfy constraint: 32-bit "
                "signless integer attribute whose minimum value is 0 whose "
                "maximum value is 3"
            )

    @classmethod
    def parse(cls, parser: Parser) -> PrefetchOp:
        unresolved = parser.parse_unresolved_operand()
        index = IndexType()
        indices = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_operand(index)
        )
        parser.parse_punctuation(",")
        access = parser.parse_optional_keyword(_ACCESS[0]) or parser.parse_optional_keyword(
            _ACCESS[1]
        )
        if access is None:
            parser.raise_error("rw specifier has to be 'read' or 'write'")
        parser.parse_punctuation(",")
        parser.parse_keyword("locality")
        parser.parse_punctuation("<")
        locality = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(">")
        parser.parse_punctuation(",")
        cache = parser.parse_optional_keyword(_CACHE[1]) or parser.parse_optional_keyword(_CACHE[0])
        if cache is None:
            parser.raise_error("cache type has to be 'data' or 'instr'")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        memref = parser.resolve_operand(unresolved, parser.parse_type())
        op = cls(
            memref, indices, write=access == _ACCESS[1], locality=locality, data=cache == _CACHE[1]
        )
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.memref)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string(
            f"], {_ACCESS[self.write]}, locality<{self.locality}>, {_CACHE[self.data]}"
        )
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)


__all__ = ["PrefetchOp"]
