"""The xDSL context every xlinalg entry point parses with: upstream dialects plus ours."""

from __future__ import annotations

from functools import cache

from xdsl.context import Context
from xdsl.dialects.affine import Affine
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.cf import Cf
from xdsl.dialects.func import Func
from xdsl.dialects.llvm import LLVM
from xdsl.dialects.math import Math
from xdsl.ir import Dialect

from xlinalg.dialects.arith import Arith
from xlinalg.dialects.linalg import Linalg
from xlinalg.dialects.memref import MemRef
from xlinalg.dialects.scf import Scf
from xlinalg.dialects.tensor import Tensor
from xlinalg.dialects.vector import Vector


def all_dialects() -> list[Dialect]:
    """Every dialect xlinalg understands, in registration order."""
    from xlinalg.dialects.bufferization import Bufferization
    from xlinalg.dialects.gpu import GPU
    from xlinalg.dialects.iree_linalg_ext import IreeLinalgExt
    from xlinalg.dialects.transform import TRANSFORM_DIALECTS

    return [Builtin, Func, Arith, Math, MemRef, Tensor, Scf, Affine, Cf, LLVM, Linalg, Vector,
            *TRANSFORM_DIALECTS, IreeLinalgExt, Bufferization, GPU]


@cache
def _template() -> Context:
    ctx = Context()
    for dialect in all_dialects():
        ctx.load_dialect(dialect)
    return ctx


def make_context() -> Context:
    """A fresh context with all of xlinalg's dialects loaded (cheap: cloned from a template)."""
    return _template().clone()
