"""`walk_ops`: every op nested in an op, in the order of `Operation.walk()`, as a list.

xDSL's `walk` is a chain of generators (op → region → block → op ...): every op it
yields is passed up through three generator frames per level of nesting, so a walk
over the deep loop nests of a tiled, unrolled kernel costs a few ms; the passes of
the lowering pipeline each walk the whole module once or more per tuning candidate.
`walk_ops` follows the block's linked list of ops instead and costs one list append
per op. It takes a snapshot: ops inserted or erased while the list is used are not
reflected, as with `list(op.walk())`, which is what it replaces.
"""

from __future__ import annotations

from xdsl.ir import Operation


def walk_ops(root: Operation) -> list[Operation]:
    """`list(root.walk())`: `root`, then every nested op in pre-order."""
    found: list[Operation] = [root]
    _collect(root, found)
    return found


def _collect(op: Operation, found: list[Operation]) -> None:
    # `_first_op` / `_next_op` are the fields behind xDSL 0.74's (pinned) `first_op` /
    # `next_op` properties: read directly, a walk of a large kernel is ~1/3 cheaper
    append = found.append
    for region in op.regions:
        for block in region.blocks:
            inner = block._first_op
            while inner is not None:
                append(inner)
                if inner.regions:
                    _collect(inner, found)
                inner = inner._next_op


__all__ = ["walk_ops"]
