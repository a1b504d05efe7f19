"""Tune extension: `transform.tune.knob` and `transform.tune.alternatives`."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr

from xlinalg.dialects.transform.tune import AlternativesOp, KnobOp
from xlinalg.errors import KnobError
from xlinalg.interpreter.diagnostics import failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import register
from xlinalg.ir.diagnostics import location_of
from xlinalg.transforms.transform.knobs import (
    attr_to_python,
    knob_options,
    match_option,
    match_region,
)


@register(KnobOp)
def apply_knob(op: KnobOp, interp: Interpreter) -> None:
    name = op.knob_name.data
    options = knob_options(op)
    given = interp.state.knobs.get(name)
    if op.selected is not None:
        if given is not None and match_option(name, given, options) != op.selected:
            raise KnobError(
                f'knob "{name}" is resolved to {attr_to_python(op.selected)!r} in the '
                f"schedule; the value {given!r} given for it conflicts",
                location_of(op),
            )
        interp.state.bind(op.result, [op.selected])
        return
    if name not in interp.state.knobs:
        raise KnobError(
            f'knob "{name}" has no value: give one of {[attr_to_python(o) for o in options]}',
            location_of(op),
        )
    try:
        chosen = match_option(name, given, options)
    except KnobError as err:
        raise KnobError(err.message, location_of(op)) from err
    interp.state.bind(op.result, [chosen])


@register(AlternativesOp)
def apply_alternatives(op: AlternativesOp, interp: Interpreter) -> None:
    name = op.alt_name.data
    count = len(op.alternatives)
    index = op.selected_region
    given = interp.state.knobs.get(name)
    if op.selected_region_param is not None:
        params = interp.state.get_params(op.selected_region_param, op)
        if len(params) != 1 or not isinstance(params[0], IntegerAttr):
            raise failure(
                op,
                f"param should hold exactly one integer attribute, got {params}",
                silenceable=False,
            )
        index = params[0].value.data
    if index is not None:
        if given is not None and match_region(name, given, count) != index:
            raise KnobError(
                f'alternatives "{name}" selects region {index} in the schedule; the value '
                f"{given!r} given for it conflicts",
                location_of(op),
            )
    elif name in interp.state.knobs:
        try:
            index = match_region(name, given, count)
        except KnobError as err:
            raise KnobError(err.message, location_of(op)) from err
    else:
        raise KnobError(
            f'alternatives "{name}" has no selected region: give one of {list(range(count))}',
            location_of(op),
        )
    if not (0 <= index < count):
        raise failure(
            op,
            f"selected region {index} out of range: the op has {count} regions",
            silenceable=False,
        )
    yielded = interp.run_block(op.alternatives[index].block)
    interp.forward(yielded, op.results_, op)
