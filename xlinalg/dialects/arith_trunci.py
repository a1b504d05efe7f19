"""`arith.trunci` with upstream's `overflowFlags` (xDSL 0.74's trunci has none).

```
%0 = arith.trunci %a overflow<nsw, nuw> : i32 to i8
"arith.trunci"(%a) <{overflowFlags = #arith.overflow<none>}> : (i32) -> i8
```

Upstream gives the flags to `trunci` only (`extsi`/`extui` take none: `iree-opt` rejects
`arith.extui %a overflow<nuw>`). `nsw`/`nuw` promise that the dropped bits are copies of
the sign bit / zero (else the result is poison); the lowering may ignore them (dropping a
promise keeps the program's meaning), so `arith.trunci` still lowers by its name.
`TruncIOp` replaces xDSL's class in our `Arith` dialect (`xlinalg/dialects/arith.py`); a
decorated xDSL op class cannot be subclassed, so passes that build truncations keep
building xDSL's class (printed without flags, which upstream reads as `none`).
"""

from __future__ import annotations

from xdsl.dialects import arith as _xdsl
from xdsl.dialects.arith import IntegerOverflowAttr
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class TruncIOp(IRDLOperation):
    """`arith.trunci %input [overflow<flags>] : type to type`: keep the low bits."""

    name = "arith.trunci"

    input = operand_def(IntegerType)
    result = result_def(IntegerType)
    overflow_flags = prop_def(
        IntegerOverflowAttr, default_value=IntegerOverflowAttr("none"), prop_name="overflowFlags"
    )

    traits = traits_def(Pure())

    assembly_format = (
        "$input (`overflow` `` $overflowFlags^)? attr-dict `:` type($input) `to` type($result)"
    )

    def __init__(
        self,
        op: SSAValue | Operation,
        target_type: IntegerType,
        overflow: IntegerOverflowAttr | None = None,
    ):
        flags = overflow if overflow is not None else IntegerOverflowAttr("none")
        super().__init__(
            operands=[op], result_types=[target_type], properties={"overflowFlags": flags}
        )

    def verify_(self) -> None:
        # xDSL's rule (its `verify_` also checks the op against xDSL's definition, which
        # has no overflowFlags, so it cannot be reused)
        assert isinstance(self.input.type, IntegerType)
        assert isinstance(self.result.type, IntegerType)
        if not self.result.type.width.data < self.input.type.width.data:
            raise VerifyException("Destination bit-width must be smaller than the input bit-width")


#: an `arith.trunci` built by a pass (xDSL's class) or parsed (ours)
TRUNCI_OPS = (_xdsl.TruncIOp, TruncIOp)
#: xDSL's class our `TruncIOp` replaces in the registered dialect
REPLACES = _xdsl.TruncIOp

__all__ = ["REPLACES", "TRUNCI_OPS", "TruncIOp"]
