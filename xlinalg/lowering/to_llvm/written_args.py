"""Which memref arguments a function may write through (for `noalias` and the call check).

The kernels assume, as upstream MLIR does, that distinct memref arguments do
not overlap: linalg-to-loops keeps accumulators in registers, vector hoisting
moves reads out of loops, and the LLVM IR marks memref base pointers
`noalias`. LLVM's `noalias` only constrains memory that is *modified* during
the call, so two arguments may share memory as long as neither is written.
The NumPy call wrapper (`xlinalg/backend/call.py`) enforces exactly that,
using the flags computed here.

The analysis is conservative, on cf-level IR (memref, vector, func, cf,
arith): a value is *derived* from an argument if it is the argument or the
memref result of an op with a derived operand (subview, cast,
reinterpret_cast, expand/collapse_shape, ...) or a block argument reached by a
branch passing a derived value. An argument is read-only only if every op
using a derived value is known not to write memory through it; any other use
(stores, transfer_write, copies, calls, ops we do not know) counts as a write.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

#: Ops that only read memory through (or only inspect) their memref operands.
READ_ONLY_OPS = frozenset(
    {
        "memref.load",
        "memref.prefetch",
        "memref.dim",
        "memref.rank",
        "memref.extract_strided_metadata",
        "memref.extract_aligned_pointer_as_index",
        "vector.load",
        "vector.maskedload",
        "vector.transfer_read",
        "vector.gather",
        "func.return",
    }
)


def _derived_values(arg: SSAValue) -> set[SSAValue]:
    derived: set[SSAValue] = {arg}
    work = [arg]
    while work:
        value = work.pop()
        for use in list(value.uses):
            op = use.operation
            new: list[SSAValue] = [r for r in op.results if isinstance(r.type, MemRefType)]
            for successor in op.successors:
                new.extend(a for a in successor.args if isinstance(a.type, MemRefType))
            for v in new:
                if v not in derived:
                    derived.add(v)
                    work.append(v)
    return derived


def _writes_through(derived: set[SSAValue]) -> bool:
    for value in derived:
        for use in value.uses:
            op: Operation = use.operation
            if op.name in READ_ONLY_OPS:
                continue
            if op.successors and not op.results:  # a branch forwarding the value
                continue
            if (
                any(isinstance(r.type, MemRefType) for r in op.results)
                and op.name.startswith("memref.")
                and op.name not in ("memref.copy", "memref.store")
            ):
                continue  # a view: its uses are in `derived` too
            return True
    return False


def written_memref_args(f: func.FuncOp) -> tuple[bool, ...]:
    """For every argument of `f`: True if it is a memref `f` may write through."""
    if not f.body.blocks:
        return tuple(isinstance(t, MemRefType) for t in f.function_type.inputs.data)
    return tuple(
        isinstance(a.type, MemRefType) and _writes_through(_derived_values(a))
        for a in f.body.blocks[0].args
    )


__all__ = ["READ_ONLY_OPS", "written_memref_args"]
