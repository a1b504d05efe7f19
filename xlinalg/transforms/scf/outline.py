"""Outlining a loop into a function (upstream `outlineSingleBlockRegion` as used by
`transform.loop.outline`).

The loop moves into a new `func.func` (named `func_name`, or `func_name_<n>`
if taken) inserted before the function holding the loop; the values the loop
uses from above become arguments, except constants, which are cloned into the
function; the loop's results are returned. The loop is replaced by a
`func.call`.
"""

from __future__ import annotations

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

from xlinalg.errors import silenceable_failure


def _symbol_table_parent(op: Operation) -> tuple[Operation, Operation]:
    """The closest symbol-table ancestor, and the child of it that contains `op`."""
    child = op
    parent = op.parent_op()
    while parent is not None:
        if parent.has_trait(SymbolTable) or isinstance(parent, ModuleOp):
            return parent, child
        child, parent = parent, parent.parent_op()
    raise silenceable_failure(f"cannot outline '{op.name}': no enclosing symbol table (module)")


def _free_name(table: Operation, base: str) -> str:
    taken = {
        sym_name.data
        for region in table.regions
        for block in region.blocks
        for op in block.ops
        if isinstance(sym_name := op.properties.get("sym_name"), StringAttr)
    }
    if base not in taken:
        return base
    n = 1
    while f"{base}_{n}" in taken:
        n += 1
    return f"{base}_{n}"


def _captured(loop: Operation) -> list[SSAValue]:
    seen: list[SSAValue] = []
    for inner in loop.walk():
        for value in inner.operands:
            owner = value.owner
            defining = owner if isinstance(owner, Operation) else owner.parent_op()
            if defining is not None and loop.is_ancestor(defining) and defining is not loop:
                continue
            if defining is loop:  # the loop's own block arguments
                continue
            if value not in seen:
                seen.append(value)
    return seen


def outline_loop(loop: Operation, func_name: str) -> tuple[func.FuncOp, func.CallOp]:
    table, holder = _symbol_table_parent(loop)
    name = _free_name(table, func_name)
    captured = _captured(loop)
    constants = [v for v in captured if isinstance(v.owner, arith.ConstantOp)]
    arguments = [v for v in captured if v not in constants]
    body = Block(arg_types=[v.type for v in arguments])
    value_map: dict[SSAValue, SSAValue] = dict(zip(arguments, body.args))
    for value in constants:
        constant = value.owner
        assert isinstance(constant, arith.ConstantOp)
        clone = constant.clone()
        body.add_op(clone)
        value_map[value] = clone.results[0]
    moved = loop.clone(value_mapper=value_map)
    body.add_op(moved)
    body.add_op(func.ReturnOp(*moved.results))
    function = func.FuncOp(
        name, ([v.type for v in arguments], [r.type for r in loop.results]), Region(body)
    )
    Rewriter.insert_op(function, InsertPoint.before(holder))
    call = func.CallOp(name, arguments, [r.type for r in loop.results])
    Rewriter.replace_op(loop, call)
    return function, call


__all__ = ["outline_loop"]
