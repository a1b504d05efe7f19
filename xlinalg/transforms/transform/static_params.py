"""Fold constant params into the static sizes of ops whose upstream form takes handles only.

xlinalg's transform ops accept a `!transform.param<i64>` wherever a size may be
dynamic (so a `transform.tune.knob` can feed it). Upstream accepts params in most
of those places (tile_using_for/forall, fuse, ...), but a few ops take only
handles to payload ops there (IREE 3.13: `transform.structured.pack`'s
`packed_sizes` must be `TransformHandleTypeInterface`). An exported schedule
whose knobs are resolved to `transform.param.constant`s would not parse in
iree-opt; `fold_static_params` puts the constant into the op's static list
instead (`packed_sizes = [%m0, %n0, 0]` -> `packed_sizes = [8, 32, 0]`) and
drops constants left without uses. Params that are not single integer constants
are left alone.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IntegerAttr, IntegerType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.rewriter import Rewriter
from xdsl.utils.hints import isa

from xlinalg.dialects.transform.core import ParamConstantOp
from xlinalg.dialects.transform.structured_pack import PackOp

# op class -> (static property, dynamic operand group) where upstream takes no params
STATIC_ONLY: dict[type[IRDLOperation], tuple[str, str]] = {
    PackOp: ("static_packed_sizes", "packed_sizes"),
}


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, ParamConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _fold(op: IRDLOperation, static_name: str, dynamic_name: str) -> bool:
    dynamic = list(getattr(op, dynamic_name))
    folded = {i: c for i, v in enumerate(dynamic) if (c := _constant(v)) is not None}
    if not folded:
        return False
    static_attr = op.properties[static_name]
    assert isa(static_attr, DenseArrayBase[IntegerType])
    static = [int(s) for s in static_attr.get_values()]
    position = 0
    for index, entry in enumerate(static):
        if entry == DYNAMIC_INDEX:
            if position in folded:
                static[index] = folded[position]
            position += 1
    kept = {v for i, v in enumerate(dynamic) if i not in folded}
    dropped = {v for i, v in enumerate(dynamic) if i in folded}
    operands = [v for v in op.operands if v not in dropped or v in kept]
    new = type(op).create(
        operands=operands,
        result_types=[r.type for r in op.results],
        properties={**op.properties, static_name: DenseArrayBase.from_list(i64, static)},
        attributes=dict(op.attributes),
    )
    Rewriter.replace_op(op, new)
    return True


def fold_static_params(module: Operation) -> int:
    """Fold constant params into the static lists of the `STATIC_ONLY` ops in `module`
    (see the module docstring); returns how many ops changed."""
    changed = 0
    for op in list(module.walk()):
        for cls, (static_name, dynamic_name) in STATIC_ONLY.items():
            if isinstance(op, cls) and _fold(op, static_name, dynamic_name):
                changed += 1
    for op in list(module.walk()):
        if isinstance(op, ParamConstantOp) and not op.results[0].uses:
            Rewriter.erase_op(op)
    return changed


__all__ = ["STATIC_ONLY", "fold_static_params"]
