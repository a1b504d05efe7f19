"""Reading generated machine code: the innermost loops that hold FMAs (the register blocks
of the templates), and the loops of a payload that carry a vector to their next iteration."""

from __future__ import annotations

import re

from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp, VectorType

import xlinalg


def innermost_fma_loops(asm: str) -> list[list[str]]:
    """Bodies of the loops (backward branches) that contain FMAs and no other such loop."""
    lines = [line.strip() for line in asm.splitlines()]
    labels = {line[:-1]: i for i, line in enumerate(lines) if re.match(r"\.LBB\S+:$", line)}
    spans = []
    for i, line in enumerate(lines):
        jump = re.match(r"j\w+\s+(\.LBB\S+)$", line)
        if jump and jump.group(1) in labels and labels[jump.group(1)] < i:
            body = [
                x
                for x in lines[labels[jump.group(1)] : i + 1]
                if x and not x.startswith((".", "#"))
            ]
            if any("vfmadd" in x for x in body):
                spans.append((labels[jump.group(1)], i, body))
    inner = [
        s for s in spans if not any(o is not s and s[0] <= o[0] and o[1] <= s[1] for o in spans)
    ]
    return [body for _, _, body in inner]


def innermost_fma_loop(asm: str) -> list[str]:
    """The innermost FMA loop (as `innermost_fma_loops` reads them) with the most FMAs."""
    return max(innermost_fma_loops(asm), key=lambda body: sum("vfmadd" in x for x in body))


def fma_block(kernel: xlinalg.Kernel) -> list[str]:
    """The innermost FMA loop of `kernel`'s entry function."""
    return innermost_fma_loop(kernel._jit.asm(kernel.entry))


def pipelined_loops(module: ModuleOp) -> int:
    """Loops around a k loop that carry a vector (the next row block's C) from one
    iteration to the next."""
    return len(
        [
            op
            for op in module.walk()
            if isinstance(op, scf.ForOp)
            and any(isinstance(inner, scf.ForOp) for inner in op.body.block.ops)
            and any(isinstance(arg.type, VectorType) for arg in op.body.block.args)
        ]
    )
