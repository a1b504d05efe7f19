"""`arith.index_cast` on scalars or vectors (xDSL 0.74's takes scalars only).

```
%i = arith.index_cast %a : i32 to index
%v = arith.index_cast %w : vector<4x8xi32> to vector<4x8xindex>
```

Vectorized linalg bodies cast data-dependent indices lane by lane (a gather's indices read
from another tensor). `IndexCastOp` replaces xDSL's class in our `Arith` dialect
(`xlinalg/dialects/arith.py`); passes may keep building xDSL's class for scalars.
"""

from __future__ import annotations

from xdsl.dialects import arith as _xdsl
from xdsl.dialects.builtin import IndexType, IntegerType, VectorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


def _element(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def _shape(t: Attribute) -> tuple[int, ...] | None:
    return tuple(t.get_shape()) if isinstance(t, VectorType) else None


@irdl_op_definition
class IndexCastOp(IRDLOperation):
    """`arith.index_cast %input : T to U`: integers ↔ index, scalars or vectors."""

    name = "arith.index_cast"

    input = operand_def(IntegerType | IndexType | VectorType)
    result = result_def(IntegerType | IndexType | VectorType)

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input_arg: SSAValue | Operation, target_type: Attribute):
        super().__init__(operands=[input_arg], result_types=[target_type])

    def verify_(self) -> None:
        a, b = self.input.type, self.result.type
        ea, eb = _element(a), _element(b)
        if _shape(a) != _shape(b) or not all(
            isinstance(e, IntegerType | IndexType) for e in (ea, eb)
        ):
            raise VerifyException(f"'arith.index_cast' cannot cast {a} to {b}")
        if isinstance(ea, IndexType) == isinstance(eb, IndexType):
            raise VerifyException(
                f"'arith.index_cast' op operand type '{a}' and result type '{b}' are cast "
                "incompatible"
            )


#: xDSL's class our `IndexCastOp` replaces in the registered dialect
REPLACES = _xdsl.IndexCastOp

__all__ = ["REPLACES", "IndexCastOp"]
