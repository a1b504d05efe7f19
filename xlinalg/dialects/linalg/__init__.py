"""xlinalg's `linalg` dialect: `generic`, `index`, `yield` and the named ops of the op table."""

from xdsl.dialects.linalg import IteratorTypeAttr
from xdsl.ir import Dialect

from xlinalg.dialects.linalg.generic import GenericOp, IndexOp, YieldOp

_OPS: list[type] = [GenericOp, IndexOp, YieldOp]

Linalg = Dialect("linalg", _OPS, [IteratorTypeAttr])

__all__ = ["GenericOp", "IndexOp", "Linalg", "YieldOp"]
