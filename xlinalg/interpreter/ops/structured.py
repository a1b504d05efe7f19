"""`transform.structured.*`: match, tile_using_for, interchange, generalize."""

from __future__ import annotations

from xdsl.dialects import affine, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Attribute, Operation, SSAValue

from xlinalg.dialects.transform.structured import (
    GeneralizeOp,
    InterchangeOp,
    MatchInterfaceEnum,
    MatchOp,
    TileUsingForOp,
)
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.interpreter.diagnostics import (
    ApplyToEach,
    Lazy,
    describe_handle,
    describe_payload,
    failure,
    failure_of,
)
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import register
from xlinalg.ir.affine_utils import constant_index_value
from xlinalg.ir.walk import walk_ops
from xlinalg.transforms.linalg.generalize import generalize
from xlinalg.transforms.linalg.interchange import interchange
from xlinalg.transforms.tiling.tile_using_for import tile_using_for

_LOOP_LIKE = (scf.ForOp, scf.ParallelOp, scf.WhileOp, affine.ForOp, affine.ParallelOp)


def _has_interface(op: Operation, interface: MatchInterfaceEnum) -> bool:
    if interface in (MatchInterfaceEnum.LINALG_OP, MatchInterfaceEnum.TILING_INTERFACE):
        return isinstance(op, StructuredOpInterface)
    return isinstance(op, _LOOP_LIKE)


def _op_attr(op: Operation, name: str) -> Attribute | None:
    if name in op.attributes:
        return op.attributes[name]
    return op.properties.get(name)


def matches(match: MatchOp, op: Operation) -> bool:
    if match.ops is not None and op.name not in {s.data for s in match.ops.data}:
        return False
    interface = match.interface_kind
    if interface is not None and not _has_interface(op, interface):
        return False
    if match.op_attrs is not None:
        for name, value in match.op_attrs.data.items():
            if _op_attr(op, name) != value:
                return False
    if match.filter_result_type is not None and (
        len(op.results) != 1 or op.results[0].type != match.filter_result_type
    ):
        return False
    if match.filter_operand_types is not None:
        types = list(match.filter_operand_types.data)
        if len(types) == 1:
            if any(t != types[0] for t in op.operand_types):
                return False
        elif list(op.operand_types) != types:
            return False
    return True


@register(MatchOp)
def apply_match(op: MatchOp, interp: Interpreter) -> None:
    targets = interp.state.get_ops(op.target, op)
    if len(targets) != 1:
        raise failure(
            op,
            f"requires exactly one target op, {describe_handle(op.target)} holds {len(targets)}",
            silenceable=False,
        )
    found = [nested for nested in walk_ops(targets[0]) if matches(op, nested)]
    interp.state.bind(op.result, found)


def _size_params(op: Operation, interp: Interpreter, size: SSAValue, n: int) -> list[int]:
    """One integer tile size per target from a param, or from a handle to payload
    ops with one index result (the spec's `dynamic_sizes`) that fold to constants;
    one value is broadcast to every target."""
    if size in interp.state.params:
        params = interp.state.get_params(size, op)
    else:
        params = [_constant_size(op, producer, size) for producer in interp.state.get_ops(size, op)]
    if len(params) == 1:
        params = params * n
    if len(params) != n:
        raise failure(
            op,
            f"expected one tile size per target op ({n}) in {describe_handle(size)}, "
            f"got {len(params)}",
            silenceable=True,
        )
    values: list[int] = []
    for p in params:
        if not isinstance(p, IntegerAttr) or p.value.data < 0:
            raise failure(
                op,
                f"tile size param {describe_handle(size)} holds {p}, expected a non-negative integer",
                silenceable=False,
            )
        values.append(p.value.data)
    return values


def _constant_size(op: Operation, producer: Operation, handle: SSAValue) -> Attribute:

    if len(producer.results) != 1 or not isinstance(producer.results[0].type, IndexType):
        raise failure(
            op,
            f"tile size handle {describe_handle(handle)} must point to ops with one index "
            f"result, got {describe_payload(producer)}",
            silenceable=False,
        )
    value = constant_index_value(producer.results[0])
    if value is None:
        raise failure(
            op,
            f"tile size {describe_handle(handle)} is not a constant: tile sizes computed "
            "at run time are not supported",
            silenceable=False,
        )
    return IntegerAttr(value, 64)


@register(TileUsingForOp)
def apply_tile_using_for(op: TileUsingForOp, interp: Interpreter) -> None:
    targets = interp.state.get_ops(op.target, op)
    mixed = op.get_mixed_sizes()
    per_position: list[list[int]] = [
        [s] * len(targets) if isinstance(s, int) else _size_params(op, interp, s, len(targets))
        for s in mixed
    ]
    interchange = op.get_interchange()
    tiled_ops: list[Operation] = []
    loops: list[list[Operation]] = [[] for _ in op.loops]
    for index, target in enumerate(targets):
        sizes = [column[index] for column in per_position]
        with failure_of(op, Lazy("cannot tile {} by {}: ", target, sizes)):
            result = tile_using_for(target, sizes, interchange)
        tiled_ops.append(result.tiled_op)
        if len(result.loops) > len(loops):
            raise failure(
                op,
                f"tiling produced {len(result.loops)} loops but the op has only "
                f"{len(loops)} loop results",
                silenceable=False,
            )
        for slot, loop in zip(loops, result.loops):
            slot.append(loop)
    interp.state.bind(op.tiled_linalg_op, tiled_ops)
    for result, slot in zip(op.loops, loops):
        interp.state.bind(result, slot)


@register(InterchangeOp)
def apply_interchange(op: InterchangeOp, interp: Interpreter) -> None:
    permutation = op.get_permutation()
    transformed: list[Operation] = []
    each = ApplyToEach(op)
    for target in interp.state.get_ops(op.target, op):
        with each.target(Lazy("cannot interchange {} by {}: ", target, list(permutation))):
            transformed.append(interchange(target, permutation))
    interp.state.bind(op.transformed, transformed)
    each.finish()


@register(GeneralizeOp)
def apply_generalize(op: GeneralizeOp, interp: Interpreter) -> None:
    transformed: list[Operation] = []
    each = ApplyToEach(op)
    for target in interp.state.get_ops(op.target, op):
        with each.target(Lazy("cannot generalize {}: ", target)):
            transformed.append(generalize(target))
    interp.state.bind(op.transformed, transformed)
    each.finish()
