"""`transform.xlinalg.prefetch_next_iteration`: our extension op (upstream's Transform
dialect has no op placing `memref.prefetch`).

```
transform.xlinalg.prefetch_next_iteration %copies locality = 3 : !transform.any_op
```

After each target op (e.g. the `linalg.copy` of a promoted tile), one `memref.prefetch`
per cache line of the tile it reads in the next iteration of the innermost enclosing
`scf.for` that moves that tile (`xlinalg.transforms.scf.prefetch`); silenceable failure for a
target with no such loop. The targets stay valid (the handle is only read).
Exported schedules that select it are not upstream MLIR: keep it inside a
`transform.tune.alternatives` region, which `--as-constants` exports inline only when
selected.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, IntegerType, i64
from xdsl.dialects.transform import TransformHandleType
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class PrefetchNextIterationOp(IRDLOperation):
    """`transform.xlinalg.prefetch_next_iteration %target locality = N : type`."""

    name = "transform.xlinalg.prefetch_next_iteration"

    target = operand_def(TransformHandleType)
    locality = prop_def(IntegerAttr[IntegerType])

    def __init__(self, target: SSAValue, locality: int = 3) -> None:
        super().__init__(operands=[target], properties={"locality": IntegerAttr(locality, i64)})

    def verify_(self) -> None:
        if not 0 <= self.locality.value.data <= 3:
            raise VerifyException(
                f"transform.xlinalg.prefetch_next_iteration: locality must be "
                f"in [0, 3], got {self.locality.value.data}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> PrefetchNextIterationOp:
        target = parser.parse_unresolved_operand()
        parser.parse_keyword("locality")
        parser.parse_punctuation("=")
        locality = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = cls(parser.resolve_operand(target, parser.parse_type()), locality)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        printer.print_string(f" locality = {self.locality.value.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.target.type)


TransformXlinalg = Dialect("transform.xlinalg", [PrefetchNextIterationOp])

__all__ = ["PrefetchNextIterationOp", "TransformXlinalg"]
