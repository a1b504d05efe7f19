"""Knob utilities: list the open choices of a schedule and resolve them.

A `transform.tune.knob` is a "knob" whose options are python values; a
`transform.tune.alternatives` is a choice among its regions, whose options are
the region indices.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, SupportsFloat, SupportsIndex

from xdsl.dialects.builtin import (
    ArrayAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Operation
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.transform.core import ParamConstantOp, YieldOp
from xlinalg.dialects.transform.structured_forall import TileReductionUsingForallOp
from xlinalg.dialects.transform.tune import AlternativesOp, KnobOp
from xlinalg.errors import KnobError

KnobValue = int | float | bool | str
KnobKind = Literal["knob", "alternatives"]


@dataclass(frozen=True)
class Knob:
    name: str
    options: tuple[KnobValue, ...]
    selected: KnobValue | None
    kind: KnobKind


def attr_to_python(attr: Attribute) -> KnobValue:
    """`16 : i64` -> 16, `true` -> True, `2.5 : f32` -> 2.5, `"a"` -> "a"."""
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
            return bool(value)
        return int(value)
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, StringAttr):
        return attr.data
    raise KnobError(f"unsupported knob option {attr} (expected an integer, float, bool or string)")


def knob_options(op: KnobOp) -> list[Attribute]:
    if not isinstance(op.options, ArrayAttr):
        raise KnobError(
            f'knob "{op.knob_name.data}": options must be an array of attributes, got {op.options}'
        )
    return list(op.options.data)


def _python_scalar(value: object) -> object:
    """The Python value of a numpy scalar (its `item()`); any other value unchanged."""
    item = getattr(value, "item", None)
    if item is None or isinstance(value, str | bytes):
        return value
    return item()


def _same(value: object, option: KnobValue) -> bool:
    # bool is an int in Python: keep True distinct from 1.
    if isinstance(option, bool) or isinstance(value, bool):
        return isinstance(option, bool) and isinstance(value, bool) and option == value
    if isinstance(option, str):
        return value == option
    if isinstance(value, str):
        return value.strip() == str(option)
    if not isinstance(value, SupportsFloat | SupportsIndex | bytes):  # no float value
        return option == value
    try:
        return option == value or float(option) == float(value)
    except (TypeError, ValueError):
        return False


def match_option(name: str, value: object, options: list[Attribute]) -> Attribute:
    """The option attribute equal to `value` (python value, or its text), else KnobError."""
    if isinstance(value, Attribute):
        if value in options:
            return value
    else:
        value = _python_scalar(value)
        for option in options:
            if _same(value, attr_to_python(option)):
                return option
    shown = [attr_to_python(o) for o in options]
    raise KnobError(f'knob "{name}": value {value!r} is not among its options {shown}')


def match_region(name: str, value: object, num_regions: int) -> int:
    """A valid region index for alternatives `name`, else KnobError."""
    value = _python_scalar(value)
    index: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        index = value
    elif isinstance(value, str) and value.strip().isdigit():
        index = int(value.strip())
    if index is None or not (0 <= index < num_regions):
        raise KnobError(
            f'alternatives "{name}": value {value!r} is not among its options '
            f"{list(range(num_regions))} (region indices)"
        )
    return index


def _tunables(schedule: Operation) -> list[KnobOp | AlternativesOp]:
    return [op for op in schedule.walk() if isinstance(op, (KnobOp, AlternativesOp))]


def list_knobs(schedule: Operation) -> list[Knob]:
    """Every knob and alternatives of `schedule`, in textual order (one entry per name)."""
    knobs: dict[str, Knob] = {}
    for op in _tunables(schedule):
        if isinstance(op, KnobOp):
            name = op.knob_name.data
            knob = Knob(
                name,
                tuple(attr_to_python(o) for o in knob_options(op)),
                attr_to_python(op.selected) if op.selected is not None else None,
                "knob",
            )
        else:
            name = op.alt_name.data
            knob = Knob(
                name,
                tuple(range(len(op.alternatives))),
                op.selected_region,
                "alternatives",
            )
        previous = knobs.get(name)
        if previous is not None and (previous.options, previous.kind) != (knob.options, knob.kind):
            raise KnobError(f'knob "{name}" is declared twice with different options')
        knobs.setdefault(name, knob)
    return list(knobs.values())


def check_knob_names(schedule: Operation, values: Mapping[str, object]) -> None:
    """KnobError if `values` names a knob that `schedule` does not declare."""
    known = {k.name for k in list_knobs(schedule)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise KnobError(
            f"unknown knob{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
            f"the schedule declares {sorted(known) if known else 'no knobs'}"
        )


def resolve_knobs(
    schedule: ModuleOp, values: Mapping[str, object], *, as_constants: bool = False
) -> ModuleOp:
    """A clone of `schedule` with knobs resolved from `values`.

    Knobs get `selected` (printed `= 16 from options = [...]`), alternatives get
    `selected_region`. Knobs already resolved keep their value (a conflicting
    value in `values` is a KnobError). Knobs missing from `values` stay open
    unless `as_constants` is set, which needs every knob resolved and replaces
    knobs by `transform.param.constant` and inlines the selected alternatives
    (for tools without the tune extension; a spec-form tile_reduction_using_forall
    also gets upstream's form).
    """
    check_knob_names(schedule, values)
    resolved = schedule.clone()
    for op in _tunables(resolved):
        if isinstance(op, KnobOp):
            _resolve_knob(op, values, as_constants)
        else:
            _resolve_alternatives(op, values, as_constants)
    if as_constants:  # the spec's handle order has no upstream spelling
        for op in [o for o in resolved.walk() if isinstance(o, TileReductionUsingForallOp)]:
            op.to_upstream_form()
    return resolved


def _resolve_knob(op: KnobOp, values: Mapping[str, object], as_constants: bool) -> None:
    name = op.knob_name.data
    options = knob_options(op)
    if name in values:
        chosen = match_option(name, values[name], options)
        if op.selected is not None and op.selected != chosen:
            raise KnobError(
                f'knob "{name}" is already resolved to {attr_to_python(op.selected)!r}; '
                f"cannot set it to {values[name]!r}"
            )
        op.selected = chosen
    if as_constants:
        if op.selected is None:
            raise KnobError(
                f'knob "{name}" has no value (options {[attr_to_python(o) for o in options]})'
            )
        Rewriter.replace_op(op, ParamConstantOp(op.selected, op.result.type))


def _resolve_alternatives(
    op: AlternativesOp, values: Mapping[str, object], as_constants: bool
) -> None:
    name = op.alt_name.data
    if name in values:
        index = match_region(name, values[name], len(op.alternatives))
        if op.selected_region is not None and op.selected_region != index:
            raise KnobError(
                f'alternatives "{name}" is already resolved to region {op.selected_region}; '
                f"cannot set it to {values[name]!r}"
            )
        op.selected_region_attr = IntegerAttr.from_index_int_value(index)
    if as_constants:
        index = op.selected_region
        if index is None:
            raise KnobError(
                f'alternatives "{name}" has no selected region '
                f"(options {list(range(len(op.alternatives)))})"
            )
        block = op.alternatives[index].block
        yield_op = block.last_op
        assert isinstance(yield_op, YieldOp)
        yielded = list(yield_op.arguments)
        yield_op.detach()
        yield_op.erase()
        Rewriter.inline_block(block, InsertPoint.before(op))
        Rewriter.replace_op(op, [], yielded)


__all__ = [
    "Knob",
    "KnobValue",
    "attr_to_python",
    "check_knob_names",
    "list_knobs",
    "match_option",
    "match_region",
    "resolve_knobs",
]
