"""The xDSL context every xlinalg entry point parses with (upstream dialects plus ours),
and the parse of MLIR text in it."""

from __future__ import annotations

from functools import cache

from xdsl.context import Context
from xdsl.dialects.affine import Affine
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.cf import Cf
from xdsl.dialects.func import Func
from xdsl.dialects.llvm import LLVM
from xdsl.dialects.math import Math
from xdsl.ir import Dialect
from xdsl.utils.exceptions import ParseError

from xlinalg.dialects.arith import Arith
from xlinalg.dialects.bufferization import Bufferization
from xlinalg.dialects.gpu import GPU
from xlinalg.dialects.iree_linalg_ext import IreeLinalgExt
from xlinalg.dialects.linalg import Linalg
from xlinalg.dialects.memref import MemRef
from xlinalg.dialects.scf import Scf
from xlinalg.dialects.tensor import Tensor
from xlinalg.dialects.transform import TRANSFORM_DIALECTS
from xlinalg.dialects.vector import Vector
from xlinalg.errors import ParseFailure
from xlinalg.ir.parsing import LocatingParser


def all_dialects() -> list[Dialect]:
    """Every dialect xlinalg understands, in registration order."""
    return [
        Builtin,
        Func,
        Arith,
        Math,
        MemRef,
        Tensor,
        Scf,
        Affine,
        Cf,
        LLVM,
        Linalg,
        Vector,
        *TRANSFORM_DIALECTS,
        IreeLinalgExt,
        Bufferization,
        GPU,
    ]


@cache
def _template() -> Context:
    ctx = Context()
    for dialect in all_dialects():
        ctx.load_dialect(dialect)
    return ctx


def make_context() -> Context:
    """A fresh context with all of xlinalg's dialects loaded (cheap: cloned from a template)."""
    return _template().clone()


def parse_module(text: str, name: str = "<schedule>", ctx: Context | None = None) -> ModuleOp:
    """Parse MLIR text to a `ModuleOp`, ops located; errors become `ParseFailure`."""
    try:
        module = LocatingParser(ctx or make_context(), text, name).parse_module()
    except ParseError as err:
        raise ParseFailure(str(err)) from err
    return module
