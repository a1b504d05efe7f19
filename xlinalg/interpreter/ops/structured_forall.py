"""Interpreter implementations of `tile_using_forall` / `tile_to_forall_op`
(`xlinalg/dialects/transform/structured_forall.py`); the payload rewrite is
`xlinalg/transforms/tiling/tile_using_forall.py`.

Return modes (spec [002] `tile_to_forall_op` and current upstream):
* a target that is not a structured op: `tile_to_forall_op` drops it from the
  results (the spec: "ignores ops that do not implement the TilingInterface and
  drops them in the return"); `tile_using_forall` fails silenceably, as current
  upstream does ("only TilingInterface ops are supported");
* a target that does not tile (too many sizes, a non-strided memref, ...): silenceable
  ("Otherwise the transform silently fails");
* a size handle that does not hold one index-result op or integer param per
  target (or one for all): silenceable, as upstream's
  `unpackSingleIndexResultPayloadOperations`;
* both or neither of `num_threads` / `tile_sizes`: rejected by the verifier.
The target handle is consumed; size handles are only read.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.transform.structured_forall import (
    TileReductionUsingForallOp,
    TileToForallOp,
    TileUsingForallOp,
    _TileToForallBase,
)
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.interfaces.tiling import TilingInterface
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
from xlinalg.transforms.tiling.tile_reduction_forall import tile_reduction_using_forall
from xlinalg.transforms.tiling.tile_using_forall import tile_using_forall

Entry = int | SSAValue


def _entry_from(op: _TileToForallBase, item: Attribute | Operation, handle: SSAValue) -> Entry:
    if isinstance(item, Operation):
        if len(item.results) != 1 or not isinstance(item.results[0].type, IndexType):
            raise failure(
                op,
                f"{describe_handle(handle)} must hold ops with exactly one index result, got "
                f"{describe_payload(item)}",
                silenceable=True,
            )
        value = constant_index_value(item.results[0])
        return item.results[0] if value is None else value
    if not isinstance(item, IntegerAttr) or item.value.data < 0:
        raise failure(
            op,
            f"{describe_handle(handle)} holds {item}, expected a non-negative integer",
            silenceable=True,
        )
    return item.value.data


def _handle_items(
    interp: Interpreter, op: _TileToForallBase, handle: SSAValue
) -> list[Attribute | Operation]:
    if handle in interp.state.params:
        return list(interp.state.get_params(handle, op))
    return list(interp.state.get_ops(handle, op))


def _per_target(
    op: _TileToForallBase,
    interp: Interpreter,
    mixed: list[Entry] | None,
    packed: SSAValue | None,
    n: int,
) -> list[list[Entry]] | None:
    """The size list of each of the `n` targets (None when this list is not given)."""
    if packed is not None:
        items = [_entry_from(op, i, packed) for i in _handle_items(interp, op, packed)]
        return [items] * n
    if mixed is None:
        return None
    columns: list[list[Entry]] = []
    for entry in mixed:
        if isinstance(entry, int):
            columns.append([entry] * n)
            continue
        values = [_entry_from(op, i, entry) for i in _handle_items(interp, op, entry)]
        if len(values) == 1:
            values *= n
        if len(values) != n:
            raise failure(
                op,
                f"expected one value per target op ({n}) in {describe_handle(entry)}, got {len(values)}",
                silenceable=True,
            )
        columns.append(values)
    return [[column[t] for column in columns] for t in range(n)]


def apply_tile_to_forall(op: _TileToForallBase, interp: Interpreter) -> None:
    try:
        op.verify_()  # both or neither list: a definite failure if the script was not verified
    except VerifyException as err:
        raise failure(op, str(err), silenceable=False) from err
    targets = interp.state.get_ops(op.target, op)
    threads = _per_target(op, interp, op.mixed_num_threads(), op.packed_num_threads, len(targets))
    sizes = _per_target(op, interp, op.mixed_tile_sizes(), op.packed_tile_sizes, len(targets))
    tiled_ops: list[Operation] = []
    foralls: list[Operation] = []
    for index, target in enumerate(targets):
        if not isinstance(target, StructuredOpInterface | TilingInterface):
            if not op.MODERN:
                continue  # dropped from the results, as the spec says
            raise failure(
                op,
                f"only TilingInterface ops are supported, got {describe_payload(target)}",
                silenceable=True,
            )
        if threads is not None:
            spec = {"num_threads": threads[index]}
        else:
            assert sizes is not None  # the verifier asks for one of the two
            spec = {"tile_sizes": sizes[index]}
        shown = {k: [v if isinstance(v, int) else "?" for v in vs] for k, vs in spec.items()}
        with failure_of(op, Lazy("cannot tile {} with {}: ", target, shown)):
            result = tile_using_forall(target, mapping=op.mapping, **spec)
        tiled_ops.append(result.tiled_op)
        foralls.append(result.forall)
    interp.state.bind(op.tiled_handle, tiled_ops)
    interp.state.bind(op.forall_handle, foralls)


register(TileUsingForallOp)(apply_tile_to_forall)
register(TileToForallOp)(apply_tile_to_forall)


@register(TileReductionUsingForallOp)
def apply_tile_reduction_using_forall(op: TileReductionUsingForallOp, interp: Interpreter) -> None:
    """Return modes: the handles in the op's form (its docstring): the forall, fill,
    split and combining op per target, in the spec's order or upstream's (fill handles
    first, one per reduction result, forall last); a target that cannot be tiled this way
    (memrefs included, as upstream) is a silenceable failure."""
    fills: list[Operation] = []
    foralls: list[Operation] = []
    splits: list[Operation] = []
    combinings: list[Operation] = []
    each = ApplyToEach(op)
    for target in interp.state.get_ops(op.target, op):
        fill_handles = len(op.fill_handles)
        inits = (
            target.get_outputs() if isinstance(target, StructuredOpInterface) else target.results
        )
        if op.spec_order is None and fill_handles != len(inits):
            raise failure(
                op,
                f"expected {fill_handles} fill handle(s), one per init of "
                f"{describe_payload(target)}",
                silenceable=False,
            )
        with each.target(Lazy("cannot tile {}: ", target)):
            r = tile_reduction_using_forall(
                target, op.get_num_threads(), op.get_tile_sizes(), op.mapping
            )
            fills.append(r.fill_op)
            foralls.append(r.forall_op)
            splits.append(r.split_op)
            combinings.append(r.combining_op)
    for handle in op.fill_handles:
        interp.state.bind(handle, fills)
    interp.state.bind(op.forall_op, foralls)
    interp.state.bind(op.split_linalg_op, splits)
    interp.state.bind(op.combining_linalg_op, combinings)
    each.finish()
